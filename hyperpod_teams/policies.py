"""IAM policy documents as plain dicts: a reviewer reads here what each role receives.

Pure layer: no cdktf. Constructs serialize these with `policy_json`.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from hyperpod_teams import addons, naming

if TYPE_CHECKING:  # pragma: no cover
    from hyperpod_teams.spec.models import PlatformSpec, Team


def policy_json(document: dict) -> str:
    """Stable, compact JSON: the same document always renders to the same bytes."""
    return json.dumps(document, sort_keys=True, separators=(",", ":"))


def service_trust_policy(service: str) -> dict:
    """Trust policy that lets one AWS service assume the role, and nothing else."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"Service": service},
                "Action": "sts:AssumeRole",
            }
        ],
    }


def eks_cluster_trust_policy() -> dict:
    # EKS needs TagSession too since it tags the sessions it opens for the control plane.
    policy = service_trust_policy("eks.amazonaws.com")
    policy["Statement"][0]["Action"] = ["sts:AssumeRole", "sts:TagSession"]
    return policy


#: AWS-managed policies the EKS cluster role needs (EKS user guide, "Amazon EKS cluster IAM role").
EKS_CLUSTER_MANAGED_POLICIES = ("AmazonEKSClusterPolicy",)


def aws_partition(region: str) -> str:
    """The ARN partition of a region: aws, aws-us-gov or aws-cn."""
    if region.startswith("us-gov-"):
        return "aws-us-gov"
    if region.startswith("cn-"):
        return "aws-cn"
    return "aws"


def eks_arn(partition: str, region: str, account_id: str) -> str:
    """`arn:<partition>:eks:<region>:<account>`, which EKS resource ARNs continue with
    `:cluster/<name>`, `:addon/<cluster>/...`, `:access-entry/<cluster>/...`."""
    return f"arn:{partition}:eks:{region}:{account_id}"


def managed_policy_arn(name: str, partition: str = "aws") -> str:
    return f"arn:{partition}:iam::aws:policy/{name}"


#: AWS-managed policy of HyperPod instance groups (SageMaker developer guide, "IAM role for
#: SageMaker HyperPod").
HYPERPOD_INSTANCE_MANAGED_POLICIES = ("AmazonSageMakerClusterInstanceRolePolicy",)

#: Every AWS managed policy a stack attaches to one of its roles: the deploying pipeline may attach
#: these and no other (deploy_policy; a test holds every synthesized attachment to the list).
STACKS_AWS_MANAGED_POLICIES = (
    *EKS_CLUSTER_MANAGED_POLICIES,
    *HYPERPOD_INSTANCE_MANAGED_POLICIES,
    addons.CLOUDWATCH_AGENT_MANAGED_POLICY,
    addons.TRAINING_OPERATOR_MANAGED_POLICY,
    addons.INFERENCE_MANAGED_POLICY,
    addons.GATED_MODEL_MANAGED_POLICY,
    addons.SPACES_CONTROLLER_MANAGED_POLICY,
    addons.EBS_CSI_MANAGED_POLICY,
)


def hyperpod_execution_trust_policy() -> dict:
    return service_trust_policy("sagemaker.amazonaws.com")


#: HyperPod's Karpenter autoscaling: the role HyperPod assumes (CreateCluster `ClusterRole`) and
#: what it may do. Source: SageMaker developer guide, "Create an IAM role for HyperPod autoscaling
#: with Karpenter": trusted by hyperpod.sagemaker.amazonaws.com, BatchAddClusterNodes and
#: BatchDeleteClusterNodes on clusters (held here to the organization's account and region), and
#: KMS grants through SageMaker for encrypted node volumes.
AUTOSCALING_SERVICE = "hyperpod.sagemaker.amazonaws.com"
AUTOSCALING_NODE_ACTIONS = ("sagemaker:BatchAddClusterNodes", "sagemaker:BatchDeleteClusterNodes")


def hyperpod_autoscaling_trust_policy() -> dict:
    return service_trust_policy(AUTOSCALING_SERVICE)


def hyperpod_autoscaling_policy(*, partition: str, region: str, account_id: str, kms_keys: list[str]) -> dict:
    statements: list[dict] = [
        {
            "Sid": "AddAndRemoveClusterNodes",
            "Effect": "Allow",
            "Action": list(AUTOSCALING_NODE_ACTIONS),
            "Resource": [f"arn:{partition}:sagemaker:{region}:{account_id}:cluster/*"],
        }
    ]
    if kms_keys:
        # The guide's one statement holds DescribeKey to kms:GrantIsForAWSResource, a key only
        # CreateGrant requests carry (parliament: UNKNOWN_CONDITION_FOR_ACTION), which would deny
        # DescribeKey: two statements, each with the keys its action has.
        via = {"kms:ViaService": f"sagemaker.{region}.amazonaws.com"}
        statements += [
            {
                "Sid": "GrantNewNodesVolumesTheirKey",
                "Effect": "Allow",
                "Action": ["kms:CreateGrant"],
                "Resource": sorted(set(kms_keys)),
                "Condition": {"StringLike": via, "Bool": {"kms:GrantIsForAWSResource": "true"}},
            },
            {
                "Sid": "DescribeTheNodesVolumesKey",
                "Effect": "Allow",
                "Action": ["kms:DescribeKey"],
                "Resource": sorted(set(kms_keys)),
                "Condition": {"StringLike": via},
            },
        ]
    return {"Version": "2012-10-17", "Statement": statements}


#: What nodes of an EKS-orchestrated HyperPod cluster need beyond the managed instance policy:
#: the VPC CNI manages the nodes' network interfaces, the kubelet pulls images from ECR, and the
#: EKS Pod Identity agent exchanges tokens. Sources: the SageMaker developer guide, "IAM role for
#: SageMaker HyperPod" (EKS-orchestrated clusters), and the reference module in
#: awslabs/awsome-distributed-training (terraform-modules/hyperpod-eks-tf/modules/sagemaker_iam_role),
#: which grant these same actions on `*`; here each is scoped as tightly as the action allows.
NODE_NETWORK_INTERFACE_ACTIONS = (
    "ec2:AssignPrivateIpAddresses",
    "ec2:CreateNetworkInterfacePermission",
    "ec2:DeleteNetworkInterface",
    "ec2:ModifyNetworkInterfaceAttribute",
    "ec2:UnassignPrivateIpAddresses",
)
#: Actions without resource-level permissions (Service Authorization Reference): `*`, held to the region.
NODE_UNSCOPED_ACTIONS = (
    "ec2:DeleteNetworkInterfacePermission",
    "ec2:DescribeDhcpOptions",
    "ec2:DescribeInstanceTypes",
    "ec2:DescribeInstances",
    "ec2:DescribeNetworkInterfaces",
    "ec2:DescribeSecurityGroups",
    "ec2:DescribeSubnets",
    "ec2:DescribeTags",
    "ec2:DescribeVpcs",
    "ecr:GetAuthorizationToken",
)
NODE_IMAGE_PULL_ACTIONS = ("ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer")
NODE_POD_IDENTITY_ACTIONS = ("eks-auth:AssumeRoleForPodIdentity",)


def hyperpod_eks_node_policy(
    *,
    region: str,
    account_id: str,
    subnet_ids: list[str],
    security_group_ids: list[str],
    eks_cluster_name: str,
    partition: str = "aws",
) -> dict:
    """The instance groups' access for EKS: network interfaces in the cluster's own subnets and
    security groups, image pulls in the region, Pod Identity on the shared EKS cluster only."""
    ec2 = f"arn:{partition}:ec2:{region}:{account_id}"
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "CreateNodeNetworkInterfaces",
                "Effect": "Allow",
                "Action": ["ec2:CreateNetworkInterface"],
                "Resource": [
                    f"{ec2}:network-interface/*",
                    *(f"{ec2}:subnet/{subnet}" for subnet in subnet_ids),
                    *(f"{ec2}:security-group/{group}" for group in security_group_ids),
                ],
            },
            {
                # Only interfaces in the cluster's own subnets (condition key ec2:Subnet of the
                # network-interface resource type), never another workload's in the region.
                "Sid": "ManageNodeNetworkInterfaces",
                "Effect": "Allow",
                "Action": list(NODE_NETWORK_INTERFACE_ACTIONS),
                "Resource": [f"{ec2}:network-interface/*"],
                "Condition": {"ArnEquals": {"ec2:Subnet": [f"{ec2}:subnet/{subnet}" for subnet in subnet_ids]}},
            },
            {
                # Attaching names an instance too, which carries no ec2:Subnet: held to network interfaces
                # and instances of the account and region only (docs/security.md, "What is still shared").
                "Sid": "AttachAndDetachNodeNetworkInterfaces",
                "Effect": "Allow",
                "Action": ["ec2:AttachNetworkInterface", "ec2:DetachNetworkInterface"],
                "Resource": [f"{ec2}:network-interface/*", f"{ec2}:instance/*"],
            },
            {
                "Sid": "TagNewNetworkInterfaces",
                "Effect": "Allow",
                "Action": ["ec2:CreateTags"],
                "Resource": [f"{ec2}:network-interface/*"],
                "Condition": {"StringEquals": {"ec2:CreateAction": "CreateNetworkInterface"}},
            },
            {
                "Sid": "DescribeNetworkAndAuthenticateToEcr",
                "Effect": "Allow",
                "Action": list(NODE_UNSCOPED_ACTIONS),
                "Resource": "*",
                "Condition": {"StringEquals": {"aws:RequestedRegion": region}},
            },
            {
                "Sid": "PullImages",
                "Effect": "Allow",
                "Action": list(NODE_IMAGE_PULL_ACTIONS),
                # Images come from AWS-owned accounts too (EKS add-ons, HyperPod agents).
                "Resource": [f"arn:{partition}:ecr:{region}:*:repository/*"],
            },
            {
                "Sid": "PodIdentity",
                "Effect": "Allow",
                "Action": list(NODE_POD_IDENTITY_ACTIONS),
                "Resource": [f"{eks_arn(partition, region, account_id)}:cluster/{eks_cluster_name}"],
            },
        ],
    }


def split_s3_uri(uri: str) -> tuple[str, str]:
    """`s3://bucket/some/prefix/` -> (`bucket`, `some/prefix/`)."""
    bucket, _, prefix = uri.removeprefix("s3://").partition("/")
    return bucket, prefix


def lifecycle_script_object(s3_uri: str, script: str) -> tuple[str, str]:
    """(bucket, key) of the lifecycle script `script` under `s3_uri`, as a node fetches
    ClusterLifeCycleConfig's OnCreate from its SourceS3Uri."""
    bucket, prefix = split_s3_uri(s3_uri)
    return bucket, f"{prefix.rstrip('/')}/{script}" if prefix.strip("/") else script


def lifecycle_scripts_read_policy(bucket: str, prefix: str, partition: str = "aws") -> dict:
    """Read access to the lifecycle scripts, and nothing else of the bucket."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "ReadLifecycleScripts",
                "Effect": "Allow",
                "Action": ["s3:GetObject"],
                "Resource": [f"arn:{partition}:s3:::{bucket}/{prefix}*"],
            },
            {
                "Sid": "ListLifecycleScripts",
                "Effect": "Allow",
                "Action": ["s3:ListBucket"],
                "Resource": [f"arn:{partition}:s3:::{bucket}"],
                "Condition": {"StringLike": {"s3:prefix": [f"{prefix}*"]}},
            },
        ],
    }


def tls_only_bucket_policy(bucket: str, partition: str = "aws") -> dict:
    """Deny every request to the bucket that does not use TLS."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "DenyInsecureTransport",
                "Effect": "Deny",
                "Principal": "*",
                "Action": "s3:*",
                "Resource": [f"arn:{partition}:s3:::{bucket}", f"arn:{partition}:s3:::{bucket}/*"],
                "Condition": {"Bool": {"aws:SecureTransport": "false"}},
            }
        ],
    }


def sagemaker_trust_policy() -> dict:
    return service_trust_policy("sagemaker.amazonaws.com")


#: SageMaker jobs and Studio apps a team member starts from the team's domain.
TEAM_CREATE_ACTIONS = (
    "sagemaker:CreateApp",
    "sagemaker:CreateProcessingJob",
    "sagemaker:CreateSpace",
    "sagemaker:CreateTrainingJob",
)
TEAM_JOB_CREATE_ACTIONS = ("sagemaker:CreateProcessingJob", "sagemaker:CreateTrainingJob")
TEAM_MANAGE_ACTIONS = (
    "sagemaker:DeleteApp",
    "sagemaker:DeleteSpace",
    "sagemaker:DescribeApp",
    "sagemaker:DescribeProcessingJob",
    "sagemaker:DescribeSpace",
    "sagemaker:DescribeTrainingJob",
    "sagemaker:StopProcessingJob",
    "sagemaker:StopTrainingJob",
    "sagemaker:UpdateSpace",
)
#: Using (not administering) the team's Studio key.
STUDIO_KEY_ACTIONS = ("kms:Decrypt", "kms:DescribeKey", "kms:GenerateDataKey")
CLUSTER_READ_ACTIONS = (
    "sagemaker:DescribeCluster",
    "sagemaker:DescribeClusterNode",
    "sagemaker:ListClusterNodes",
)


#: What Studio lists for a user of a private space (SageMaker developer guide, "Give your users
#: access to spaces": SMStudioAppPermissionsListAndDescribe) and its HyperPod page lists (the
#: clusters); list calls have no resource type, so `*`, held to the region.
STUDIO_LIST_ACTIONS = (
    "sagemaker:ListApps",
    "sagemaker:ListClusters",
    "sagemaker:ListDomains",
    "sagemaker:ListSpaces",
    "sagemaker:ListUserProfiles",
)
#: The describe calls of that page, on the team's own domain and user profiles (spaces and apps
#: are in TEAM_MANAGE_ACTIONS).
STUDIO_DESCRIBE_ACTIONS = ("sagemaker:DescribeDomain", "sagemaker:DescribeUserProfile")
#: What Studio's HyperPod page reads of the EKS cluster besides its description: the Kubernetes API
#: (what the role may do there is the team's RBAC, through its access entry) and its add-ons.
STUDIO_EKS_ACTIONS = ("eks:AccessKubernetesApi", "eks:DescribeAddon", "eks:DescribeCluster", "eks:ListAddons")
#: Studio's cluster metrics (CloudWatch's GetMetricData has no resource type: `*`, held to the region).
STUDIO_METRICS_ACTIONS = ("cloudwatch:GetMetricData",)
#: What Studio's HyperPod page reads of the cluster's network and instances. SageMaker developer
#: guide, "Set up an Amazon EKS cluster in Studio" (sagemaker-hyperpod-studio-setup-eks), grants
#: `ec2:Describe*` on `*`; 17 of those describes have resource types (parliament's RESOURCE_STAR), among
#: them DescribeInstanceAttribute, which reads instances' user data. Granted instead: the describes of
#: the cluster's network and instance types, none of which has a resource type (`*`, held to the
#: region). The page's other grants are left out on purpose (docs/team-journeys.md): `ssm:StartSession`
#: opens a shell on a node every team's pods share; ECR pushes and `cloudwatch:PutMetricData` are no
#: step of a journey.
STUDIO_EC2_ACTIONS = (
    "ec2:DescribeAvailabilityZones",
    "ec2:DescribeInstanceTypes",
    "ec2:DescribeNetworkInterfaces",
    "ec2:DescribeSecurityGroups",
    "ec2:DescribeSubnets",
    "ec2:DescribeVpcs",
)


#: Reading and writing a team's data bucket (S3 object operations; listing is on the bucket).
TEAM_DATA_OBJECT_ACTIONS = (
    "s3:AbortMultipartUpload",
    "s3:DeleteObject",
    "s3:GetObject",
    "s3:ListMultipartUploadParts",
    "s3:PutObject",
)
TEAM_DATA_BUCKET_ACTIONS = ("s3:GetBucketLocation", "s3:ListBucket")


def team_data_statements(bucket: str, partition: str) -> list[dict]:
    """Read and write the team's own bucket, nothing else of S3 (the key it is encrypted with is
    the team's, used through UseTheTeamsKeys)."""
    return [
        {
            "Sid": "ListTheTeamsData",
            "Effect": "Allow",
            "Action": list(TEAM_DATA_BUCKET_ACTIONS),
            "Resource": [f"arn:{partition}:s3:::{bucket}"],
        },
        {
            "Sid": "ReadAndWriteTheTeamsData",
            "Effect": "Allow",
            "Action": list(TEAM_DATA_OBJECT_ACTIONS),
            "Resource": [f"arn:{partition}:s3:::{bucket}/*"],
        },
    ]


#: Pulling and listing images of a repository (ECR API reference; each has the repository resource
#: type). `ecr:GetAuthorizationToken` (docker login) has none: `*`, held to the region.
IMAGE_READ_ACTIONS = (
    "ecr:BatchCheckLayerAvailability",
    "ecr:BatchGetImage",
    "ecr:DescribeImages",
    "ecr:DescribeRepositories",
    "ecr:GetDownloadUrlForLayer",
    "ecr:ListImages",
)
REGISTRY_SIGN_IN_ACTIONS = ("ecr:GetAuthorizationToken",)


def team_images_statements(*, org: str, team: str, account_id: str, region: str) -> list[dict]:
    """Read the team's own container images: the ECR repositories named under the team's prefix
    (naming.team_repository_prefix), nothing of another team's."""
    partition = aws_partition(region)
    prefix = naming.team_repository_prefix(org, team)
    return [
        {
            "Sid": "SignInToTheRegistry",
            "Effect": "Allow",
            "Action": list(REGISTRY_SIGN_IN_ACTIONS),
            "Resource": "*",
            "Condition": {"StringEquals": {"aws:RequestedRegion": region}},
        },
        {
            "Sid": "ReadTheTeamsImages",
            "Effect": "Allow",
            "Action": list(IMAGE_READ_ACTIONS),
            "Resource": [f"arn:{partition}:ecr:{region}:{account_id}:repository/{prefix}*"],
        },
    ]


#: Reading a log stream's events has the log-stream resource type; filtering, Logs Insights and
#: live tail are on the whole log group (Service Authorization Reference, CloudWatch Logs).
CONTAINER_LOG_READ_ACTIONS = ("logs:GetLogEvents",)


def team_container_logs_statement(*, team: str, account_id: str, region: str, eks_cluster_name: str) -> dict:
    """Read the events of the team's own containers' log streams, as the Amazon CloudWatch
    Observability add-on writes them: group `/aws/containerinsights/<EKS cluster>/application`,
    stream `<node>-application.var.log.containers.<pod>_<namespace>_<container>-<container ID>.log`
    (aws-observability/helm-charts, amazon-cloudwatch-observability values.yaml: Fluent Bit's
    `application-log.conf`, `log_stream_prefix ${HOST_NAME}-` of the tail input's tag). Pod and
    namespace names hold no `_`, so `_<namespace>_` matches the team's streams only."""
    partition = aws_partition(region)
    group = naming.container_log_group(eks_cluster_name)
    stream = f"*-application.var.log.containers.*_{naming.team_namespace(team)}_*"
    return {
        "Sid": "ReadTheTeamsContainerLogs",
        "Effect": "Allow",
        "Action": list(CONTAINER_LOG_READ_ACTIONS),
        "Resource": [f"arn:{partition}:logs:{region}:{account_id}:log-group:{group}:log-stream:{stream}"],
    }


def team_keys_statement(team: str, account_id: str, region: str, partition: str) -> dict:
    """Using (not administering) the team's keys: its Studio volumes' and its data's, which carry
    the team's tag (the team stack's default tags)."""
    return {
        "Sid": "UseTheTeamsKeys",
        "Effect": "Allow",
        "Action": list(STUDIO_KEY_ACTIONS),
        "Resource": [f"arn:{partition}:kms:{region}:{account_id}:key/*"],
        "Condition": {"StringEquals": {f"aws:ResourceTag/{naming.TAG_TEAM}": team}},
    }


def team_workload_policy(*, team: str, account_id: str, region: str, data_bucket: str | None) -> dict:
    """What the team's pods may do through their workload role: the team's data, and nothing else."""
    partition = aws_partition(region)
    statements = [team_keys_statement(team, account_id, region, partition)]
    if data_bucket:
        statements = [*team_data_statements(data_bucket, partition), *statements]
    return {"Version": "2012-10-17", "Statement": statements}


def team_execution_policy(
    *,
    org: str,
    team: str,
    account_id: str,
    region: str,
    eks_cluster_name: str,
    domain_id: str | None = None,
    data_bucket: str | None = None,
    workload_role: str | None = None,
    container_logs: bool = False,
    job_instance_types: list[str] | tuple[str, ...] = (),
) -> dict:
    """What a team's domain apps and jobs may do: create and manage SageMaker resources tagged
    with their own team, read the shared HyperPod and EKS clusters, read and write the team's data
    (`data_bucket`), hand the team's own roles to the SageMaker jobs it starts, and nothing of
    other teams.

    Spaces and apps are created in the team's own domain only (`domain_id`; without a domain, none):
    the team tag is the requester's to write, so alone it let the role plant a space, tagged as its
    own, in another team's domain.

    Training and processing jobs run outside the HyperPod cluster and its quota: the role starts them
    only on `job_instance_types` (condition key sagemaker:InstanceTypes, which a job's request carries;
    empty: no job at all)."""
    partition = aws_partition(region)
    sagemaker = f"arn:{partition}:sagemaker:{region}:{account_id}"
    team_tag = naming.TAG_TEAM
    in_the_domain = [f"{sagemaker}:app/{domain_id}/*", f"{sagemaker}:space/{domain_id}/*"] if domain_id else []
    return {
        "Version": "2012-10-17",
        "Statement": [
            *(
                [
                    {
                        "Sid": "CreateOnlyTaggedWithTheTeam",
                        "Effect": "Allow",
                        "Action": [a for a in TEAM_CREATE_ACTIONS if a not in TEAM_JOB_CREATE_ACTIONS],
                        "Resource": in_the_domain,
                        "Condition": {"StringEquals": {f"aws:RequestTag/{team_tag}": team}},
                    }
                ]
                if domain_id
                else []
            ),
            *(
                [
                    {
                        # Outside the HyperPod quota: only on the instance types the spec allows the team
                        # (teams[].studio.job_instance_types), and a request without one is refused (Null).
                        "Sid": "StartJobsOnlyOnTheTeamsInstanceTypes",
                        "Effect": "Allow",
                        "Action": list(TEAM_JOB_CREATE_ACTIONS),
                        "Resource": [f"{sagemaker}:processing-job/*", f"{sagemaker}:training-job/*"],
                        "Condition": {
                            "StringEquals": {f"aws:RequestTag/{team_tag}": team},
                            "ForAllValues:StringEquals": {"sagemaker:InstanceTypes": sorted(job_instance_types)},
                            "Null": {"sagemaker:InstanceTypes": "false"},
                        },
                    }
                ]
                if job_instance_types
                else []
            ),
            {
                "Sid": "TagOnlyWhileCreating",
                "Effect": "Allow",
                "Action": ["sagemaker:AddTags"],
                "Resource": [f"{sagemaker}:*/*"],
                "Condition": {
                    "StringEquals": {f"aws:RequestTag/{team_tag}": team},
                    "ForAnyValue:StringEquals": {
                        "sagemaker:TaggingAction": [action.split(":")[1] for action in TEAM_CREATE_ACTIONS]
                    },
                },
            },
            {
                # Spaces and apps of the team's own domain only, as for creating them: a resource's
                # tag alone would reach one tagged as the team's in another team's domain.
                "Sid": "ManageOnlyTheTeamsOwn",
                "Effect": "Allow",
                # Without a domain, the job actions only: an app's or a space's action would name no
                # resource of the statement (parliament's RESOURCE_MISMATCH).
                "Action": [a for a in TEAM_MANAGE_ACTIONS if domain_id or a.endswith("Job")],
                "Resource": [
                    *in_the_domain,
                    f"{sagemaker}:processing-job/*",
                    f"{sagemaker}:training-job/*",
                ],
                "Condition": {"StringEquals": {f"aws:ResourceTag/{team_tag}": team}},
            },
            {
                "Sid": "ReadTheSharedHyperPodCluster",
                "Effect": "Allow",
                "Action": list(CLUSTER_READ_ACTIONS),
                "Resource": [f"{sagemaker}:cluster/*"],
                "Condition": {"StringEquals": {f"aws:ResourceTag/{naming.TAG_ORGANIZATION}": org}},
            },
            {
                "Sid": "ReadTheSharedEksCluster",
                "Effect": "Allow",
                "Action": list(STUDIO_EKS_ACTIONS),
                "Resource": [
                    f"{eks_arn(partition, region, account_id)}:cluster/{eks_cluster_name}",
                    f"{eks_arn(partition, region, account_id)}:addon/{eks_cluster_name}/*",
                ],
            },
            {
                "Sid": "ListWhatStudioShows",
                "Effect": "Allow",
                "Action": list(STUDIO_LIST_ACTIONS + STUDIO_METRICS_ACTIONS + STUDIO_EC2_ACTIONS),
                "Resource": "*",
                "Condition": {"StringEquals": {"aws:RequestedRegion": region}},
            },
            {
                "Sid": "DescribeTheTeamsDomainAndProfiles",
                "Effect": "Allow",
                "Action": list(STUDIO_DESCRIBE_ACTIONS),
                "Resource": [f"{sagemaker}:domain/*", f"{sagemaker}:user-profile/*"],
                "Condition": {"StringEquals": {f"aws:ResourceTag/{team_tag}": team}},
            },
            *hyp_from_studio_statements(
                partition=partition,
                account_id=account_id,
                region=region,
                eks_cluster_name=eks_cluster_name,
                role_name=naming.team_execution_role_name(org, team),
            ),
            # The team's Studio volumes and data are encrypted with the team's own keys.
            team_keys_statement(team, account_id, region, partition),
            {
                # A training or processing job runs as a role it is given: the team's own only.
                "Sid": "PassTheTeamsOwnRolesToSageMakerJobs",
                "Effect": "Allow",
                "Action": ["iam:PassRole"],
                "Resource": [
                    f"arn:{partition}:iam::{account_id}:role/{name}"
                    for name in (naming.team_execution_role_name(org, team), workload_role)
                    if name
                ],
                "Condition": {"StringEquals": {"iam:PassedToService": "sagemaker.amazonaws.com"}},
            },
            *(team_data_statements(data_bucket, partition) if data_bucket else []),
            *team_images_statements(org=org, team=team, account_id=account_id, region=region),
            *(
                [
                    team_container_logs_statement(
                        team=team, account_id=account_id, region=region, eks_cluster_name=eks_cluster_name
                    )
                ]
                if container_logs
                else []
            ),
        ],
    }


# --- IAM Identity Center permission sets ------------------------------------------------------
#
# What a person gets when they sign in through the access portal. Team roles reach only what
# carries their own team's tag (domains, user profiles, spaces, apps, compute quotas all do: the
# team stack tags them and the domain propagates its tags), plus read access to the shared
# clusters. Nothing lists across the account: list calls need Resource "*".

#: What one's own team's Studio holds. A member opens the domain from the access portal: the
#: team's groups are assigned to the domain's Identity Center application (the team stack), which
#: takes no IAM grant of the permission set; `sagemaker:CreatePresignedDomainUrl` serves domains of
#: IAM authentication only (SageMaker API reference, CreatePresignedDomainUrl), and these are SSO.
STUDIO_READ_ACTIONS = (
    "sagemaker:DescribeApp",
    "sagemaker:DescribeDomain",
    "sagemaker:DescribeSpace",
    "sagemaker:DescribeUserProfile",
    "sagemaker:ListTags",
)
#: What team admins manage in their own domain beyond what scientists do.
STUDIO_ADMIN_CREATE_ACTIONS = ("sagemaker:CreateSpace", "sagemaker:CreateUserProfile")
STUDIO_ADMIN_MANAGE_ACTIONS = (
    "sagemaker:DeleteApp",
    "sagemaker:DeleteSpace",
    "sagemaker:DeleteUserProfile",
    "sagemaker:UpdateSpace",
    "sagemaker:UpdateUserProfile",
)
TASK_GOVERNANCE_READ_ACTIONS = ("sagemaker:DescribeComputeQuota",)
SCHEDULER_READ_ACTIONS = ("sagemaker:DescribeClusterSchedulerConfig",)
EKS_MEMBER_ACTIONS = ("eks:AccessKubernetesApi", "eks:DescribeCluster")
#: `hyp get-monitoring` (sagemaker-hyperpod 3.12.0, observability/utils.py): ListAddons on
#: the EKS cluster (is the observability add-on installed?), then DescribeAddon of that add-on for
#: its Prometheus and Grafana workspaces.
HYP_MONITORING_ACTIONS = ("eks:ListAddons",)
OBSERVABILITY_ADDON = addons.OBSERVABILITY_ADDON
#: `hyp invoke hyp-custom-endpoint` (sagemaker-hyperpod 3.12.0, cli/commands/inference.py,
#: custom_invoke): sagemaker_core's `Endpoint.get` (DescribeEndpoint: is it InService?), then
#: sagemaker-runtime InvokeEndpoint; both on the endpoint's ARN (Service Authorization Reference,
#: SageMaker AI: resource type endpoint, `endpoint/${EndpointName}`).
ENDPOINT_ACTIONS = ("sagemaker:DescribeEndpoint", "sagemaker:InvokeEndpoint")

#: The node operations of the newer API (botocore's SageMaker model: each takes the cluster's
#: name or ARN, so each is held to the organization's clusters): reboot or replace nodes, run
#: deep health checks on demand, read the cluster's events and operations (Continuous
#: provisioning). Platform admins only; no team role has any (tests/test_policies.py).
NODE_OPERATION_ACTIONS = (
    "sagemaker:BatchRebootClusterNodes",
    "sagemaker:BatchReplaceClusterNodes",
    "sagemaker:DescribeClusterEvent",
    "sagemaker:DescribeClusterOperation",
    "sagemaker:ListClusterEvents",
    "sagemaker:ListClusterOperations",
    "sagemaker:StartClusterHealthCheck",
)
#: Platform admins: the cluster, its task governance, every team's Studio, the EKS cluster.
CLUSTER_ADMIN_ACTIONS = (
    "sagemaker:BatchDeleteClusterNodes",
    "sagemaker:DescribeCluster",
    "sagemaker:DescribeClusterNode",
    "sagemaker:ListClusterNodes",
    "sagemaker:UpdateCluster",
    "sagemaker:UpdateClusterSoftware",
    *NODE_OPERATION_ACTIONS,
)
TASK_GOVERNANCE_ADMIN_ACTIONS = (
    "sagemaker:DescribeClusterSchedulerConfig",
    "sagemaker:DescribeComputeQuota",
    "sagemaker:UpdateClusterSchedulerConfig",
    "sagemaker:UpdateComputeQuota",
)
EKS_ADMIN_ACTIONS = (
    "eks:AccessKubernetesApi",
    "eks:DescribeAccessEntry",
    "eks:DescribeAddon",
    "eks:DescribeCluster",
    "eks:DescribeUpdate",
    "eks:ListAccessEntries",
    "eks:ListAddons",
    "eks:ListAssociatedAccessPolicies",
    "eks:ListUpdates",
)

#: What `hyp set-cluster-context` (sagemaker-hyperpod 3.12.0, as 3.9.0) calls
#: before any Kubernetes request: `ListClusters` (commands/cluster.py, `_get_hyperpod_clusters`),
#: which has no resource type (Service Authorization Reference) and so takes `*`, held to the region;
#: `iam:GetRole` on the caller's own Identity Center role, to turn the assumed-role ARN into the
#: role's ARN with its `/aws-reserved/sso.amazonaws.com/` path (cli/cluster_utils.py,
#: `_get_current_aws_identity`); `eks:DescribeAccessEntry` on the caller's own access entry
#: (`validate_eks_access_before_kubeconfig_update`), which stops the command when refused.
HYP_LIST_ACTIONS = ("sagemaker:ListClusters",)


def hyp_connect_statements(
    *, partition: str, account_id: str, region: str, eks_cluster_name: str, permission_set: str
) -> list[dict]:
    """The grants `hyp set-cluster-context` needs for the role of `permission_set` (see
    HYP_LIST_ACTIONS): its own role and its own access entry only."""
    role = naming.sso_role_name_prefix(permission_set)
    return [
        {
            "Sid": "ListHyperPodClusters",
            "Effect": "Allow",
            "Action": list(HYP_LIST_ACTIONS),
            "Resource": "*",
            "Condition": {"StringEquals": {"aws:RequestedRegion": region}},
        },
        *_own_role_and_access_entry(
            partition=partition,
            account_id=account_id,
            region=region,
            eks_cluster_name=eks_cluster_name,
            # Identity Center's role: its path and its random suffix are not known before it exists.
            role_resource=f"role{naming.SSO_ROLE_PATH}*{role}*",
            entry_role=f"{role}*",
            sids=("ResolveTheOwnIdentityCenterRole", "CheckTheOwnEksAccessEntry"),
        ),
    ]


def _own_role_and_access_entry(
    *,
    partition: str,
    account_id: str,
    region: str,
    eks_cluster_name: str,
    role_resource: str,
    entry_role: str,
    sids: tuple[str, str],
) -> list[dict]:
    """`iam:GetRole` on the caller's own role (`role_resource`, after `arn:...:iam::<account>:`)
    and `eks:DescribeAccessEntry` on that role's access entry (`entry_role`, its name or a pattern
    of it): what `hyp set-cluster-context` reads of the caller before it writes the kubeconfig."""
    entries = f"{eks_arn(partition, region, account_id)}:access-entry/{eks_cluster_name}/role/{account_id}"
    return [
        {
            "Sid": sids[0],
            "Effect": "Allow",
            "Action": ["iam:GetRole"],
            "Resource": [f"arn:{partition}:iam::{account_id}:{role_resource}"],
        },
        {
            "Sid": sids[1],
            "Effect": "Allow",
            "Action": ["eks:DescribeAccessEntry"],
            # access-entry/${ClusterName}/${IamIdentityType}/${IamIdentityAccountID}/${IamIdentityName}/${UUID}
            "Resource": [f"{entries}/{entry_role}/*"],
        },
    ]


def hyp_from_studio_statements(
    *, partition: str, account_id: str, region: str, eks_cluster_name: str, role_name: str
) -> list[dict]:
    """What `hyp set-cluster-context` needs when it runs in a Studio space, as the team's
    execution role (docs/kubernetes-access.md): `iam:GetRole` on that role itself and
    `eks:DescribeAccessEntry` on its own access entry (HYP_LIST_ACTIONS says where the CLI calls
    them; `sagemaker:ListClusters` is in ListWhatStudioShows). A refusal of the second exits 1."""
    return _own_role_and_access_entry(
        partition=partition,
        account_id=account_id,
        region=region,
        eks_cluster_name=eks_cluster_name,
        role_resource=f"role/{role_name}",
        entry_role=role_name,
        sids=("ResolveTheOwnExecutionRole", "CheckTheOwnEksAccessEntryFromStudio"),
    )


def _studio_resources(sagemaker: str) -> list[str]:
    return [f"{sagemaker}:{kind}/*" for kind in ("app", "domain", "space", "user-profile")]


def _owned_by(org: str, team: str | None = None, *, request: bool = False) -> dict:
    """A condition that the resource (or, with `request`, the new resource) is the org's, and
    with `team` that team's."""
    kind = "RequestTag" if request else "ResourceTag"
    tags = {f"aws:{kind}/{naming.TAG_ORGANIZATION}": org}
    if team:
        tags[f"aws:{kind}/{naming.TAG_TEAM}"] = team
    return {"StringEquals": tags}


def team_permission_set_policy(
    *,
    org: str,
    team: str,
    account_id: str,
    region: str,
    eks_cluster_name: str,
    permission_set: str,
    budget_name: str | None = None,
    studio: bool = True,
    container_logs: bool = False,
    inference: bool = False,
    spaces: bool = False,
) -> dict:
    """The inline policy of a team role's permission set (`studio`: whether the team has a
    SageMaker AI domain; without one, no Studio grant at all; `container_logs`: whether the
    CloudWatch Observability add-on writes the containers' logs, which the role may then read of
    its own team's namespace).

    Both roles: see their own team's Studio domain and what it holds; describe the HyperPod
    cluster, its nodes and scheduler, and their own team's compute quota; reach the EKS cluster's
    Kubernetes API (what they may do there is the team's RBAC); see their budget. What admins manage
    in their own domain names the domain's ID, which exists only once the team stack has made the
    domain: it is `team_admins_studio_policy`, a customer managed policy the team stack writes and
    attaches to the admins' permission set.
    """
    partition = aws_partition(region)
    sagemaker = f"arn:{partition}:sagemaker:{region}:{account_id}"
    eks = eks_arn(partition, region, account_id)
    see_studio = {
        "Sid": "SeeTheTeamsStudio",
        "Effect": "Allow",
        "Action": list(STUDIO_READ_ACTIONS),
        "Resource": _studio_resources(sagemaker),
        "Condition": _owned_by(org, team),
    }
    statements: list[dict] = [
        *([see_studio] if studio else []),
        {
            "Sid": "SeeTheTeamsComputeQuota",
            "Effect": "Allow",
            "Action": list(TASK_GOVERNANCE_READ_ACTIONS),
            "Resource": [f"{sagemaker}:compute-quota/*"],
            "Condition": _owned_by(org, team),
        },
        {
            "Sid": "DescribeTheSharedHyperPodCluster",
            "Effect": "Allow",
            "Action": list(CLUSTER_READ_ACTIONS + SCHEDULER_READ_ACTIONS),
            "Resource": [f"{sagemaker}:cluster/*", f"{sagemaker}:cluster-scheduler-config/*"],
            "Condition": _owned_by(org),
        },
        {
            "Sid": "ReachTheSharedEksCluster",
            "Effect": "Allow",
            "Action": list(EKS_MEMBER_ACTIONS + HYP_MONITORING_ACTIONS),
            "Resource": [f"{eks}:cluster/{eks_cluster_name}"],
        },
        {
            "Sid": "ReadTheMonitoringAddOn",
            "Effect": "Allow",
            "Action": ["eks:DescribeAddon"],
            # hyp's space commands read the Spaces add-on's version (space/utils.py,
            # get_spaces_addon_version) to warn of a template newer than the add-on.
            "Resource": [
                f"{eks}:addon/{eks_cluster_name}/{addon}/*"
                for addon in (OBSERVABILITY_ADDON, *([addons.SPACES_ADDON] if spaces else []))
            ],
        },
        *([team_endpoints_statement(org=org, team=team, account_id=account_id, region=region)] if inference else []),
        *hyp_connect_statements(
            partition=partition,
            account_id=account_id,
            region=region,
            eks_cluster_name=eks_cluster_name,
            permission_set=permission_set,
        ),
        *team_images_statements(org=org, team=team, account_id=account_id, region=region),
    ]
    if container_logs:
        statements.append(
            team_container_logs_statement(
                team=team, account_id=account_id, region=region, eks_cluster_name=eks_cluster_name
            )
        )
    if budget_name:
        statements.append(
            {
                "Sid": "SeeTheTeamsBudget",
                "Effect": "Allow",
                "Action": ["budgets:ViewBudget"],
                "Resource": [f"arn:{partition}:budgets::{account_id}:budget/{budget_name}"],
            }
        )
    return {"Version": "2012-10-17", "Statement": statements}


def team_endpoints_statement(*, org: str, team: str, account_id: str, region: str) -> dict:
    """Describe and invoke the team's own SageMaker endpoints: those named with the team's prefix
    (naming.team_endpoint_prefix), which the team's admission policy holds every endpoint its
    members deploy to (rbac.queue_label_policy_manifests). SageMaker puts the name in lowercase in
    the ARN."""
    partition = aws_partition(region)
    prefix = naming.team_endpoint_prefix(org, team)
    return {
        "Sid": "InvokeTheTeamsEndpoints",
        "Effect": "Allow",
        "Action": list(ENDPOINT_ACTIONS),
        "Resource": [f"arn:{partition}:sagemaker:{region}:{account_id}:endpoint/{prefix}*"],
    }


def team_admins_studio_policy(*, org: str, team: str, account_id: str, region: str, domain_id: str) -> dict:
    """What a team's admins manage in their own team's domain `domain_id` and in no other: create
    user profiles and spaces there (tagged as the team's), and change or delete the profiles, spaces
    and apps of that domain that carry the team's tag. The domain's ID is in every resource: a tag
    is the requester's to write, so a tag condition alone let an admin plant a profile or space,
    tagged as the own team's, in another team's domain and then manage it (the same gap the
    execution role's CreateOnlyTaggedWithTheTeam closes)."""
    partition = aws_partition(region)
    sagemaker = f"arn:{partition}:sagemaker:{region}:{account_id}"
    # space/${DomainId}/${SpaceName}, user-profile/${DomainId}/${UserProfileName},
    # app/${DomainId}/${UserProfileName}/${AppType}/${AppName} (Service Authorization Reference).
    created = [f"{sagemaker}:space/{domain_id}/*", f"{sagemaker}:user-profile/{domain_id}/*"]
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "CreateProfilesAndSpacesInTheTeamsDomain",
                "Effect": "Allow",
                "Action": list(STUDIO_ADMIN_CREATE_ACTIONS),
                "Resource": created,
                "Condition": _owned_by(org, team, request=True),
            },
            {
                "Sid": "TagOnlyWhileCreating",
                "Effect": "Allow",
                "Action": ["sagemaker:AddTags"],
                "Resource": created,
                "Condition": {
                    **_owned_by(org, team, request=True),
                    "ForAnyValue:StringEquals": {
                        "sagemaker:TaggingAction": [a.split(":")[1] for a in STUDIO_ADMIN_CREATE_ACTIONS]
                    },
                },
            },
            {
                "Sid": "ManageTheTeamsProfilesAndSpaces",
                "Effect": "Allow",
                "Action": list(STUDIO_ADMIN_MANAGE_ACTIONS),
                "Resource": [f"{sagemaker}:app/{domain_id}/*", *created],
                "Condition": _owned_by(org, team),
            },
        ],
    }


def permission_set_policy_of(spec: PlatformSpec, team: Team, role: str) -> dict:
    """`team_permission_set_policy` with every value taken from the spec."""
    org = spec.organization
    return team_permission_set_policy(
        org=org.name,
        team=team.name,
        account_id=org.account_id,
        region=org.region,
        eks_cluster_name=naming.shared_eks_cluster_name(spec.cluster),
        permission_set=naming.team_permission_set_name(org.name, team, role),
        budget_name=naming.team_budget_name(org.name, team.name) if team.budget else None,
        studio=team.studio.enabled,
        container_logs=spec.cluster.cloudwatch_observability,
        inference=spec.cluster.inference is not None,
        spaces=spec.cluster.spaces is not None,
    )


def platform_admins_permission_set_policy(*, org: str, account_id: str, region: str, eks_cluster_name: str) -> dict:
    """The inline policy of the platform admins' permission set: administer the HyperPod cluster,
    its task governance, every team's Studio and the EKS cluster, all of the organization's; view
    every team's budget. Deleting the cluster or a domain is left to the pipeline (Terraform)."""
    partition = aws_partition(region)
    sagemaker = f"arn:{partition}:sagemaker:{region}:{account_id}"
    eks = eks_arn(partition, region, account_id)
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "AdministerTheHyperPodCluster",
                "Effect": "Allow",
                "Action": list(CLUSTER_ADMIN_ACTIONS),
                "Resource": [f"{sagemaker}:cluster/*"],
                "Condition": _owned_by(org),
            },
            {
                "Sid": "AdministerTaskGovernance",
                "Effect": "Allow",
                "Action": list(TASK_GOVERNANCE_ADMIN_ACTIONS),
                "Resource": [f"{sagemaker}:cluster-scheduler-config/*", f"{sagemaker}:compute-quota/*"],
                "Condition": _owned_by(org),
            },
            {
                "Sid": "AdministerEveryTeamsStudio",
                "Effect": "Allow",
                "Action": sorted(set(STUDIO_READ_ACTIONS + STUDIO_ADMIN_MANAGE_ACTIONS)),
                "Resource": _studio_resources(sagemaker),
                "Condition": _owned_by(org),
            },
            {
                "Sid": "AdministerTheEksCluster",
                "Effect": "Allow",
                "Action": list(EKS_ADMIN_ACTIONS),
                "Resource": [
                    f"{eks}:cluster/{eks_cluster_name}",
                    f"{eks}:access-entry/{eks_cluster_name}/*",
                    f"{eks}:addon/{eks_cluster_name}/*",
                ],
            },
            *hyp_connect_statements(
                partition=partition,
                account_id=account_id,
                region=region,
                eks_cluster_name=eks_cluster_name,
                permission_set=naming.platform_admins_permission_set_name(org),
            ),
            {
                "Sid": "ViewEveryTeamsBudget",
                "Effect": "Allow",
                "Action": ["budgets:ViewBudget"],
                "Resource": [f"arn:{partition}:budgets::{account_id}:budget/{org}-*"],
            },
        ],
    }


# --- KMS ------------------------------------------------------------------------------------

#: What the account's own IAM policies may grant on a customer-managed key: administering and
#: using it, spelled out (no `kms:*`). PutKeyPolicy keeps the account from locking itself out.
KMS_ACCOUNT_ACTIONS = (
    "kms:CancelKeyDeletion",
    "kms:CreateAlias",
    "kms:CreateGrant",
    "kms:Decrypt",
    "kms:DeleteAlias",
    "kms:DescribeKey",
    "kms:DisableKey",
    "kms:DisableKeyRotation",
    "kms:EnableKey",
    "kms:EnableKeyRotation",
    "kms:Encrypt",
    "kms:GenerateDataKey",
    "kms:GenerateDataKeyWithoutPlaintext",
    "kms:GetKeyPolicy",
    "kms:GetKeyRotationStatus",
    "kms:ListAliases",
    "kms:ListGrants",
    "kms:ListResourceTags",
    "kms:PutKeyPolicy",
    "kms:ReEncryptFrom",
    "kms:ReEncryptTo",
    "kms:RetireGrant",
    "kms:RevokeGrant",
    "kms:RotateKeyOnDemand",
    "kms:ScheduleKeyDeletion",
    "kms:TagResource",
    "kms:UntagResource",
    "kms:UpdateAlias",
    "kms:UpdateKeyDescription",
)


def kms_key_policy(account_id: str, partition: str = "aws") -> dict:
    """Key policy that leaves the key to the account's IAM policies, as AWS's default does, but
    with the actions named. In a key policy, Resource "*" means this key and nothing else."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "TheAccountsIamPoliciesGovernTheKey",
                "Effect": "Allow",
                "Principal": {"AWS": f"arn:{partition}:iam::{account_id}:root"},
                "Action": list(KMS_ACCOUNT_ACTIONS),
                "Resource": "*",
            }
        ],
    }


#: What EKS needs of the key that encrypts the cluster's Kubernetes secrets.
EKS_SECRETS_KEY_ACTIONS = ("kms:Decrypt", "kms:DescribeKey", "kms:Encrypt", "kms:ListGrants")


def eks_secrets_key_use_policy(key_arn: str) -> dict:
    """The EKS cluster role's use of its secrets key, and of no other key."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "UseTheSecretsKey",
                "Effect": "Allow",
                "Action": list(EKS_SECRETS_KEY_ACTIONS),
                "Resource": [key_arn],
            }
        ],
    }


# --- HyperPod usage reporting (awslabs/sagemaker-hyperpod-usage-report) ------------------------


def pod_identity_trust_policy(account_id: str, eks_cluster_arn: str) -> dict:
    """EKS Pod Identity assumes the role for pods of this one cluster (EKS user guide, "Create an IAM
    role for EKS Pod Identity": the service principal, AssumeRole and TagSession; the source
    account and cluster conditions guard against the confused deputy)."""
    policy = service_trust_policy("pods.eks.amazonaws.com")
    statement = policy["Statement"][0]
    statement["Action"] = ["sts:AssumeRole", "sts:TagSession"]
    statement["Condition"] = {
        "StringEquals": {"aws:SourceAccount": account_id},
        "ArnEquals": {"aws:SourceArn": eks_cluster_arn},
    }
    return policy


def usage_operator_policy(bucket: str, raw_prefix: str, partition: str = "aws") -> dict:
    """The operator writes raw usage data, and nothing else (the official template grants
    s3:PutObject on the whole bucket; the operator writes under raw/ only)."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "WriteRawUsageData",
                "Effect": "Allow",
                "Action": "s3:PutObject",
                "Resource": f"arn:{partition}:s3:::{bucket}/{raw_prefix}*",
            }
        ],
    }


#: X-Ray's write actions have no resource-level permissions (Service Authorization Reference):
#: "*" is their only resource, so they are held to the spec's region.
XRAY_WRITE_ACTIONS = ("xray:PutTraceSegments", "xray:PutTelemetryRecords")


def usage_aggregation_policy(
    *,
    bucket: str,
    database: str,
    workgroup: str,
    function: str,
    account_id: str,
    region: str,
    key_arn: str,
    queue_arn: str,
) -> dict:
    """The daily aggregation: queries in its own workgroup, the usage database's tables and their
    partitions (MSCK REPAIR TABLE, INSERT INTO), the report bucket, its own log group, its
    environment's key, its dead-letter queue, X-Ray. The official template grants athena:*
    actions on every resource and AWSGlueServiceRole."""
    partition = aws_partition(region)
    glue = f"arn:{partition}:glue:{region}:{account_id}"
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "QueryInTheUsageWorkgroup",
                "Effect": "Allow",
                "Action": ["athena:StartQueryExecution", "athena:GetQueryExecution"],
                "Resource": f"arn:{partition}:athena:{region}:{account_id}:workgroup/{workgroup}",
            },
            {
                "Sid": "ReadAndPartitionTheUsageTables",
                "Effect": "Allow",
                "Action": [
                    "glue:GetDatabase",
                    "glue:GetTable",
                    "glue:GetPartition",
                    "glue:GetPartitions",
                    "glue:BatchGetPartition",
                    "glue:CreatePartition",
                    "glue:BatchCreatePartition",
                    "glue:UpdatePartition",
                ],
                "Resource": [f"{glue}:catalog", f"{glue}:database/{database}", f"{glue}:table/{database}/*"],
            },
            {
                "Sid": "ReadAndWriteUsageObjects",
                "Effect": "Allow",
                "Action": ["s3:GetObject", "s3:PutObject", "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts"],
                "Resource": f"arn:{partition}:s3:::{bucket}/*",
            },
            {
                "Sid": "ListTheUsageBucket",
                "Effect": "Allow",
                "Action": ["s3:ListBucket", "s3:GetBucketLocation", "s3:ListBucketMultipartUploads"],
                "Resource": f"arn:{partition}:s3:::{bucket}",
            },
            {
                "Sid": "WriteItsOwnLogs",
                "Effect": "Allow",
                "Action": ["logs:CreateLogStream", "logs:PutLogEvents"],
                "Resource": f"arn:{partition}:logs:{region}:{account_id}:log-group:/aws/lambda/{function}:*",
            },
            {"Sid": "DecryptItsEnvironment", "Effect": "Allow", "Action": "kms:Decrypt", "Resource": key_arn},
            {"Sid": "SendFailedRunsToItsQueue", "Effect": "Allow", "Action": "sqs:SendMessage", "Resource": queue_arn},
            {
                "Sid": "SendTraces",
                "Effect": "Allow",
                "Action": list(XRAY_WRITE_ACTIONS),
                "Resource": "*",
                "Condition": {"StringEquals": {"aws:RequestedRegion": region}},
            },
        ],
    }


def logs_key_statements(account_id: str, region: str, log_group: str) -> tuple[dict, ...]:
    """Key-policy statements that let CloudWatch Logs encrypt one log group with the key (CloudWatch
    Logs user guide, "Encrypt log data in CloudWatch Logs using AWS KMS": the regional service
    principal, held to the log group by the encryption context). The guide's ArnLike on the
    context key is StringEquals here (the key is of type String; the value is one exact ARN), and
    DescribeKey, which carries no encryption context, has a statement of its own."""
    partition = aws_partition(region)
    service = {"Service": f"logs.{region}.amazonaws.com"}
    log_group_arn = f"arn:{partition}:logs:{region}:{account_id}:log-group:{log_group}"
    return (
        {
            "Sid": "CloudWatchLogsEncryptsTheAggregationLogs",
            "Effect": "Allow",
            "Principal": service,
            "Action": ["kms:Encrypt*", "kms:Decrypt*", "kms:ReEncrypt*", "kms:GenerateDataKey*"],
            "Resource": "*",
            "Condition": {"StringEquals": {"kms:EncryptionContext:aws:logs:arn": log_group_arn}},
        },
        {
            "Sid": "CloudWatchLogsDescribesTheKey",
            "Effect": "Allow",
            "Principal": service,
            "Action": "kms:DescribeKey",
            "Resource": "*",
        },
    )


# --- the inference operator, Spaces and observability add-ons ----------------------------------------
#
# Their roles as the reference Terraform makes them (awslabs/awsome-distributed-training, terraform-
# modules/hyperpod-eks-tf/modules/{hyperpod_inference_operator,observability}/iam_roles.tf at 0edaf152),
# held tighter where the reference grants every bucket or every workspace of the account.


def irsa_trust_policy(
    *, oidc_provider_arn: str, issuer: str, namespace: str, service_account: str, sagemaker: bool = False
) -> dict:
    """A role for a service account through the EKS cluster's OIDC provider (IRSA; EKS user guide,
    "Assign IAM roles to Kubernetes service accounts"): `issuer` is the provider's URL without
    https://. A `*` in `service_account` or `namespace` matches with StringLike. `sagemaker`: the
    role is SageMaker's to assume too (the inference operator's execution and gated-model roles)."""
    test = "StringLike" if "*" in service_account or "*" in namespace else "StringEquals"
    statements: list[dict] = [
        {
            "Sid": "ServiceAccountOfTheCluster",
            "Effect": "Allow",
            "Principal": {"Federated": oidc_provider_arn},
            "Action": "sts:AssumeRoleWithWebIdentity",
            "Condition": {
                test: {
                    f"{issuer}:aud": "sts.amazonaws.com",
                    f"{issuer}:sub": f"system:serviceaccount:{namespace}:{service_account}",
                }
            },
        }
    ]
    if sagemaker:
        statements.insert(
            0,
            {
                "Sid": "SageMaker",
                "Effect": "Allow",
                "Principal": {"Service": "sagemaker.amazonaws.com"},
                "Action": "sts:AssumeRole",
            },
        )
    return {"Version": "2012-10-17", "Statement": statements}


def no_team_data_policy(buckets: list[str], partition: str = "aws") -> dict:
    """A deny of the teams' data, for a platform role that carries an AWS managed policy whose S3 grants
    the stacks cannot narrow (the inference operator's AmazonSageMakerHyperPodInferenceAccess, the gated
    models' AmazonSageMakerHyperPodGatedModelAccess; AWS's own troubleshooting page gives the operator
    s3:GetObject on `*`): nothing of a team's bucket, no key tagged with a team. The operator loads no
    team's model from S3 (rbac._model_source_validation), so it needs none."""
    statements: list[dict] = [
        {
            "Sid": "NoTeamsKeys",
            "Effect": "Deny",
            "Action": ["kms:Decrypt", "kms:GenerateDataKey", "kms:ReEncryptFrom"],
            "Resource": "*",
            "Condition": {"Null": {f"aws:ResourceTag/{naming.TAG_TEAM}": "false"}},
        }
    ]
    if buckets:
        arns = [f"arn:{partition}:s3:::{b}" for b in buckets]
        statements.insert(
            0,
            {"Sid": "NoTeamsData", "Effect": "Deny", "Action": "s3:*", "Resource": [*arns, *(f"{a}/*" for a in arns)]},
        )
    return {"Version": "2012-10-17", "Statement": statements}


def inference_tls_bucket_policy(bucket: str, account_id: str, partition: str = "aws") -> dict:
    """The operator's own access to the bucket of the endpoints' TLS certificates (sagemaker-hyperpod-cli's
    migration script, TLSBucketsAccess): read, write (with tags) and delete certificates there, in the
    account's own bucket only (the script's `${aws:PrincipalAccount}`, written out: Terraform would read
    `${...}` as its own interpolation)."""
    objects = f"arn:{partition}:s3:::{bucket}/*"
    own = {"StringEquals": {"aws:ResourceAccount": account_id}}
    return {
        "Version": "2012-10-17",
        "Statement": [
            {"Sid": "ReadCertificates", "Effect": "Allow", "Action": ["s3:GetObject"], "Resource": [objects]},
            {
                "Sid": "WriteCertificates",
                "Effect": "Allow",
                "Action": ["s3:PutObject", "s3:PutObjectTagging", "s3:DeleteObject"],
                "Resource": [objects],
                "Condition": own,
            },
        ],
    }


def keda_policy(*, partition: str, account_id: str, region: str) -> dict:
    """KEDA scales endpoints on CloudWatch or Prometheus metrics (the reference's Keda-Policy): CloudWatch's
    metric reads take no resource (Service Authorization Reference), Prometheus queries are held to the
    account's workspaces in the region."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "ReadCloudWatchMetrics",
                "Effect": "Allow",
                "Action": list(METRIC_READ_ACTIONS),
                "Resource": "*",
                "Condition": _in_region(region),
            },
            {
                "Sid": "QueryPrometheus",
                "Effect": "Allow",
                "Action": ["aps:GetLabels", "aps:GetMetricMetadata", "aps:GetSeries", "aps:QueryMetrics"],
                "Resource": [f"arn:{partition}:aps:{region}:{account_id}:workspace/*"],
            },
        ],
    }


#: Reads without a resource type (Service Authorization Reference): `*` is their only resource, so
#: they are held to the spec's region. CloudWatch metric reads (KEDA's triggers, Grafana's panels), the
#: Prometheus workspace list (Grafana), and what the load balancer controller reads of the network.
METRIC_READ_ACTIONS = ("cloudwatch:GetMetricData", "cloudwatch:GetMetricStatistics", "cloudwatch:ListMetrics")
PROMETHEUS_LIST_ACTIONS = ("aps:ListWorkspaces",)
LOG_GROUP_LIST_ACTIONS = ("logs:DescribeLogGroups",)
ALB_DESCRIBE_ACTIONS = tuple(
    f"ec2:{a}"
    for a in (
        "DescribeAccountAttributes", "DescribeAddresses", "DescribeAvailabilityZones", "DescribeCoipPools",
        "DescribeInstances", "DescribeInternetGateways", "DescribeIpamPools", "DescribeNetworkInterfaces",
        "DescribeRouteTables", "DescribeSecurityGroups", "DescribeSubnets", "DescribeTags",
        "DescribeVpcPeeringConnections", "DescribeVpcs",
    )
) + tuple(
    f"elasticloadbalancing:{a}"
    for a in (
        "DescribeCapacityReservation", "DescribeListenerAttributes", "DescribeListenerCertificates",
        "DescribeListeners", "DescribeLoadBalancerAttributes", "DescribeLoadBalancers", "DescribeRules",
        "DescribeSSLPolicies", "DescribeTags", "DescribeTargetGroupAttributes", "DescribeTargetGroups",
        "DescribeTargetHealth", "DescribeTrustStores",
    )
) + ("acm:ListCertificates", "iam:ListServerCertificates")  # fmt: skip
_ALB_TAG = "elbv2.k8s.aws/cluster"


def _in_region(region: str) -> dict:
    return {"StringEquals": {"aws:RequestedRegion": region}}


def alb_controller_policy(*, partition: str, account_id: str, region: str) -> dict:
    """What the AWS Load Balancer Controller bundled with the inference add-on needs to put a load
    balancer in front of an endpoint (its IAM policy, kubernetes-sigs/aws-load-balancer-controller, as the
    reference module writes it), held to the account and region: read the network; create security
    groups, load balancers and target groups tagged with its cluster tag; change and delete only what
    carries that tag. Left out: WAF, Shield and Cognito (no endpoint of a team asks for them)."""
    ec2 = f"arn:{partition}:ec2:{region}:{account_id}"
    elb = f"arn:{partition}:elasticloadbalancing:{region}:{account_id}"
    balancers = [f"{elb}:targetgroup/*/*", f"{elb}:loadbalancer/net/*/*", f"{elb}:loadbalancer/app/*/*"]
    listeners = [f"{elb}:listener/*/*/*/*", f"{elb}:listener-rule/*/*/*/*/*"]
    groups = f"{ec2}:security-group/*"
    tagged = {"Null": {f"aws:ResourceTag/{_ALB_TAG}": "false"}}
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "LoadBalancingServiceLinkedRole",
                "Effect": "Allow",
                "Action": "iam:CreateServiceLinkedRole",
                "Resource": f"arn:{partition}:iam::{account_id}:role/aws-service-role/"
                "elasticloadbalancing.amazonaws.com/AWSServiceRoleForElasticLoadBalancing",
                "Condition": {"StringEquals": {"iam:AWSServiceName": "elasticloadbalancing.amazonaws.com"}},
            },
            {
                "Sid": "ReadTheNetwork",
                "Effect": "Allow",
                "Action": list(ALB_DESCRIBE_ACTIONS),
                "Resource": "*",
                "Condition": _in_region(region),
            },
            {
                "Sid": "ReadSecurityGroupsOfTheVpcs",
                "Effect": "Allow",
                "Action": ["ec2:GetSecurityGroupsForVpc"],
                "Resource": [f"{ec2}:vpc/*", groups],
            },
            {
                "Sid": "ReadCertificates",
                "Effect": "Allow",
                "Action": ["acm:DescribeCertificate", "iam:GetServerCertificate"],
                "Resource": [
                    f"arn:{partition}:acm:{region}:{account_id}:certificate/*",
                    f"arn:{partition}:iam::{account_id}:server-certificate/*",
                ],
            },
            {
                "Sid": "CreateSecurityGroupsTagged",
                "Effect": "Allow",
                "Action": ["ec2:CreateSecurityGroup"],
                "Resource": [groups, f"{ec2}:vpc/*"],
            },
            {
                "Sid": "TagSecurityGroupsItCreates",
                "Effect": "Allow",
                "Action": "ec2:CreateTags",
                "Resource": groups,
                "Condition": {
                    "StringEquals": {"ec2:CreateAction": "CreateSecurityGroup"},
                    "Null": {f"aws:RequestTag/{_ALB_TAG}": "false"},
                },
            },
            {
                # The targets' security groups (the nodes') let the balancer in: the controller adds rules
                # to groups it did not create.
                "Sid": "OpenTargetsToItsBalancers",
                "Effect": "Allow",
                "Action": ["ec2:AuthorizeSecurityGroupIngress", "ec2:RevokeSecurityGroupIngress"],
                "Resource": groups,
            },
            {
                "Sid": "ManageItsSecurityGroups",
                "Effect": "Allow",
                "Action": ["ec2:CreateTags", "ec2:DeleteTags", "ec2:DeleteSecurityGroup"],
                "Resource": groups,
                "Condition": tagged,
            },
            {
                "Sid": "CreateBalancersTagged",
                "Effect": "Allow",
                "Action": ["elasticloadbalancing:CreateLoadBalancer", "elasticloadbalancing:CreateTargetGroup"],
                "Resource": balancers,
                "Condition": {"Null": {f"aws:RequestTag/{_ALB_TAG}": "false"}},
            },
            {
                "Sid": "TagWhileCreating",
                "Effect": "Allow",
                "Action": "elasticloadbalancing:AddTags",
                "Resource": balancers,
                "Condition": {
                    "StringEquals": {"elasticloadbalancing:CreateAction": ["CreateTargetGroup", "CreateLoadBalancer"]},
                    "Null": {f"aws:RequestTag/{_ALB_TAG}": "false"},
                },
            },
            {
                "Sid": "ManageItsBalancers",
                "Effect": "Allow",
                "Action": [
                    "elasticloadbalancing:AddTags",
                    "elasticloadbalancing:RemoveTags",
                    "elasticloadbalancing:DeleteLoadBalancer",
                    "elasticloadbalancing:DeleteTargetGroup",
                    "elasticloadbalancing:ModifyCapacityReservation",
                    "elasticloadbalancing:ModifyLoadBalancerAttributes",
                    "elasticloadbalancing:ModifyTargetGroup",
                    "elasticloadbalancing:ModifyTargetGroupAttributes",
                    "elasticloadbalancing:SetIpAddressType",
                    "elasticloadbalancing:SetSecurityGroups",
                    "elasticloadbalancing:SetSubnets",
                ],
                "Resource": balancers,
                "Condition": tagged,
            },  # fmt: skip
            {
                "Sid": "ListenersAndRulesOfItsBalancers",
                "Effect": "Allow",
                "Action": [
                    "elasticloadbalancing:AddListenerCertificates",
                    "elasticloadbalancing:AddTags",
                    "elasticloadbalancing:CreateListener",
                    "elasticloadbalancing:CreateRule",
                    "elasticloadbalancing:DeleteListener",
                    "elasticloadbalancing:DeleteRule",
                    "elasticloadbalancing:ModifyListener",
                    "elasticloadbalancing:ModifyListenerAttributes",
                    "elasticloadbalancing:ModifyRule",
                    "elasticloadbalancing:RemoveListenerCertificates",
                    "elasticloadbalancing:RemoveTags",
                    "elasticloadbalancing:SetRulePriorities",
                ],
                "Resource": [*balancers, *listeners],
            },  # fmt: skip
            {
                "Sid": "RegisterTargets",
                "Effect": "Allow",
                "Action": ["elasticloadbalancing:DeregisterTargets", "elasticloadbalancing:RegisterTargets"],
                "Resource": f"{elb}:targetgroup/*/*",
            },
        ],
    }


def s3_csi_policy() -> dict:
    """The Mountpoint for S3 CSI driver's own role reads no bucket. One role for every mount would read
    every team's bucket, and its token sits on every node: a team's data is mounted instead with the
    credentials of the pod that mounts it (isolation.team_data_volume_manifests, `authenticationSource:
    pod`), and the inference operator's S3 model source, which mounts with the driver's credentials, is
    refused in a team namespace (rbac._model_source_validation). The reference grants every bucket of
    every account (EKS user guide, "Deploy the Mountpoint for Amazon S3 driver")."""
    return {"Version": "2012-10-17", "Statement": [_NOTHING]}


#: A statement that grants nothing, for a policy whose grants are all conditional on the spec.
_NOTHING = {"Sid": "Nothing", "Effect": "Deny", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::nothing/nothing"}


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
            {
                "Sid": "FindClusterLogGroups",
                "Effect": "Allow",
                "Action": list(LOG_GROUP_LIST_ACTIONS),
                "Resource": "*",
                "Condition": _in_region(region),
            },
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
            {
                "Sid": "ListPrometheus",
                "Effect": "Allow",
                "Action": list(PROMETHEUS_LIST_ACTIONS),
                "Resource": "*",
                "Condition": _in_region(region),
            },
            {
                "Sid": "ReadCloudWatchMetrics",
                "Effect": "Allow",
                "Action": list(METRIC_READ_ACTIONS),
                "Resource": "*",
                "Condition": _in_region(region),
            },
        ],
    }
