"""What the deploying pipeline needs for the parts a spec may switch on: the Studio domains' security
groups, the EKS add-ons (inference, Spaces, observability) and HyperPod usage reporting.

Pure layer: no cdktf.
"""

from __future__ import annotations

from hyperpod_teams import addons, naming
from hyperpod_teams.policies.deploy_actions import (
    GRAFANA_ACTIONS,
    GRAFANA_SSO_ACTIONS,
    OIDC_PROVIDER_ACTIONS,
    PROMETHEUS_ACTIONS,
    SECURITY_GROUP_RULE_ACTIONS,
    role_statements,
)
from hyperpod_teams.policies.documents import aws_partition, managed_policy_arn
from hyperpod_teams.spec.fields import installs
from hyperpod_teams.spec.models import PlatformSpec


def studio_security_group_statements(spec: PlatformSpec) -> list[dict]:
    """The teams' Studio security groups (constructs.team.TeamStudioSecurityGroup): created tagged as
    the organization's in the cluster's VPC (or an adopted domain's), changed and deleted only when so
    tagged; the one rule on the cluster's first security group (HTTPS from a team's apps), and nothing
    else of that group."""
    org, region, account = spec.organization.name, spec.organization.region, spec.organization.account_id
    ec2 = f"arn:{aws_partition(region)}:ec2:{region}:{account}"
    ours = {f"aws:ResourceTag/{naming.TAG_ORGANIZATION}": org}
    adopted = any(team.studio.existing_domain_id for team in spec.teams if team.studio.enabled)
    vpcs = [f"{ec2}:vpc/*"] if adopted else [f"{ec2}:vpc/{spec.cluster.network.vpc_id}"]
    created_with = ["CreateSecurityGroup", "AuthorizeSecurityGroupEgress", "AuthorizeSecurityGroupIngress"]
    return [
        {
            # aws:RequestTag is the request's: it holds for the group and for its VPC alike.
            "Sid": "StudioSecurityGroupsCreatedAsTheOrganizations",
            "Effect": "Allow",
            "Action": ["ec2:CreateSecurityGroup"],
            "Resource": [f"{ec2}:security-group/*", *vpcs],
            "Condition": {"StringEquals": {f"aws:RequestTag/{naming.TAG_ORGANIZATION}": org}},
        },
        {
            "Sid": "TagWhatTheStudioSecurityGroupsCreate",
            "Effect": "Allow",
            "Action": ["ec2:CreateTags"],
            "Resource": [f"{ec2}:security-group/*", f"{ec2}:security-group-rule/*"],
            "Condition": {"StringEquals": {"ec2:CreateAction": created_with}},
        },
        {
            "Sid": "TheOrganizationsSecurityGroupsAndRules",
            "Effect": "Allow",
            "Action": ["ec2:DeleteSecurityGroup", "ec2:CreateTags", "ec2:DeleteTags", *SECURITY_GROUP_RULE_ACTIONS],
            "Resource": [f"{ec2}:security-group/*", f"{ec2}:security-group-rule/*"],
            "Condition": {"StringEquals": ours},
        },
        {
            "Sid": "HttpsFromStudioToTheEksApi",
            "Effect": "Allow",
            "Action": ["ec2:AuthorizeSecurityGroupIngress", "ec2:RevokeSecurityGroupIngress"],
            "Resource": f"{ec2}:security-group/{spec.cluster.network.security_group_ids[0]}",
        },
    ]


def add_on_statements(spec: PlatformSpec) -> list[dict]:
    """What cluster.inference and cluster.observability add to the cluster stack (hyperpod_teams/
    constructs/addons/inference.py, observability.py): the inference operator's role, whose name the add-on
    wants to begin with SageMakerHyperPodInference; the EKS cluster's OIDC provider; the Prometheus
    and Grafana workspaces (Amazon Managed Grafana's user guide, "Permissions required for IAM Identity
    Center": a workspace signed in to through Identity Center is an application of it). Spaces adds
    roles, add-ons and associations the statements above cover."""
    cluster, org = spec.cluster, spec.organization
    partition = aws_partition(org.region)
    iam = f"arn:{partition}:iam::{org.account_id}"
    statements: list[dict] = []
    if cluster.inference is not None and installs(cluster.inference):
        operator_role = f"{iam}:role/{naming.inference_role_name(org.name, 'operator', cluster=spec.cluster_qualifier)}"
        statements += role_statements(
            (
                "TheInferenceOperatorsRole",
                "TheInferenceOperatorsRoleWithinItsBoundary",
                "TheInferenceOperatorsPolicies",
            ),
            operator_role,
            org,
            managed_policy_arn(addons.INFERENCE_MANAGED_POLICY, partition),
        )
        if cluster.inference.creates_oidc_provider:
            statements.append(
                {
                    "Sid": "TheEksClustersOidcProvider",
                    "Effect": "Allow",
                    "Action": OIDC_PROVIDER_ACTIONS,
                    "Resource": f"{iam}:oidc-provider/oidc.eks.{org.region}.amazonaws.com/id/*",
                }
            )
    observability = cluster.observability
    if observability is not None and installs(observability):
        statements.append(
            {
                "Sid": "ThePrometheusWorkspace",
                "Effect": "Allow",
                "Action": PROMETHEUS_ACTIONS,
                "Resource": f"arn:{partition}:aps:{org.region}:{org.account_id}:workspace/*",
            }
        )
        if observability.grafana:
            statements.append(
                {
                    "Sid": "TheGrafanaWorkspace",
                    "Effect": "Allow",
                    "Action": GRAFANA_ACTIONS,
                    "Resource": f"arn:{partition}:grafana:{org.region}:{org.account_id}:/workspaces/*",
                }
            )
            statements.append(
                {
                    "Sid": "GrafanaAsAnIdentityCenterApplication",
                    "Effect": "Allow",
                    "Action": GRAFANA_SSO_ACTIONS,
                    "Resource": "*",
                }
            )
    return statements


def usage_report_statements(spec: PlatformSpec) -> list[dict]:
    """The usage-report stacks' resources (hyperpod_teams.usage_report names them): the
    aggregation function, its log group, schedule and dead-letter queue, the Glue database and
    tables, the Athena workgroup."""
    org, region, account = spec.organization.name, spec.organization.region, spec.organization.account_id
    partition = aws_partition(region)
    at = f"{region}:{account}"
    glue_database = org.replace("-", "_")
    return [
        {
            "Sid": "UsageReportFunction",
            "Effect": "Allow",
            "Action": [
                "lambda:CreateFunction",
                "lambda:DeleteFunction",
                "lambda:GetFunction",
                "lambda:GetFunctionConfiguration",
                "lambda:GetFunctionCodeSigningConfig",
                "lambda:UpdateFunctionCode",
                "lambda:UpdateFunctionConfiguration",
                "lambda:ListVersionsByFunction",
                "lambda:PutFunctionConcurrency",
                "lambda:DeleteFunctionConcurrency",
                "lambda:AddPermission",
                "lambda:RemovePermission",
                "lambda:GetPolicy",
                "lambda:TagResource",
                "lambda:UntagResource",
                "lambda:ListTags",
            ],
            "Resource": f"arn:{partition}:lambda:{at}:function:{org}-*",
        },
        {
            "Sid": "UsageReportLogsScheduleAndQueue",
            "Effect": "Allow",
            "Action": [
                "logs:CreateLogGroup",
                "logs:DeleteLogGroup",
                "logs:PutRetentionPolicy",
                "logs:DeleteRetentionPolicy",
                "logs:AssociateKmsKey",
                "logs:TagResource",
                "logs:UntagResource",
                "logs:ListTagsForResource",
                "events:PutRule",
                "events:DescribeRule",
                "events:DeleteRule",
                "events:PutTargets",
                "events:RemoveTargets",
                "events:ListTargetsByRule",
                "events:TagResource",
                "events:UntagResource",
                "events:ListTagsForResource",
                "sqs:CreateQueue",
                "sqs:DeleteQueue",
                "sqs:GetQueueAttributes",
                "sqs:SetQueueAttributes",
                "sqs:GetQueueUrl",
                "sqs:ListQueueTags",
                "sqs:TagQueue",
                "sqs:UntagQueue",
            ],
            "Resource": [
                f"arn:{partition}:logs:{at}:log-group:/aws/lambda/{org}-*",
                f"arn:{partition}:events:{at}:rule/{org}-*",
                f"arn:{partition}:sqs:{at}:{org}-*",
            ],
        },
        {
            "Sid": "UsageReportCatalogAndQueries",
            "Effect": "Allow",
            "Action": [
                "glue:CreateDatabase",
                "glue:GetDatabase",
                "glue:UpdateDatabase",
                "glue:DeleteDatabase",
                "glue:CreateTable",
                "glue:GetTable",
                "glue:GetPartitionIndexes",
                "glue:UpdateTable",
                "glue:DeleteTable",
                "glue:GetTags",
                "glue:TagResource",
                "glue:UntagResource",
                "athena:CreateWorkGroup",
                "athena:GetWorkGroup",
                "athena:UpdateWorkGroup",
                "athena:DeleteWorkGroup",
                "athena:TagResource",
                "athena:UntagResource",
                "athena:ListTagsForResource",
            ],
            "Resource": [
                f"arn:{partition}:glue:{at}:catalog",
                f"arn:{partition}:glue:{at}:database/{glue_database}_*",
                f"arn:{partition}:glue:{at}:table/{glue_database}_*/*",
                f"arn:{partition}:athena:{at}:workgroup/{org}-*",
            ],
        },
    ]
