"""The actions the deploying pipeline's policies grant, service by service, and those the
organization's permissions boundary denies every role the stacks make. `deploy` joins them into
statements.

Pure layer: no cdktf.
"""

from __future__ import annotations

from hyperpod_teams import naming

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


def role_statements(
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
