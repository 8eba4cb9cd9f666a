"""What every EKS add-on of the platform is, as a construct (the family in this package: the
training operator, task governance, inference, Spaces, observability):

- **the cluster it goes on** (`AddonCluster`): the spec, the EKS cluster's name and ARN, the
  HyperPod cluster's ARN, and what must exist before it (the nodes its pods run on);
- **what it installs**: `self.addon`, the EKS add-on (`install`), with the configuration
  `hyperpod_teams/addons.py` derives and names the references of;
- **its roles**: each controller's, through EKS Pod Identity (`constructs.pod_identity`) or IRSA,
  its policy in `hyperpod_teams/policies/` (one module per add-on's controllers);
- **its team grants**: what a team may do with it is the team stacks' (access entries, RBAC,
  admission policies: `rbac.py`, `isolation.py`), never the add-on's construct;
- **its adoption**: an add-on a cluster already runs is taken over (`existing_addon:
  take_over`: imported, never deleted by the stacks) or left alone (`leave_alone`: the construct
  is not made), `install` doing both for every member of the family.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from constructs import Construct

from hyperpod_teams import bindings
from hyperpod_teams.constructs.lookups import import_taken_over_addon, taken_over_lifecycle
from hyperpod_teams.spec.models import Organization, PlatformSpec


@dataclass(frozen=True)
class AddonCluster:
    """The cluster an add-on is installed on, and what must exist first."""

    spec: PlatformSpec
    eks_cluster_name: str
    eks_cluster_arn: str
    hyperpod_cluster_arn: str | None = None
    after: list = field(default_factory=list)

    @property
    def organization(self) -> Organization:
        return self.spec.organization


class ClusterAddOn(Construct):
    """The base of each add-on construct: the cluster it is on, and `install`."""

    def __init__(self, scope: Construct, id_: str, cluster: AddonCluster) -> None:
        super().__init__(scope, id_)
        self.cluster = cluster
        self.addon = None

    def install(self, name: str, *, existing: str | None, **arguments):
        """The EKS add-on `name` on the cluster (construct ID `addon`), taken over when `existing`
        says so: imported, and never deleted by the stacks (what was the cluster's before)."""
        addon = bindings.aws_eks_addon.EksAddon(
            self,
            "addon",
            cluster_name=self.cluster.eks_cluster_name,
            addon_name=name,
            lifecycle=taken_over_lifecycle(existing),
            **arguments,
        )
        cluster_name = self.cluster.eks_cluster_name
        import_taken_over_addon(addon, eks_cluster_name=cluster_name, addon_name=name, existing=existing)
        return addon
