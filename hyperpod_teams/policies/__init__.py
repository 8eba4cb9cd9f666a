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
- `usage_report`, `inference`, `load_balancer_controller`, `observability`: each add-on's controllers

Every name the modules define is importable from `hyperpod_teams.policies` as before the split.
Pure layer: no cdktf. Constructs serialize these with `policy_json`.
"""

from hyperpod_teams.policies.cluster import (  # noqa: F401
    AUTOSCALING_NODE_ACTIONS,
    AUTOSCALING_SERVICE,
    EKS_SECRETS_KEY_ACTIONS,
    KMS_ACCOUNT_ACTIONS,
    eks_cluster_trust_policy,
    eks_secrets_key_use_policy,
    hyperpod_autoscaling_policy,
    hyperpod_autoscaling_trust_policy,
    kms_key_policy,
    tls_only_bucket_policy,
)
from hyperpod_teams.policies.documents import (  # noqa: F401
    EKS_CLUSTER_MANAGED_POLICIES,
    HYPERPOD_INSTANCE_MANAGED_POLICIES,
    METRIC_READ_ACTIONS,
    STACKS_AWS_MANAGED_POLICIES,
    aws_partition,
    eks_arn,
    in_region,
    irsa_trust_policy,
    managed_policy_arn,
    no_team_data_policy,
    owned_by,
    pod_identity_trust_policy,
    policy_json,
    sagemaker_trust_policy,
    service_trust_policy,
    split_s3_uri,
    studio_resources,
)
from hyperpod_teams.policies.hyp import HYP_LIST_ACTIONS, hyp_connect_statements, hyp_from_studio_statements  # noqa: F401
from hyperpod_teams.policies.inference import inference_tls_bucket_policy, keda_policy, s3_csi_policy  # noqa: F401
from hyperpod_teams.policies.load_balancer_controller import ALB_DESCRIBE_ACTIONS, alb_controller_policy  # noqa: F401
from hyperpod_teams.policies.node import (  # noqa: F401
    NODE_IMAGE_PULL_ACTIONS,
    NODE_NETWORK_INTERFACE_ACTIONS,
    NODE_POD_IDENTITY_ACTIONS,
    NODE_UNSCOPED_ACTIONS,
    hyperpod_eks_node_policy,
    hyperpod_execution_trust_policy,
    lifecycle_script_object,
    lifecycle_scripts_read_policy,
)
from hyperpod_teams.policies.observability import (  # noqa: F401
    LOG_GROUP_LIST_ACTIONS,
    PROMETHEUS_LIST_ACTIONS,
    grafana_workspace_policy,
    observability_collector_policy,
)
from hyperpod_teams.policies.platform_admins import (  # noqa: F401
    CLUSTER_ADMIN_ACTIONS,
    EKS_ADMIN_ACTIONS,
    NODE_OPERATION_ACTIONS,
    TASK_GOVERNANCE_ADMIN_ACTIONS,
    platform_admins_permission_set_policy,
)
from hyperpod_teams.policies.studio_execution import (  # noqa: F401
    CLUSTER_READ_ACTIONS,
    CONTAINER_LOG_READ_ACTIONS,
    IMAGE_READ_ACTIONS,
    REGISTRY_SIGN_IN_ACTIONS,
    STUDIO_DESCRIBE_ACTIONS,
    STUDIO_EC2_ACTIONS,
    STUDIO_EKS_ACTIONS,
    STUDIO_LIST_ACTIONS,
    STUDIO_METRICS_ACTIONS,
    TEAM_CREATE_ACTIONS,
    TEAM_JOB_CREATE_ACTIONS,
    TEAM_MANAGE_ACTIONS,
    team_container_logs_statement,
    team_execution_policy,
    team_images_statements,
)
from hyperpod_teams.policies.team_roles import (  # noqa: F401
    EKS_MEMBER_ACTIONS,
    ENDPOINT_ACTIONS,
    HYP_MONITORING_ACTIONS,
    OBSERVABILITY_ADDON,
    SCHEDULER_READ_ACTIONS,
    STUDIO_ADMIN_CREATE_ACTIONS,
    STUDIO_ADMIN_MANAGE_ACTIONS,
    STUDIO_READ_ACTIONS,
    TASK_GOVERNANCE_READ_ACTIONS,
    permission_set_policy_of,
    team_admins_studio_policy,
    team_endpoints_statement,
    team_permission_set_policy,
)
from hyperpod_teams.policies.usage_report import (  # noqa: F401
    XRAY_WRITE_ACTIONS,
    logs_key_statements,
    usage_aggregation_policy,
    usage_operator_policy,
)
from hyperpod_teams.policies.workload import (  # noqa: F401
    STUDIO_KEY_ACTIONS,
    TEAM_DATA_BUCKET_ACTIONS,
    TEAM_DATA_OBJECT_ACTIONS,
    team_data_statements,
    team_keys_statement,
    team_workload_policy,
)
