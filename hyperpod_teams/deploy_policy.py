"""The IAM policy to give the pipeline that deploys a spec's AWS stacks: what `terraform apply`,
`plan` and `destroy` of every AWS stack need, and nothing of another organization's.

Pure layer: policy documents only. `hyperpod-teams deploy-policy SPEC` prints them; docs/deploy.md
says how to attach them. The emulator tier applies every AWS stack as a role holding exactly these
documents, IAM evaluated on each request (tests/emulator/authorization.py), so a permission missing
here fails the tier's apply as it would fail a pipeline's.

Where an action takes a resource the stacks name, the statement names it (`<org>-*` roles,
buckets, aliases, domains; the EKS cluster of the spec; `/hyperpod-teams/` policies and
parameters); `*` only where IAM has no resource for the action (Service Authorization Reference:
`kms:CreateKey`, `iam:ListRoles`, the Cloud Control API, Identity Center's and Identity Store's
actions as the stacks call them, Cost Explorer's `ce:*CostCategory*`) or where the resource's
name is AWS's (a new SageMaker cluster's ID, a KMS key's ID). `iam:PassRole` is kept to the
organization's roles and the services that take them.

The pipeline deploys and nothing more (#57): it reads and writes no object but the lifecycle script
it uploads (no team's data), uses and administers only the KMS keys tagged as the organization's
(`aws:ResourceTag/hyperpod-teams:organization`, and `aws:RequestTag` when it creates one), attaches
only the AWS managed policies the stacks attach (`policies.STACKS_AWS_MANAGED_POLICIES`), and every
role it creates or changes carries the organization's permissions boundary (`role_boundary_policy`,
which an administrator creates beside these and the pipeline cannot change): no role it makes may
administer IAM, Identity Center, Organizations or a key's or bucket's policy.

Each document stays under IAM's 6,144-character managed-policy quota (white space not counted).
"""

from __future__ import annotations

import json
import re

from hyperpod_teams import addons, naming
from hyperpod_teams.policies import STACKS_AWS_MANAGED_POLICIES, aws_partition, managed_policy_arn
from hyperpod_teams.spec.fields import installs
from hyperpod_teams.spec.models import PlatformSpec

#: IAM's quota on a customer managed policy (IAM user guide, "IAM and AWS STS quotas").
MANAGED_POLICY_SIZE = 6144

#: Services the organization's roles are passed to: SageMaker (the HyperPod execution role, the
#: domains' execution roles, the autoscaling role CreateCluster names as ClusterRole, which
#: HyperPod's own principal assumes), EKS (the cluster role), EKS Pod Identity (workload roles).
PASSED_TO = [
    "sagemaker.amazonaws.com",
    "hyperpod.sagemaker.amazonaws.com",
    "eks.amazonaws.com",
    "pods.eks.amazonaws.com",
    "grafana.amazonaws.com",
]

IAM_ROLE_ACTIONS = [
    "iam:CreateRole",
    "iam:DeleteRole",
    "iam:GetRole",
    "iam:UpdateRole",
    "iam:UpdateRoleDescription",
    "iam:UpdateAssumeRolePolicy",
    "iam:TagRole",
    "iam:UntagRole",
    "iam:ListRoleTags",
    "iam:PutRolePolicy",
    "iam:GetRolePolicy",
    "iam:DeleteRolePolicy",
    "iam:ListRolePolicies",
    "iam:ListAttachedRolePolicies",
    "iam:ListInstanceProfilesForRole",
]
IAM_POLICY_ACTIONS = [
    "iam:CreatePolicy",
    "iam:DeletePolicy",
    "iam:GetPolicy",
    "iam:GetPolicyVersion",
    "iam:ListPolicyVersions",
    "iam:CreatePolicyVersion",
    "iam:DeletePolicyVersion",
    "iam:TagPolicy",
    "iam:UntagPolicy",
    "iam:ListPolicyTags",
]
S3_BUCKET_ACTIONS = [
    "s3:CreateBucket",
    "s3:DeleteBucket",
    "s3:ListBucket",
    "s3:ListBucketVersions",
    "s3:GetBucket*",
    "s3:PutBucketPolicy",
    "s3:DeleteBucketPolicy",
    "s3:PutBucketTagging",
    "s3:PutBucketVersioning",
    "s3:PutBucketPublicAccessBlock",
    "s3:PutBucketOwnershipControls",
    "s3:PutEncryptionConfiguration",
    "s3:GetEncryptionConfiguration",
    "s3:PutLifecycleConfiguration",
    "s3:GetLifecycleConfiguration",
    "s3:GetAccelerateConfiguration",
    "s3:GetReplicationConfiguration",
]
S3_OBJECT_ACTIONS = ["s3:PutObject", "s3:GetObject", "s3:GetObjectTagging", "s3:DeleteObject", "s3:DeleteObjectVersion"]
KMS_KEY_ACTIONS = [
    "kms:DescribeKey",
    "kms:GetKeyPolicy",
    "kms:PutKeyPolicy",
    "kms:GetKeyRotationStatus",
    "kms:EnableKeyRotation",
    "kms:ListResourceTags",
    "kms:TagResource",
    "kms:UntagResource",
    "kms:ScheduleKeyDeletion",
    "kms:CreateGrant",
    "kms:Decrypt",
    "kms:GenerateDataKey",
]
#: Alias actions are authorized on the alias and on the key it names (KMS developer guide, "Controlling
#: access to aliases"): the key by TheOrganizationsKeys, the alias by its name.
KMS_ALIAS_ACTIONS = ["kms:CreateAlias", "kms:DeleteAlias", "kms:UpdateAlias"]
#: Role actions IAM lets a policy hold to the role's permissions boundary (Service Authorization
#: Reference, IAM: condition key iam:PermissionsBoundary).
BOUNDED_ROLE_ACTIONS = ["iam:CreateRole", "iam:PutRolePolicy", "iam:DeleteRolePolicy"]
EKS_ACTIONS = [
    "eks:DescribeCluster",
    "eks:DeleteCluster",
    "eks:UpdateClusterConfig",
    "eks:UpdateClusterVersion",
    "eks:DescribeUpdate",
    "eks:TagResource",
    "eks:UntagResource",
    "eks:ListTagsForResource",
    "eks:CreateAccessEntry",
    "eks:DescribeAccessEntry",
    "eks:UpdateAccessEntry",
    "eks:DeleteAccessEntry",
    "eks:ListAccessEntries",
    "eks:AssociateAccessPolicy",
    "eks:DisassociateAccessPolicy",
    "eks:ListAssociatedAccessPolicies",
    "eks:CreateAddon",
    "eks:DescribeAddon",
    "eks:UpdateAddon",
    "eks:DeleteAddon",
    "eks:ListAddons",
    "eks:CreatePodIdentityAssociation",
    "eks:DescribePodIdentityAssociation",
    "eks:UpdatePodIdentityAssociation",
    "eks:DeletePodIdentityAssociation",
    "eks:ListPodIdentityAssociations",
]
OIDC_PROVIDER_ACTIONS = [
    "iam:CreateOpenIDConnectProvider",
    "iam:GetOpenIDConnectProvider",
    "iam:DeleteOpenIDConnectProvider",
    "iam:TagOpenIDConnectProvider",
    "iam:UntagOpenIDConnectProvider",
    "iam:UpdateOpenIDConnectProviderThumbprint",
    "iam:AddClientIDToOpenIDConnectProvider",
    "iam:RemoveClientIDFromOpenIDConnectProvider",
]
PROMETHEUS_ACTIONS = [
    "aps:CreateWorkspace",
    "aps:DescribeWorkspace",
    "aps:DescribeWorkspaceConfiguration",
    "aps:DescribeLoggingConfiguration",
    "aps:UpdateWorkspaceAlias",
    "aps:DeleteWorkspace",
    "aps:TagResource",
    "aps:UntagResource",
    "aps:ListTagsForResource",
]
GRAFANA_ACTIONS = [
    "grafana:CreateWorkspace",
    "grafana:DescribeWorkspace",
    "grafana:UpdateWorkspace",
    "grafana:DeleteWorkspace",
    "grafana:DescribeWorkspaceAuthentication",
    "grafana:UpdateWorkspaceAuthentication",
    "grafana:DescribeWorkspaceConfiguration",
    "grafana:UpdateWorkspaceConfiguration",
    "grafana:ListPermissions",
    "grafana:UpdatePermissions",
    "grafana:TagResource",
    "grafana:UntagResource",
    "grafana:ListTagsForResource",
]
#: Amazon Managed Grafana's user guide, "Permissions required for IAM Identity Center" (no resource type).
GRAFANA_SSO_ACTIONS = [
    "sso:CreateManagedApplicationInstance",
    "sso:DeleteManagedApplicationInstance",
    "sso:DescribeRegisteredRegions",
    "sso:GetSharedSsoConfiguration",
    "organizations:DescribeOrganization",
]
#: Actions IAM gives no resource type, or whose resource the stacks cannot name before AWS does.
UNSCOPED_ACTIONS = {
    "ReadAccountAndRegion": [
        "sts:GetCallerIdentity",
        "iam:ListRoles",
        # Deleting a security group, the provider first lists the network interfaces that use it.
        "ec2:DescribeNetworkInterfaces",
        "ec2:DescribeSecurityGroupRules",
        "ec2:DescribeSecurityGroups",
        "ec2:DescribeSubnets",
        "ec2:DescribeTags",
        "ec2:DescribeVpcs",
        "logs:DescribeLogGroups",
    ],
    "CreateWhatAwsNames": [
        "kms:ListAliases",
        "eks:CreateCluster",
        "eks:DescribeAddonVersions",
        "ssm:DescribeParameters",
    ],
    "CloudControlAndTypeSchemas": [
        "cloudformation:CreateResource",
        "cloudformation:GetResource",
        "cloudformation:UpdateResource",
        "cloudformation:DeleteResource",
        "cloudformation:GetResourceRequestStatus",
        "cloudformation:ListResources",
        "cloudformation:DescribeType",
    ],
    "IdentityCenter": [
        "sso:CreatePermissionSet",
        "sso:DescribePermissionSet",
        "sso:UpdatePermissionSet",
        "sso:DeletePermissionSet",
        "sso:ListPermissionSets",
        "sso:ProvisionPermissionSet",
        "sso:DescribePermissionSetProvisioningStatus",
        "sso:PutInlinePolicyToPermissionSet",
        "sso:GetInlinePolicyForPermissionSet",
        "sso:DeleteInlinePolicyFromPermissionSet",
        "sso:AttachCustomerManagedPolicyReferenceToPermissionSet",
        "sso:DetachCustomerManagedPolicyReferenceFromPermissionSet",
        "sso:ListCustomerManagedPolicyReferencesInPermissionSet",
        "sso:CreateAccountAssignment",
        "sso:DeleteAccountAssignment",
        "sso:DescribeAccountAssignmentCreationStatus",
        "sso:DescribeAccountAssignmentDeletionStatus",
        "sso:ListAccountAssignments",
        "sso:CreateApplicationAssignment",
        "sso:DescribeApplicationAssignment",
        "sso:DeleteApplicationAssignment",
        "sso:TagResource",
        "sso:UntagResource",
        "sso:ListTagsForResource",
        "sso:ListInstances",
        "identitystore:GetGroupId",
        "identitystore:DescribeGroup",
        "identitystore:CreateGroup",
        "identitystore:DeleteGroup",
        "identitystore:UpdateGroup",
        "identitystore:ListGroups",
    ],
    "CostCategoriesAndTags": [
        "ce:CreateCostCategoryDefinition",
        "ce:DescribeCostCategoryDefinition",
        "ce:UpdateCostCategoryDefinition",
        "ce:DeleteCostCategoryDefinition",
        "ce:ListCostCategoryDefinitions",
        "ce:ListCostAllocationTags",
        "ce:UpdateCostAllocationTagsStatus",
        "ce:TagResource",
        "ce:UntagResource",
        "ce:ListTagsForResource",
    ],
    # SageMaker through Cloud Control (the HyperPod cluster, its scheduler config and quotas: the
    # handlers' permissions in each type's registry schema) and the Studio domains: a new
    # cluster's, config's and quota's ARN ends in an ID AWS picks, and SageMaker's list actions
    # have no resource type.
    "SageMaker": [
        "sagemaker:CreateCluster",
        "sagemaker:DescribeCluster",
        "sagemaker:UpdateCluster",
        "sagemaker:DeleteCluster",
        "sagemaker:ListClusters",
        "sagemaker:ListClusterNodes",
        "sagemaker:CreateClusterSchedulerConfig",
        "sagemaker:DescribeClusterSchedulerConfig",
        "sagemaker:UpdateClusterSchedulerConfig",
        "sagemaker:DeleteClusterSchedulerConfig",
        "sagemaker:ListClusterSchedulerConfigs",
        "sagemaker:CreateComputeQuota",
        "sagemaker:DescribeComputeQuota",
        "sagemaker:UpdateComputeQuota",
        "sagemaker:DeleteComputeQuota",
        "sagemaker:ListComputeQuotas",
        "sagemaker:CreateDomain",
        "sagemaker:DescribeDomain",
        "sagemaker:UpdateDomain",
        "sagemaker:DeleteDomain",
        "sagemaker:ListDomains",
        "sagemaker:AddTags",
        "sagemaker:DeleteTags",
        "sagemaker:ListTags",
    ],
}


def _size(document: dict) -> int:
    return len(re.sub(r"\s", "", json.dumps(document)))


def _role_statements(
    sids: tuple[str, str, str], roles: str | list[str], organization, policy_arns: str | list[str]
) -> list[dict]:
    """What the pipeline may do to `roles`: manage them; create them, write their inline policies and
    set their boundary only with the organization's boundary on them (condition key
    iam:PermissionsBoundary), so no role the pipeline makes exceeds it; attach `policy_arns` only, to a
    role within its boundary."""
    bounded = {"ArnEquals": {"iam:PermissionsBoundary": naming.role_boundary_policy_arn(organization)}}
    manage, create, attach = sids
    return [
        {
            "Sid": manage,
            "Effect": "Allow",
            "Action": [a for a in IAM_ROLE_ACTIONS if a not in BOUNDED_ROLE_ACTIONS],
            "Resource": roles,
        },
        {
            "Sid": create,
            "Effect": "Allow",
            "Action": [*BOUNDED_ROLE_ACTIONS, "iam:PutRolePermissionsBoundary"],
            "Resource": roles,
            "Condition": bounded,
        },
        {
            "Sid": attach,
            "Effect": "Allow",
            "Action": ["iam:AttachRolePolicy", "iam:DetachRolePolicy"],
            "Resource": roles,
            "Condition": {"ArnLike": {"iam:PolicyARN": policy_arns}, **bounded},
        },
    ]


def deploy_policy_statements(spec: PlatformSpec) -> list[dict]:
    """Every statement the pipeline needs, scoped to the spec's organization."""
    org, region, account = spec.organization.name, spec.organization.region, spec.organization.account_id
    partition = aws_partition(region)
    iam = f"arn:{partition}:iam::{account}"
    eks_cluster = naming.shared_eks_cluster_name(spec.cluster)
    eks = f"arn:{partition}:eks:{region}:{account}"
    ssm = f"arn:{partition}:ssm:{region}:{account}"
    roles = [f"{iam}:role/{org}-*", f"{iam}:role/*/{org}-*"]
    lifecycle_bucket = (
        naming.lifecycle_bucket_name(org, spec.cluster.name, account, region)
        if spec.cluster.lifecycle_scripts_s3_uri is None and spec.cluster.existing_hyperpod_cluster_name is None
        else None
    )
    statements: list[dict] = [
        # IAM authorizes Attach/DetachRolePolicy on the role, the policy in `iam:PolicyARN` (Service
        # Authorization Reference, IAM condition keys): the AWS managed policies the stacks attach and
        # the organization's own only.
        *_role_statements(
            ("TheOrganizationsRoles", "TheOrganizationsRolesWithinTheirBoundary", "AttachTheStacksPolicies"),
            roles,
            spec.organization,
            [
                *(managed_policy_arn(name, partition) for name in STACKS_AWS_MANAGED_POLICIES),
                f"{iam}:policy/hyperpod-teams/{org}-*",
            ],
        ),
        {
            "Sid": "PassTheOrganizationsRolesToTheirServices",
            "Effect": "Allow",
            "Action": "iam:PassRole",
            "Resource": [f"{iam}:role/{org}-*", f"{iam}:role/*/{org}-*"],
            "Condition": {"StringEquals": {"iam:PassedToService": PASSED_TO}},
        },
        {
            "Sid": "TheOrganizationsPolicies",
            "Effect": "Allow",
            "Action": IAM_POLICY_ACTIONS,
            "Resource": [f"{iam}:policy/hyperpod-teams/{org}-*", f"{iam}:policy/{org}-*"],
        },
        {
            "Sid": "ReadTheRolesIdentityCenterMakes",
            "Effect": "Allow",
            "Action": ["iam:GetRole", "iam:ListRoleTags"],
            "Resource": f"{iam}:role/aws-reserved/sso.amazonaws.com/*",
        },
        {
            "Sid": "TheOrganizationsBuckets",
            "Effect": "Allow",
            "Action": S3_BUCKET_ACTIONS,
            "Resource": f"arn:{partition}:s3:::{org}-*",
        },
        *(
            [
                {
                    # The default lifecycle script the cluster stack uploads; no other object, no team's data.
                    "Sid": "TheLifecycleScript",
                    "Effect": "Allow",
                    "Action": S3_OBJECT_ACTIONS,
                    "Resource": f"arn:{partition}:s3:::{lifecycle_bucket}/*",
                }
            ]
            if lifecycle_bucket
            else []
        ),
        {
            # Keys the stacks made: tagged as the organization's when created (the provider's default tags).
            "Sid": "TheOrganizationsKeys",
            "Effect": "Allow",
            "Action": KMS_KEY_ACTIONS,
            "Resource": f"arn:{partition}:kms:{region}:{account}:key/*",
            "Condition": {"StringEquals": {f"aws:ResourceTag/{naming.TAG_ORGANIZATION}": org}},
        },
        {
            "Sid": "CreateKeysTaggedAsTheOrganizations",
            "Effect": "Allow",
            "Action": ["kms:CreateKey", "kms:TagResource"],
            "Resource": "*",
            "Condition": {"StringEquals": {f"aws:RequestTag/{naming.TAG_ORGANIZATION}": org}},
        },
        {
            # An alias action is authorized on the alias (no tags: IfExists) and on its key (the tag).
            "Sid": "TheOrganizationsAliases",
            "Effect": "Allow",
            "Action": KMS_ALIAS_ACTIONS,
            "Resource": [
                f"arn:{partition}:kms:{region}:{account}:alias/{org}-*",
                f"arn:{partition}:kms:{region}:{account}:key/*",
            ],
            "Condition": {"StringEqualsIfExists": {f"aws:ResourceTag/{naming.TAG_ORGANIZATION}": org}},
        },
        {
            "Sid": "TheSharedEksCluster",
            "Effect": "Allow",
            "Action": EKS_ACTIONS,
            "Resource": [
                f"{eks}:cluster/{eks_cluster}",
                f"{eks}:access-entry/{eks_cluster}/*",
                f"{eks}:addon/{eks_cluster}/*",
                f"{eks}:podidentityassociation/{eks_cluster}/*",
            ],
        },
        {
            "Sid": "TheOrganizationsParameters",
            "Effect": "Allow",
            "Action": [
                "ssm:PutParameter",
                "ssm:GetParameter",
                "ssm:GetParameters",
                "ssm:GetParametersByPath",
                "ssm:DeleteParameter",
                "ssm:AddTagsToResource",
                "ssm:RemoveTagsFromResource",
                "ssm:ListTagsForResource",
            ],
            "Resource": [f"{ssm}:parameter/hyperpod-teams/{org}", f"{ssm}:parameter/hyperpod-teams/{org}/*"],
        },
        {
            "Sid": "TheOrganizationsBudgets",
            "Effect": "Allow",
            "Action": [
                "budgets:ModifyBudget",
                "budgets:ViewBudget",
                "budgets:TagResource",
                "budgets:UntagResource",
                "budgets:ListTagsForResource",
            ],
            "Resource": f"arn:{partition}:budgets::{account}:budget/{org}-*",
        },
    ]
    if any(team.studio.enabled for team in spec.teams):
        statements += studio_security_group_statements(spec)
    if spec.cost.usage_reports.enabled:
        statements += usage_report_statements(spec)
    statements += add_on_statements(spec)
    for sid, actions in UNSCOPED_ACTIONS.items():
        statements.append({"Sid": sid, "Effect": "Allow", "Action": actions, "Resource": "*"})
    return statements


#: Changing a security group's rules (Service Authorization Reference, Amazon EC2: resource type
#: security-group, condition key aws:ResourceTag).
SECURITY_GROUP_RULE_ACTIONS = [
    "ec2:AuthorizeSecurityGroupEgress",
    "ec2:AuthorizeSecurityGroupIngress",
    "ec2:RevokeSecurityGroupEgress",
    "ec2:RevokeSecurityGroupIngress",
    "ec2:ModifySecurityGroupRules",
    "ec2:UpdateSecurityGroupRuleDescriptionsEgress",
    "ec2:UpdateSecurityGroupRuleDescriptionsIngress",
]


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
    constructs/inference.py, observability.py): the inference operator's role, whose name the add-on
    wants to begin with SageMakerHyperPodInference; the EKS cluster's OIDC provider; the Prometheus
    and Grafana workspaces (Amazon Managed Grafana's user guide, "Permissions required for IAM Identity
    Center": a workspace signed in to through Identity Center is an application of it). Spaces adds
    roles, add-ons and associations the statements above cover."""
    cluster, org = spec.cluster, spec.organization
    partition = aws_partition(org.region)
    iam = f"arn:{partition}:iam::{org.account_id}"
    statements: list[dict] = []
    if cluster.inference is not None and installs(cluster.inference):
        operator_role = f"{iam}:role/{naming.inference_role_name(org.name, 'operator')}"
        statements += _role_statements(
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


def deploy_policies(spec: PlatformSpec) -> dict[str, dict]:
    """The statements as customer managed policies, each under IAM's size quota: policy name ->
    document (`<org>-deploy-1`, `-2`, ...)."""
    documents: list[dict] = []
    for statement in deploy_policy_statements(spec):
        if (
            documents
            and _size({**documents[-1], "Statement": [*documents[-1]["Statement"], statement]}) <= MANAGED_POLICY_SIZE
        ):
            documents[-1]["Statement"].append(statement)
        else:
            documents.append({"Version": "2012-10-17", "Statement": [statement]})
    return {naming.deploy_policy_name(spec.organization.name, index): doc for index, doc in enumerate(documents, 1)}


#: What no role the stacks make may do, whatever its own policies say: administer identities and
#: policies (IAM, Identity Center, Identity Store, Organizations), change a key's or a bucket's policy,
#: or stop the account's audit trail. Passing roles, creating AWS's service-linked roles (the load
#: balancer controller's) and every action of the stacks' roles and the AWS managed policies they
#: attach stay allowed.
BOUNDARY_DENIED_ACTIONS = [
    "iam:AddUserToGroup",
    "iam:AttachGroupPolicy",
    "iam:AttachRolePolicy",
    "iam:AttachUserPolicy",
    "iam:CreateAccessKey",
    "iam:CreateGroup",
    "iam:CreateLoginProfile",
    "iam:CreateOpenIDConnectProvider",
    "iam:CreatePolicy",
    "iam:CreatePolicyVersion",
    "iam:CreateRole",
    "iam:CreateSAMLProvider",
    "iam:CreateUser",
    "iam:DeleteRolePermissionsBoundary",
    "iam:DeleteUserPermissionsBoundary",
    "iam:PutGroupPolicy",
    "iam:PutRolePermissionsBoundary",
    "iam:PutRolePolicy",
    "iam:PutUserPermissionsBoundary",
    "iam:PutUserPolicy",
    "iam:SetDefaultPolicyVersion",
    "iam:UpdateAssumeRolePolicy",
    "iam:UpdateLoginProfile",
    "identitystore:*",
    "organizations:*",
    "account:*",
    "sso:*",
    "sso-directory:*",
    "kms:PutKeyPolicy",
    "kms:ScheduleKeyDeletion",
    "s3:PutBucketPolicy",
    "s3:DeleteBucketPolicy",
    "s3:PutBucketAcl",
    "s3:PutBucketPublicAccessBlock",
    "cloudtrail:DeleteTrail",
    "cloudtrail:StopLogging",
    "cloudtrail:UpdateTrail",
]


def role_boundary_policy(spec: PlatformSpec) -> dict[str, dict]:
    """The permissions boundary of every role the stacks make (`naming.role_boundary_policy_arn`):
    policy name -> document, for an administrator to create once beside the deploy policies, at the
    path `/hyperpod-teams-boundary/`, which the pipeline's grants do not reach. Not attached to the
    pipeline's role."""
    document = {
        "Version": "2012-10-17",
        "Statement": [
            {"Sid": "WhatTheStacksRolesMayDo", "Effect": "Allow", "Action": "*", "Resource": "*"},
            {"Sid": "NoAdministration", "Effect": "Deny", "Action": BOUNDARY_DENIED_ACTIONS, "Resource": "*"},
        ],
    }
    return {naming.role_boundary_policy_name(spec.organization.name): document}
