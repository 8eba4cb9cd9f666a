"""The observability add-on's roles: the collector that writes to the cluster's Amazon Managed Service
for Prometheus workspace and CloudWatch, and the Grafana workspace that reads them (awslabs/awsome-
distributed-training, terraform-modules/hyperpod-eks-tf/modules/observability/iam_roles.tf at
0edaf152), held to the one workspace.

Pure layer: no cdktf.
"""

from __future__ import annotations

from hyperpod_teams.policies.documents import METRIC_READ_ACTIONS, in_region_anywhere

PROMETHEUS_LIST_ACTIONS = ("aps:ListWorkspaces",)


LOG_GROUP_LIST_ACTIONS = ("logs:DescribeLogGroups",)


def observability_collector_policy(*, partition: str, account_id: str, region: str, workspace_arn: str) -> dict:
    """The observability add-on's collector (the reference's AddOn role, OnPol): write to the organization's
    Prometheus workspace (the reference: every workspace) and to HyperPod's cluster log groups."""
    logs = f"arn:{partition}:logs:{region}:{account_id}:log-group:/aws/sagemaker/Clusters/*"
    return {
        "Version": "2012-10-17",
        "Statement": [
            {"Sid": "WriteMetrics", "Effect": "Allow", "Action": ["aps:RemoteWrite"], "Resource": [workspace_arn]},
            {
                "Sid": "WriteClusterLogs",
                "Effect": "Allow",
                "Action": [
                    "logs:CreateLogGroup",
                    "logs:CreateLogStream",
                    "logs:DescribeLogStreams",
                    "logs:PutLogEvents",
                ],
                "Resource": [logs, f"{logs}:log-stream:*"],
            },
            in_region_anywhere("FindClusterLogGroups", LOG_GROUP_LIST_ACTIONS, region),
        ],
    }


def grafana_workspace_policy(*, partition: str, account_id: str, region: str, workspace_arn: str) -> dict:
    """What the Grafana workspace reads for its dashboards (the reference's GraPol): the organization's
    Prometheus workspace and CloudWatch metrics."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "ReadPrometheus",
                "Effect": "Allow",
                "Action": [
                    "aps:DescribeWorkspace",
                    "aps:GetLabels",
                    "aps:GetMetricMetadata",
                    "aps:GetSeries",
                    "aps:QueryMetrics",
                    "aps:ListRules",
                    "aps:ListAlertManagerAlerts",
                ],
                "Resource": [workspace_arn],
            },  # fmt: skip
            in_region_anywhere("ListPrometheus", PROMETHEUS_LIST_ACTIONS, region),
            in_region_anywhere("ReadCloudWatchMetrics", METRIC_READ_ACTIONS, region),
        ],
    }
