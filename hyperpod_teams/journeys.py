"""How a team member gets in: each step of their journeys, the calls it makes, where those calls are
made (the HyperPod CLI's own code, PyPI sagemaker-hyperpod 3.12.0, or AWS's Studio pages) and the
statement of the stacks' policies or the team RBAC that allows it. Pure layer: the report shows
these steps, docs/team-journeys.md explains them, tests/test_team_journeys.py evaluates every call.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The HyperPod CLI release the steps are read from, the one the journey tier installs
#: (tests/journey-requirements.txt).
HYP_RELEASE = "3.12.0"


@dataclass(frozen=True)
class Step:
    journey: str
    step: str
    calls: tuple[str, ...]
    allowed_by: str
    #: The cluster setting the step needs (`inference`, `spaces`, `observability`), if any.
    needs: str | None = None


STEPS: tuple[Step, ...] = (
    # Not `hyp list-cluster`: it lists the pods of every namespace, which the team RBAC refuses
    # (docs/team-journeys.md); the CLI swallows the refusal and prints [].
    Step(
        "hyp",
        "hyp describe cluster <cluster>",
        ("sagemaker:DescribeCluster",),
        "DescribeTheSharedHyperPodCluster",
    ),
    Step(
        "hyp",
        "hyp set-cluster-context --cluster-name <cluster>",
        (
            "sagemaker:DescribeCluster",
            "iam:GetRole (own role)",
            "eks:DescribeAccessEntry (own entry)",
            "eks:DescribeCluster",
        ),
        "DescribeTheSharedHyperPodCluster, ResolveTheOwnIdentityCenterRole, CheckTheOwnEksAccessEntry, "
        "ReachTheSharedEksCluster",
    ),
    # The Kubernetes requests of a PyTorch job's week, in the order the CLI makes them (the journey
    # tier records them: tests/emulator/kubernetes_api.py); each `hyp` command also reads the server's
    # version (GET /version, the bootstrap role system:discovery).
    Step(
        "hyp",
        "hyp create hyp-pytorch-job --namespace <team namespace> --queue-name <team local queue> "
        "--service-account-name team-workload",
        ("get customresourcedefinitions/<job CRD>", "create hyperpodpytorchjobs"),
        "the team's cluster-read ClusterRole and its Role",
    ),
    Step(
        "hyp",
        "hyp list hyp-pytorch-job --namespace <team namespace>",
        ("get namespaces/<team namespace>", "list hyperpodpytorchjobs"),
        "the team's cluster-read ClusterRole and its Role",
    ),
    Step(
        "hyp",
        "hyp describe hyp-pytorch-job --job-name <job>",
        ("get namespaces/<team namespace>", "get hyperpodpytorchjobs"),
        "the team's cluster-read ClusterRole and its Role",
    ),
    Step(
        "hyp",
        "hyp list-pods hyp-pytorch-job --job-name <job>",
        ("get namespaces/<team namespace>", "get hyperpodpytorchjobs", "list pods"),
        "the team's cluster-read ClusterRole and its Role",
    ),
    Step(
        "hyp",
        "hyp get-logs hyp-pytorch-job --job-name <job> --pod-name <pod>",
        ("get namespaces/<team namespace>", "get hyperpodpytorchjobs", "get pods/log"),
        "the team's cluster-read ClusterRole and its Role",
    ),
    Step(
        "hyp",
        "hyp exec hyp-pytorch-job --job-name <job> --pod <pod> -- <command>",
        ("get hyperpodpytorchjobs", "list pods", "get pods/exec (admins)"),
        "the team's cluster-read ClusterRole and the admins' Role",
    ),
    Step(
        "hyp",
        "hyp delete hyp-pytorch-job --job-name <job>",
        (
            "get namespaces/<team namespace>",
            "get hyperpodpytorchjobs",
            "delete hyperpodpytorchjobs",
            "delete configmaps/training-config-<job> (admins; refused to scientists, and the CLI goes on)",
        ),
        "the team's cluster-read ClusterRole and its Role",
    ),
    Step(
        "hyp",
        "hyp get-monitoring --grafana",
        ("eks:ListAddons", "eks:DescribeAddon (the observability add-on)"),
        "ReachTheSharedEksCluster, ReadTheMonitoringAddOn",
    ),
    # An endpoint's life (cluster.inference): hyp 3.12.0's endpoint templates write no labels, so under
    # task governance the member applies the resource with the team's queue label (docs/team-journeys.md).
    Step(
        "hyp",
        "kubectl apply -f <endpoint>.yaml (a JumpStartModel with the team's queue label, named <org>-<team>--<name>)",
        ("create jumpstartmodels",),
        "the team's Role; its admission policy: the queue label, the endpoint's name and the S3 model's bucket",
        needs="inference",
    ),
    Step(
        "hyp",
        "hyp list hyp-jumpstart-endpoint --namespace <team namespace>",
        ("list jumpstartmodels",),
        "the team's Role",
        needs="inference",
    ),
    Step(
        "hyp",
        "hyp get-logs hyp-jumpstart-endpoint --pod-name <pod> --namespace <team namespace>",
        ("get pods", "get pods/log"),
        "the team's Role",
        needs="inference",
    ),
    Step(
        "hyp",
        "hyp invoke hyp-custom-endpoint --endpoint-name <org>-<team>--<name> --body <json>",
        ("sagemaker:DescribeEndpoint", "sagemaker:InvokeEndpoint"),
        "InvokeTheTeamsEndpoints",
        needs="inference",
    ),
    Step(
        "hyp",
        "hyp delete hyp-jumpstart-endpoint --name <name> --namespace <team namespace>",
        ("delete jumpstartmodels",),
        "the team's Role",
        needs="inference",
    ),
    # A space (cluster.spaces).
    Step(
        "hyp",
        "hyp create hyp-space --name <space> --namespace <team namespace> --queue-name <team local queue>",
        ("eks:DescribeAddon (the Spaces add-on's version)", "create workspaces"),
        "ReadTheMonitoringAddOn; the team's Role and its access entry's AmazonSagemakerHyperpodSpacePolicy; its "
        "admission policy (queue label)",
        needs="spaces",
    ),
    Step(
        "hyp",
        "hyp create hyp-space-access --name <space> --namespace <team namespace>",
        ("create workspaceconnections",),
        "the team's Role",
        needs="spaces",
    ),
    Step(
        "hyp",
        "hyp portforward hyp-space --name <space> --namespace <team namespace>",
        ("list pods", "get pods", "create pods/portforward"),
        "the team's Role",
        needs="spaces",
    ),
    Step(
        "hyp",
        "hyp delete hyp-space --name <space> --namespace <team namespace>",
        ("delete workspaces",),
        "the team's Role",
        needs="spaces",
    ),
    Step(
        "Studio",
        "open the team's domain from the access portal",
        ("sagemaker:DescribeDomain",),
        "the team's groups' assignment to the domain's Identity Center application; SeeTheTeamsStudio",
    ),
    Step(
        "Studio",
        "create and open a private space",
        ("sagemaker:ListSpaces", "sagemaker:CreateSpace", "sagemaker:CreateApp", "sagemaker:DescribeSpace"),
        "ListWhatStudioShows, CreateOnlyTaggedWithTheTeam, ManageOnlyTheTeamsOwn (execution role)",
    ),
    Step(
        "Studio",
        "hyp set-cluster-context in a Studio space",
        (
            "sagemaker:DescribeCluster",
            "iam:GetRole (own execution role)",
            "eks:DescribeAccessEntry (own entry)",
            "eks:DescribeCluster",
        ),
        "ReadTheSharedHyperPodCluster, ResolveTheOwnExecutionRole, CheckTheOwnEksAccessEntryFromStudio, "
        "ReadTheSharedEksCluster (execution role)",
    ),
    Step(
        "data",
        "a job's pods (service account team-workload) read and write the team's bucket",
        ("s3:ListBucket", "s3:GetObject", "s3:PutObject", "kms:GenerateDataKey", "kms:Decrypt"),
        "ListTheTeamsData, ReadAndWriteTheTeamsData, UseTheTeamsKeys (workload role)",
    ),
    Step(
        "images",
        "pull the team's image <org>/<team>/<name> (docker login, docker pull)",
        ("ecr:GetAuthorizationToken", "ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer"),
        "SignInToTheRegistry, ReadTheTeamsImages",
    ),
    Step(
        "logs",
        "read a finished pod's container log in CloudWatch (cluster.cloudwatch_observability)",
        ("logs:GetLogEvents",),
        "ReadTheTeamsContainerLogs",
    ),
    Step(
        "Studio",
        "see the HyperPod cluster and its tasks",
        (
            "sagemaker:ListClusters",
            "sagemaker:DescribeCluster",
            "eks:DescribeAddon",
            "eks:AccessKubernetesApi",
            "ec2:DescribeSubnets",
        ),
        "ListWhatStudioShows, ReadTheSharedHyperPodCluster, ReadTheSharedEksCluster (execution role)",
    ),
)


def steps_of(cluster) -> list[Step]:
    """The steps of a cluster's journeys: those that need an add-on only where the spec has it."""
    return [s for s in STEPS if s.needs is None or getattr(cluster, s.needs) is not None]
