"""A team's own AWS places: its execution role and its SageMaker AI domain."""

from __future__ import annotations

import cdktf
from constructs import Construct

from hyperpod_teams import bindings, naming, policies
from hyperpod_teams.spec.models import PlatformSpec, Team


class TeamExecutionRole(Construct):
    """The role of the team's domain apps and jobs: its own resources only (policies.py)."""

    def __init__(self, scope: Construct, id_: str, *, spec: PlatformSpec, team: Team) -> None:
        super().__init__(scope, id_)
        org = spec.organization
        self.role = bindings.aws_iam_role.IamRole(
            self,
            "role",
            name=naming.team_execution_role_name(org.name, team.name),
            assume_role_policy=policies.policy_json(policies.sagemaker_trust_policy()),
        )
        self.policy = bindings.aws_iam_role_policy.IamRolePolicy(
            self,
            "team-access",
            name="team-access",
            role=self.role.id,
            policy=policies.policy_json(
                policies.team_execution_policy(
                    org=org.name,
                    team=team.name,
                    account_id=org.account_id,
                    region=org.region,
                    eks_cluster_name=naming.shared_eks_cluster_name(spec.cluster),
                )
            ),
        )
        self.arn = self.role.arn


class TeamDomain(Construct):
    """The team's SageMaker AI domain: SSO, VPC only, idle shutdown, home directories kept.

    Its tags (organization, team, cost center) propagate to every app and space the team starts,
    which the provider's default tags never reach.
    """

    def __init__(
        self,
        scope: Construct,
        id_: str,
        *,
        spec: PlatformSpec,
        team: Team,
        execution_role: TeamExecutionRole,
        group_ids: dict[str, str],
    ) -> None:
        super().__init__(scope, id_)
        org, network, studio = spec.organization, spec.cluster.network, team.studio
        domain = bindings.aws_sagemaker_domain
        self.domain = domain.SagemakerDomain(
            self,
            "domain",
            domain_name=naming.team_domain_name(org.name, team.name),
            auth_mode="SSO",
            vpc_id=network.vpc_id,
            subnet_ids=list(network.subnet_ids),
            app_network_access_type="VpcOnly",
            default_user_settings=domain.SagemakerDomainDefaultUserSettings(
                execution_role=execution_role.arn,
                security_groups=list(network.security_group_ids),
                jupyter_lab_app_settings=domain.SagemakerDomainDefaultUserSettingsJupyterLabAppSettings(
                    default_resource_spec=domain.SagemakerDomainDefaultUserSettingsJupyterLabAppSettingsDefaultResourceSpec(
                        instance_type=studio.default_instance_type
                    ),
                    app_lifecycle_management=domain.SagemakerDomainDefaultUserSettingsJupyterLabAppSettingsAppLifecycleManagement(
                        idle_settings=domain.SagemakerDomainDefaultUserSettingsJupyterLabAppSettingsAppLifecycleManagementIdleSettings(
                            lifecycle_management="ENABLED", idle_timeout_in_minutes=studio.idle_timeout_minutes
                        )
                    ),
                ),
            ),
            # Deleting the domain must never take the team's home directories with it.
            retention_policy=domain.SagemakerDomainRetentionPolicy(home_efs_file_system="Retain"),
            tag_propagation="ENABLED",
            tags=naming.team_resource_tags(org, team),
            lifecycle=cdktf.TerraformResourceLifecycle(prevent_destroy=True),
        )
        # The team's Identity Center groups may open the domain from the access portal.
        self.assignments = [
            bindings.aws_ssoadmin_application_assignment.SsoadminApplicationAssignment(
                self,
                f"{role}-assignment",
                application_arn=self.domain.single_sign_on_application_arn,
                principal_id=group_ids[role],
                principal_type="GROUP",
            )
            for role in naming.ROLES
        ]
