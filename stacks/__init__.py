"""The Terraform stacks of the platform, one per unit of credentials and blast radius
(docs/architecture.md, the stack table). Installed as `hyperpod_teams.stacks`."""

from hyperpod_teams.stacks.access import AccessStack
from hyperpod_teams.stacks.base import PlatformStack
from hyperpod_teams.stacks.cluster import ClusterStack
from hyperpod_teams.stacks.cost import CostStack
from hyperpod_teams.stacks.eks import EksStack
from hyperpod_teams.stacks.hyperpod_dependencies import HyperPodDependenciesStack
from hyperpod_teams.stacks.identity import IdentityStack
from hyperpod_teams.stacks.team import TeamStack
from hyperpod_teams.stacks.team_kubernetes import TeamKubernetesStack
from hyperpod_teams.stacks.team_placement import TeamPlacementStack
from hyperpod_teams.stacks.usage_report import UsageOperatorStack, UsageReportStack

__all__ = [
    "AccessStack",
    "ClusterStack",
    "CostStack",
    "EksStack",
    "HyperPodDependenciesStack",
    "IdentityStack",
    "PlatformStack",
    "TeamKubernetesStack",
    "TeamPlacementStack",
    "TeamStack",
    "UsageOperatorStack",
    "UsageReportStack",
]
