"""IAM policy documents as plain dicts, one module per principal: a reviewer reads there what each
role receives.

- `documents`: what every policy is built of (trust policies, ARNs, conditions, managed policies)
- `node`: the HyperPod instance groups' role
- `cluster`: the EKS cluster role, HyperPod autoscaling, bucket and KMS key policies
- `workload`: a team's workload role (its pods)
- `hyp`: what the HyperPod CLI calls, for the roles that run it
- `studio_execution`: a team's Studio execution role
- `team_roles`: the team roles' Identity Center permission sets
- `platform_admins`: the platform admins' permission set
- `several_clusters`: one permission set's policy over several clusters (#61)
- `usage_report`, `inference`, `load_balancer_controller`, `observability`: each add-on's controllers

Every name the modules define is importable from `hyperpod_teams.policies` as before the split.
Pure layer: no cdktf. Constructs serialize these with `policy_json`.
"""

from hyperpod_teams.policies.cluster import *  # noqa: F403
from hyperpod_teams.policies.documents import *  # noqa: F403
from hyperpod_teams.policies.hyp import *  # noqa: F403
from hyperpod_teams.policies.inference import *  # noqa: F403
from hyperpod_teams.policies.load_balancer_controller import *  # noqa: F403
from hyperpod_teams.policies.node import *  # noqa: F403
from hyperpod_teams.policies.observability import *  # noqa: F403
from hyperpod_teams.policies.platform_admins import *  # noqa: F403
from hyperpod_teams.policies.several_clusters import *  # noqa: F403
from hyperpod_teams.policies.studio_execution import *  # noqa: F403
from hyperpod_teams.policies.team_roles import *  # noqa: F403
from hyperpod_teams.policies.usage_report import *  # noqa: F403
from hyperpod_teams.policies.workload import *  # noqa: F403
