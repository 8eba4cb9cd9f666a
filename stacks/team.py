"""`<org>-team-<team>`: one team's AWS resources, tagged with the team for cost allocation."""

from __future__ import annotations

from constructs import Construct

from hyperpod_teams import naming
from hyperpod_teams.constructs.cost import TeamBudget
from hyperpod_teams.spec.models import PlatformSpec, Team
from hyperpod_teams.stacks.base import PlatformStack


class TeamStack(PlatformStack):
    credentials = "AWS"

    def __init__(self, scope: Construct, stack_name: str, *, spec: PlatformSpec, team: Team) -> None:
        super().__init__(scope, stack_name, spec=spec)
        self.team = team
        org = spec.organization.name
        self.add_aws_provider(
            tags={**self.organization_tags(), **naming.team_tags(org, team.name, team.cost_center)}
        )
        self.budget = TeamBudget(self, "budget", spec=spec, team=team) if team.budget else None
