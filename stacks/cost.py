"""`<org>-cost`: cost allocation tag activation and the team cost category (AWS, payer account)."""

from __future__ import annotations

from constructs import Construct

from hyperpod_teams.constructs.cost import CostAllocation
from hyperpod_teams.spec.clusters import SeveralClusters
from hyperpod_teams.spec.models import PlatformSpec
from hyperpod_teams.stacks.base import PlatformStack


class CostStack(PlatformStack):
    def __init__(
        self, scope: Construct, stack_name: str, *, spec: PlatformSpec, clusters: SeveralClusters | None = None
    ) -> None:
        """`clusters`: the spec of several clusters `spec` is the organization's view of: one cost
        category over every cluster, each cluster's shared spend split by its own quotas."""
        super().__init__(scope, stack_name, spec=spec)
        # The payer account (organization.accounts.payer), which may differ from the cluster's: pinned
        # only when the spec names it.
        self.add_aws_provider(tags=self.organization_tags(), account=spec.organization.payer_account)
        self.allocation = CostAllocation(self, "cost-allocation", spec=clusters or spec)
