"""A team's SageMaker AI Studio execution role: the jobs, apps and spaces a member starts from the
team's domain, Studio's HyperPod page, the team's images and container logs.

Pure layer: no cdktf.
"""

from __future__ import annotations

from hyperpod_teams import naming
from hyperpod_teams.policies.documents import aws_partition, eks_arn, eks_cluster_arn, in_region_anywhere
from hyperpod_teams.policies.hyp import hyp_from_studio_statements
from hyperpod_teams.policies.workload import team_data_statements, team_keys_statement

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
        in_region_anywhere("SignInToTheRegistry", REGISTRY_SIGN_IN_ACTIONS, region),
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
                    eks_cluster_arn(partition, region, account_id, eks_cluster_name),
                    f"{eks_arn(partition, region, account_id)}:addon/{eks_cluster_name}/*",
                ],
            },
            in_region_anywhere(
                "ListWhatStudioShows", STUDIO_LIST_ACTIONS + STUDIO_METRICS_ACTIONS + STUDIO_EC2_ACTIONS, region
            ),
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
