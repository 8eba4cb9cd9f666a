"""Moved to `hyperpod_teams.policies.deploy`, beside every other principal's policies; importable
here for programs written against 0.2.0."""

from hyperpod_teams.policies.deploy import deploy_policies, deploy_policy_statements, role_boundary_policy

__all__ = ["deploy_policies", "deploy_policy_statements", "role_boundary_policy"]
