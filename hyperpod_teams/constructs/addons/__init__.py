"""The platform's EKS add-ons as one family: each a `ClusterAddOn` on an `AddonCluster`
(`contract.py` says what every member holds: what it installs, its roles, its team grants, its
adoption), one module per add-on. A new add-on: its names and references in
`hyperpod_teams/addons.py`, its controllers' policies in `hyperpod_teams/policies/`, its construct
here (docs/extending.md, "A new add-on")."""

from hyperpod_teams.constructs.addons.contract import AddonCluster, ClusterAddOn
from hyperpod_teams.constructs.addons.inference import InferenceOperator
from hyperpod_teams.constructs.addons.observability import HyperPodObservability
from hyperpod_teams.constructs.addons.spaces import SageMakerSpaces
from hyperpod_teams.constructs.addons.task_governance import TaskGovernance
from hyperpod_teams.constructs.addons.training_operator import TrainingOperator

__all__ = [
    "AddonCluster",
    "ClusterAddOn",
    "HyperPodObservability",
    "InferenceOperator",
    "SageMakerSpaces",
    "TaskGovernance",
    "TrainingOperator",
]
