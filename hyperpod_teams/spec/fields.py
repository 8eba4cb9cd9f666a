"""The sections and fields of the team spec, version 1, as Pydantic models: everything of the
public contract but the whole (`models.PlatformSpec`), which checks the rules across fields. One
module per section, all importable from here (and from `models`) as before they were split:

- `field_types`: the values a field may take, the checks every text gets, `SpecModel` (ground floor)
- `organization`: `organization` (accounts, region, tags, backend) and `identity`
- `instance_groups`: the cluster's instance groups
- `cluster_addons`: the dependency chart, the training operator, inference, Spaces, observability
- `cluster`: the `cluster` section (EKS, network, task governance, the HyperPod cluster)
- `teams`: each team's members, quota, Studio, budget, data and workload identity
- `cost`: the `cost` section

The spec's ground floor: these modules import no other module of the spec but each other, and
nothing of the project that imports the spec (the cycle test in tests/test_import_layers.py holds
it). Field names, nesting, enum values and defaults follow the spec contract
(docs/spec-reference.md, the JSON Schema).
"""

from hyperpod_teams.spec.cluster import *  # noqa: F403
from hyperpod_teams.spec.cluster import (  # noqa: F401
    CREATED_CLUSTER_ONLY,
    CREATED_INSTANCE_GROUP_ONLY,
    Cluster,
    ClusterTimeouts,
    Duration,
    Eks,
    Network,
    PriorityClass,
    TaskGovernance,
    capacity_by_instance_type,
)
from hyperpod_teams.spec.cluster_addons import *  # noqa: F403
from hyperpod_teams.spec.cluster_addons import (  # noqa: F401
    DEPENDENCIES_CHART_CLONE_DIR,
    DEPENDENCIES_CHART_COMPONENTS,
    DEPENDENCIES_CHART_REF,
    DEPENDENCIES_CHART_REPOSITORY,
    AddonVersion,
    ChartComponent,
    DependenciesChart,
    ExistingAddon,
    Inference,
    Observability,
    Spaces,
    TrainingOperator,
    installs,
)
from hyperpod_teams.spec.cost import *  # noqa: F403
from hyperpod_teams.spec.cost import (  # noqa: F401
    USAGE_REPORT_CHART_PATH,
    USAGE_REPORT_CLONE_DIR,
    USAGE_REPORT_REF,
    USAGE_REPORT_REPOSITORY,
    Cost,
    UsageReports,
)
from hyperpod_teams.spec.field_types import *  # noqa: F403
from hyperpod_teams.spec.instance_groups import *  # noqa: F403
from hyperpod_teams.spec.organization import *  # noqa: F403
from hyperpod_teams.spec.teams import *  # noqa: F403
