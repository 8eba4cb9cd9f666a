"""The team journeys run as the team members run them, against the emulator tier's deployed stacks
with IAM enforced (authorization.py): the real HyperPod CLI (`hyp`, PyPI `sagemaker-hyperpod`, the
release the dependency chart pins) and the real AWS CLI for the Studio steps AWS's pages name, each
as a session of the role the member gets: the Identity Center role of the team's permission set
(scientists, admins) or the team's Studio execution role.

A session is had with sts:AssumeRole on that role (in AWS, Identity Center's sign-in makes it with
AssumeRoleWithSAML; what the session may do is the same: the role's policies). Every step runs for
the own team, expecting it allowed, and, where a step names a team's resource, for another team's,
expecting it refused. Steps that need the Kubernetes API are checked against the team RBAC in
tests/test_team_journeys.py: the emulator has no Kubernetes API server.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from hyperpod_teams import naming
from tests.emulator.hyp import run_cli
from tests.emulator.kubernetes_api import KubernetesApi

#: The exit status of a step, read as the member reads it.
ALLOWED, DENIED = "allowed", "denied"


@dataclass
class Step:
    who: str  # "nlp scientists", "vision execution role"
    step: str
    expected: str
    got: str
    output: str
    #: The AWS calls the step made, as IAM decided them: (action, allowed).
    calls: list[tuple[str, bool]] = field(default_factory=list)
    #: The Kubernetes requests it made, as RBAC decided them: ("verb resource namespace/name", allowed).
    kubernetes: list[tuple[str, bool]] = field(default_factory=list)

    @property
    def as_expected(self) -> bool:
        return self.expected == self.got


def kubernetes_request(decision: dict) -> str:
    """A Kubernetes decision as a step lists it: `verb resource namespace/name` (the group left out)."""
    where = "/".join(part for part in (decision["namespace"], decision["name"]) if part)
    what = decision["resource"] or decision["path"]
    return " ".join(part for part in (decision["verb"], what, where) if part)


class Member:
    """A session of one role, and the commands a member runs with it."""

    def __init__(
        self,
        who: str,
        credentials: dict,
        *,
        endpoint: str,
        region: str,
        home: Path,
        cli_bin: Path,
        kubernetes: KubernetesApi | None = None,
    ) -> None:
        self.who = who
        self.kubernetes = kubernetes
        home.mkdir(parents=True, exist_ok=True)
        from tests.emulator.deployment import session_env

        self.env = {
            "PATH": f"{cli_bin}:/usr/bin:/bin",
            "HOME": str(home),
            "KUBECONFIG": str(home / ".kube" / "config"),
            **session_env(credentials),
            "AWS_DEFAULT_REGION": region,
            "AWS_REGION": region,
            "AWS_ENDPOINT_URL": endpoint,
            "AWS_CONFIG_FILE": str(home / "no-aws-config"),
            "AWS_SHARED_CREDENTIALS_FILE": str(home / "no-aws-credentials"),
            "AWS_MAX_ATTEMPTS": "1",
            # Nothing of a test run leaves the machine: the HyperPod CLI sends telemetry to an S3 URL
            # on every command (sagemaker/hyperpod/common/telemetry/telemetry_logging.py, no opt-out).
            "HTTP_PROXY": "http://127.0.0.1:9",
            "HTTPS_PROXY": "http://127.0.0.1:9",
            "NO_PROXY": "127.0.0.1,localhost",
            "PYTHONWARNINGS": "ignore",
        }
        self.cli_bin = cli_bin
        self.endpoint = endpoint

    def run(self, *command: str) -> subprocess.CompletedProcess:
        return run_cli(self.cli_bin, command, env=self.env, cwd=self.env["HOME"])

    def step(
        self,
        step: str,
        expected: str,
        *command: str,
        refused_by_design: tuple[str, ...] = (),
        runs_here: bool = True,
    ) -> Step:
        """Run one step and judge it by every request it made, never by the exit code alone (the
        CLIs swallow errors). It is allowed when IAM allowed every AWS call, RBAC every Kubernetes
        request but those `refused_by_design` (requests, as `kubernetes_request` writes them, that
        must be refused and that the CLI goes on without), and the command succeeded; denied when
        IAM or RBAC refused another request (the CLI may go on: `hyp` falls back when iam:GetRole is
        refused, and fails later). A command that cannot run here once authorized (`runs_here`
        False: `hyp exec`, no container runs in the tier) is judged by its decisions alone."""
        before = len(decisions(self.endpoint))
        k8s_before = len(self.kubernetes.decisions) if self.kubernetes else 0
        result = self.run(*command)
        calls = [(d["action"], d["allowed"]) for d in decisions(self.endpoint)[before:]]
        # The member's own requests: what the controllers then do for the work (the pods they create,
        # as their service accounts) is theirs, decided apart (tests/test_tenant_isolation.py).
        k8s = (
            [
                (kubernetes_request(d), d["allowed"])
                for d in self.kubernetes.decisions_since(k8s_before)
                if not d["user"].startswith("system:serviceaccount:")
            ]
            if self.kubernetes
            else []
        )
        output = (result.stdout + result.stderr)[-3000:]
        refused = [action for action, allowed in calls if not allowed]
        refused += [request for request, allowed in k8s if not allowed and request not in refused_by_design]
        let_through = [request for request, allowed in k8s if allowed and request in refused_by_design]
        if refused:
            got = DENIED
        elif let_through:
            got = f"allowed what must be refused: {', '.join(let_through)}"
        elif (result.returncode == 0 or not runs_here) and (calls or k8s):
            got = ALLOWED
        else:
            got = f"failed (exit {result.returncode}, {len(calls)} AWS calls, {len(k8s)} Kubernetes requests)"
        return Step(self.who, step, expected, got, f"$ {' '.join(command)}\n{output}", calls, k8s)


class Account:
    """The emulated account, as the administrator who deployed it: its clients, and a member's
    session of one of its roles."""

    def __init__(self, spec, *, endpoint: str, cli_bin: Path) -> None:
        import boto3

        self.spec, self.endpoint, self.cli_bin = spec, endpoint, cli_bin
        self.region = spec.organization.region
        self.session = boto3.Session(
            aws_access_key_id="testing", aws_secret_access_key="testing", region_name=self.region
        )
        self.iam = self.client("iam")
        #: The HyperPod cluster the members connect to.
        self.cluster = spec.cluster.existing_hyperpod_cluster_name or spec.cluster.name

    def client(self, service: str, account: str | None = None):
        """An administrator's client; of `account` of the organization when given (moto's
        `x-moto-account-id`), else of the workload account."""
        from tests.emulator.deployment import in_account

        return in_account(self.session.client(service, endpoint_url=self.endpoint), account)

    def sso_role_arn(self, permission_set: str) -> str:
        """The role Identity Center made for the permission set (its name ends in a hash)."""
        roles = self.iam.list_roles(PathPrefix=naming.SSO_ROLE_PATH)["Roles"]
        (arn,) = [r["Arn"] for r in roles if r["RoleName"].startswith(f"AWSReservedSSO_{permission_set}_")]
        return arn

    def member(self, who: str, role_arn: str, home: Path, kubernetes: KubernetesApi | None = None) -> Member:
        credentials = self.client("sts").assume_role(RoleArn=role_arn, RoleSessionName="member")["Credentials"]
        return Member(
            who,
            credentials,
            endpoint=self.endpoint,
            region=self.region,
            home=home,
            cli_bin=self.cli_bin,
            kubernetes=kubernetes,
        )


def pytorch_job_week(m: Member, *, namespace: str, queue: str, expected: str, scientist: bool) -> list[Step]:
    """A PyTorch job's week with `hyp` in `namespace` (docs/team-journeys.md): submit it to the
    team's queue as the team's workload identity, list, describe, list its pods, read a pod's log,
    delete it. `hyp delete` then removes the job's ConfigMap, errors ignored: scientists manage no
    ConfigMaps, so that request must be refused to them and the step is still allowed."""
    job, ns = "bert-pretrain", ("--namespace", namespace)
    cleanup = (f"delete configmaps {namespace}/training-config-{job}",) if scientist else ()
    return [
        m.step("hyp create hyp-pytorch-job without --queue-name (outside the team's quota)", DENIED,
               "hyp", "create", "hyp-pytorch-job", "--job-name", "no-queue", *ns, "--image", "trainer:1"),
        m.step("hyp create hyp-pytorch-job", expected,
               "hyp", "create", "hyp-pytorch-job", "--job-name", job, *ns, "--queue-name", queue,
               "--service-account-name", naming.TEAM_SERVICE_ACCOUNT, "--image", "trainer:1"),
        m.step("hyp list hyp-pytorch-job", expected, "hyp", "list", "hyp-pytorch-job", *ns),
        m.step("hyp describe hyp-pytorch-job", expected, "hyp", "describe", "hyp-pytorch-job", "--job-name", job, *ns),
        m.step("hyp list-pods hyp-pytorch-job", expected,
               "hyp", "list-pods", "hyp-pytorch-job", "--job-name", job, *ns),
        m.step("hyp get-logs hyp-pytorch-job", expected,
               "hyp", "get-logs", "hyp-pytorch-job", "--job-name", job, "--pod-name", f"{job}-pod-0", *ns),
        # Admins only; authorized, then the tier's API answers 400: no container runs there.
        m.step("hyp exec hyp-pytorch-job", expected if not scientist else DENIED,
               "hyp", "exec", "hyp-pytorch-job", "--job-name", job, "--pod", f"{job}-pod-0", *ns, "--", "date",
               runs_here=False),
        m.step("hyp delete hyp-pytorch-job", expected,
               "hyp", "delete", "hyp-pytorch-job", "--job-name", job, *ns, refused_by_design=cleanup),
    ]  # fmt: skip


def data_steps(m: Member, *, own_bucket: str, other_bucket: str, other: str) -> list[Step]:
    """Write, list and read a dataset in the team's bucket (encrypted with the team's data key:
    S3 asks KMS with the caller's permissions), and the same in the other team's (refused)."""
    dataset = Path(m.env["HOME"]) / "train.jsonl"
    dataset.write_text('{"text": "hello"}\n')
    return [
        m.step("write a dataset to the team's bucket", ALLOWED,
               "aws", "s3", "cp", str(dataset), f"s3://{own_bucket}/datasets/train.jsonl"),
        m.step("list the team's bucket", ALLOWED, "aws", "s3", "ls", f"s3://{own_bucket}/datasets/"),
        m.step("read the dataset back", ALLOWED,
               "aws", "s3", "cp", f"s3://{own_bucket}/datasets/train.jsonl", str(dataset.with_suffix(".copy"))),
        m.step(f"write to {other}'s bucket", DENIED,
               "aws", "s3", "cp", str(dataset), f"s3://{other_bucket}/datasets/planted.jsonl"),
        m.step(f"list {other}'s bucket", DENIED, "aws", "s3", "ls", f"s3://{other_bucket}/"),
    ]  # fmt: skip


def namespace_labels(stacks: dict[str, dict]) -> dict[str, dict[str, str]]:
    """The labels the Kubernetes stacks hold on the team namespaces (kubernetes_labels on a namespace
    task governance made; a namespace a stack creates carries its own)."""
    labels: dict[str, dict[str, str]] = {}
    for stack in stacks.values():
        resources = stack.get("resource", {})
        for body in resources.get("kubernetes_labels", {}).values():
            if body["kind"] == "Namespace":
                labels.setdefault(body["metadata"]["name"], {}).update(body["labels"])
        for body in resources.get("kubernetes_namespace_v1", {}).values():
            metadata = body["metadata"][0] if isinstance(body["metadata"], list) else body["metadata"]
            labels.setdefault(metadata["name"], {}).update(metadata.get("labels") or {})
    return labels


def start_kubernetes_api(spec, *, endpoint: str, stacks: dict[str, dict], teams: tuple[str, ...]) -> KubernetesApi:
    """The EKS cluster's Kubernetes API with the RBAC and the admission policies the stacks deploy
    (read back from the synthesized Kubernetes stacks), the team namespaces and the job CRD, and
    DescribeCluster's endpoint pointed at it."""
    import urllib.request

    from hyperpod_teams import addons
    from tests.emulator import kubernetes_api
    from tests.test_kubernetes_rbac import admission_manifests, rbac_manifests

    eks = naming.shared_eks_cluster_name(spec.cluster)
    region = spec.organization.region
    store = kubernetes_api.Store()
    kubernetes_api.seed(
        store,
        namespaces=[naming.team_namespace(t) for t in teams],
        crds=[addons.TRAINING_JOB_CRD],
        labels=namespace_labels(stacks),
    )
    api = kubernetes_api.KubernetesApi(
        authenticator=kubernetes_api.Authenticator(
            emulator_url=endpoint, region=region, cluster=eks, account_id=spec.organization.account_id
        ),
        rbac=kubernetes_api.Rbac(rbac_manifests(stacks)),
        store=store,
        admission=kubernetes_api.Admission(admission_manifests(stacks)),
    ).start()
    body = json.dumps({"region": region, "cluster": eks, "endpoint": api.url}).encode()
    request = urllib.request.Request(f"{endpoint}/_emulator/kubernetes-api", data=body, method="POST")
    with urllib.request.urlopen(request, timeout=30) as answer:
        answer.read()
    return api


def run_journeys(
    spec, *, endpoint: str, work: Path, cli_bin: Path, teams: tuple[str, str], kubernetes: KubernetesApi | None = None
) -> list[Step]:
    """Every step, as scientists and admins of `teams[0]` (each against `teams[1]` where a step names
    a team's resource) and as `teams[0]`'s Studio execution role; the Kubernetes steps where
    `kubernetes` serves the EKS cluster."""
    account = Account(spec, endpoint=endpoint, cli_bin=cli_bin)
    org, region, cluster = spec.organization.name, account.region, account.cluster
    sagemaker = account.client("sagemaker")
    domains = {d["DomainName"]: d["DomainId"] for d in sagemaker.list_domains()["Domains"]}
    own, other = teams
    own_domain, other_domain = (domains[naming.team_domain_name(org, t)] for t in teams)
    eks = naming.shared_eks_cluster_name(spec.cluster)
    steps: list[Step] = []

    def member(who: str, role_arn: str) -> Member:
        return account.member(who, role_arn, work / who.replace(" ", "-"), kubernetes)

    def domain_tags(domain_id: str) -> list[dict]:
        """The domain's tags, as Studio adds them to what it creates there (tag propagation)."""
        return sagemaker.list_tags(ResourceArn=sagemaker.describe_domain(DomainId=domain_id)["DomainArn"])["Tags"]

    def as_cli(tags: list[dict]) -> list[str]:
        return [f"Key={t['Key']},Value={t['Value']}" for t in tags]

    for role in ("scientists", "admins"):
        permission_set = naming.team_permission_set_name(org, spec.team(own), role)
        m = member(f"{own} {role}", account.sso_role_arn(permission_set))
        connected = m.step(f"hyp set-cluster-context --cluster-name {cluster}", ALLOWED,
                           "hyp", "set-cluster-context", "--cluster-name", cluster, "--region", region)  # fmt: skip
        kubeconfig = Path(m.env["KUBECONFIG"])
        if connected.got == ALLOWED and f"cluster/{eks}" not in (kubeconfig.read_text() if kubeconfig.exists() else ""):
            connected.got = "failed (no kubeconfig context for the EKS cluster)"
        steps += [
            connected,
            m.step("hyp describe cluster", ALLOWED, "hyp", "describe", "cluster", cluster, "--region", region),
            m.step("open the team's domain (describe-domain)", ALLOWED,
                   "aws", "sagemaker", "describe-domain", "--domain-id", own_domain),
            m.step(f"open {other}'s domain (describe-domain)", DENIED,
                   "aws", "sagemaker", "describe-domain", "--domain-id", other_domain),
        ]  # fmt: skip

        if kubernetes is not None and connected.got == ALLOWED:
            scientist = role == "scientists"
            steps += pytorch_job_week(m, namespace=naming.team_namespace(own), queue=naming.team_local_queue(own),
                                      expected=ALLOWED, scientist=scientist)  # fmt: skip
            theirs = pytorch_job_week(m, namespace=naming.team_namespace(other), queue=naming.team_local_queue(other),
                                      expected=DENIED, scientist=scientist)  # fmt: skip
            for step in theirs:
                step.step = f"{step.step} in {other}'s namespace"
            steps += theirs

        if role == "admins":
            # What the admins manage in the team's domain is the customer managed policy the team
            # stack attached to their permission set: it names the domain's ID.
            tags = as_cli(domain_tags(own_domain))
            steps += [
                m.step("admins create a shared space in the team's domain", ALLOWED,
                       "aws", "sagemaker", "create-space", "--domain-id", own_domain, "--space-name", "team-shared",
                       "--tags", *tags),
                m.step(f"admins create a space in {other}'s domain, tagged as their own team's", DENIED,
                       "aws", "sagemaker", "create-space", "--domain-id", other_domain, "--space-name", "planted",
                       "--tags", *tags),
            ]  # fmt: skip

    execution_role = account.iam.get_role(RoleName=naming.team_execution_role_name(org, own))["Role"]["Arn"]
    studio = member(f"{own} execution role", execution_role)

    # A space of the other team's, as its own member made it.
    sagemaker.create_space(DomainId=other_domain, SpaceName="theirs", Tags=domain_tags(other_domain))
    own_tags = as_cli(domain_tags(own_domain))
    space = ("--domain-id", own_domain, "--space-name", "mine")
    app = (*space, "--app-type", "JupyterLab", "--app-name", "default")
    steps += [
        studio.step("Studio lists the team's spaces", ALLOWED,
                    "aws", "sagemaker", "list-spaces", "--domain-id-equals", own_domain),
        studio.step("Studio creates a private space in the team's domain", ALLOWED,
                    "aws", "sagemaker", "create-space", *space, "--tags", *own_tags),
        studio.step("Studio opens it (describe-space)", ALLOWED, "aws", "sagemaker", "describe-space", *space),
        studio.step("Studio starts its JupyterLab app", ALLOWED,
                    "aws", "sagemaker", "create-app", *app, "--tags", *own_tags),
        studio.step("Studio reads the app", ALLOWED, "aws", "sagemaker", "describe-app", *app),
        studio.step(f"Studio opens {other}'s space", DENIED,
                    "aws", "sagemaker", "describe-space", "--domain-id", other_domain, "--space-name", "theirs"),
        studio.step(f"Studio creates a space in {other}'s domain, tagged as its own team's", DENIED,
                    "aws", "sagemaker", "create-space", "--domain-id", other_domain, "--space-name", "planted",
                    "--tags", *own_tags),
    ]  # fmt: skip
    steps += [
        studio.step("Studio lists the domains", ALLOWED, "aws", "sagemaker", "list-domains"),
        studio.step("Studio describes the team's domain", ALLOWED,
                    "aws", "sagemaker", "describe-domain", "--domain-id", own_domain),
        studio.step(f"Studio describes {other}'s domain", DENIED,
                    "aws", "sagemaker", "describe-domain", "--domain-id", other_domain),
        studio.step("Studio lists the HyperPod clusters", ALLOWED, "aws", "sagemaker", "list-clusters"),
        studio.step("Studio describes the HyperPod cluster", ALLOWED,
                    "aws", "sagemaker", "describe-cluster", "--cluster-name", cluster),
        studio.step("Studio describes the EKS cluster", ALLOWED, "aws", "eks", "describe-cluster", "--name", eks),
        studio.step("Studio reads the VPC CNI add-on", ALLOWED,
                    "aws", "eks", "describe-addon", "--cluster-name", eks, "--addon-name", "vpc-cni"),
        studio.step("Studio reads the cluster's subnets", ALLOWED, "aws", "ec2", "describe-subnets"),
    ]  # fmt: skip
    # The team's data, from a Studio space (the execution role) and as a job's pods get it (the
    # workload role: in AWS the Pod Identity agent hands the pods its credentials; here a session of
    # the role stands for them).
    buckets = {t: naming.team_data_bucket_name(org, t, spec.organization.account_id, region) for t in (own, other)}
    workload = member(
        f"{own} workload role",
        account.iam.get_role(RoleName=naming.team_workload_role_name(org, own))["Role"]["Arn"],
    )
    for who in (workload, studio):
        steps += data_steps(who, own_bucket=buckets[own], other_bucket=buckets[other], other=other)

    # hyp in a Studio space runs as the execution role, which maps to the team scientists' group.
    connected = studio.step("hyp set-cluster-context in a Studio space", ALLOWED,
                            "hyp", "set-cluster-context", "--cluster-name", cluster, "--region", region)  # fmt: skip
    steps.append(connected)
    if kubernetes is not None and connected.got == ALLOWED:
        steps += [
            studio.step("hyp list hyp-pytorch-job from a Studio space", ALLOWED,
                        "hyp", "list", "hyp-pytorch-job", "--namespace", naming.team_namespace(own)),
            studio.step(f"hyp list hyp-pytorch-job from a Studio space in {other}'s namespace", DENIED,
                        "hyp", "list", "hyp-pytorch-job", "--namespace", naming.team_namespace(other)),
        ]  # fmt: skip
    return steps


def without_grant(spec, *, endpoint: str, work: Path, cli_bin: Path, team: str, sid: str = "CheckTheOwnEksAccessEntry"):
    """`hyp set-cluster-context` as the team's scientists after `sid` is taken out of their permission
    set's inline policy and the set provisioned again (what an administrator's edit would do); the
    policy is put back afterwards."""
    account = Account(spec, endpoint=endpoint, cli_bin=cli_bin)
    sso = account.client("sso-admin", spec.organization.identity_center_account)  # where it is administered
    instance = spec.identity.identity_center.instance_arn
    name = naming.team_permission_set_name(spec.organization.name, spec.team(team), "scientists")
    (permission_set,) = [
        arn
        for arn in sso.list_permission_sets(InstanceArn=instance)["PermissionSets"]
        if sso.describe_permission_set(InstanceArn=instance, PermissionSetArn=arn)["PermissionSet"]["Name"] == name
    ]
    kept = sso.get_inline_policy_for_permission_set(InstanceArn=instance, PermissionSetArn=permission_set)
    policy = json.loads(kept["InlinePolicy"])
    policy["Statement"] = [s for s in policy["Statement"] if s.get("Sid") != sid]

    def provision(document: str) -> None:
        sso.put_inline_policy_to_permission_set(
            InstanceArn=instance, PermissionSetArn=permission_set, InlinePolicy=document
        )
        sso.provision_permission_set(
            InstanceArn=instance, PermissionSetArn=permission_set, TargetType="ALL_PROVISIONED_ACCOUNTS"
        )

    provision(json.dumps(policy))
    try:
        member = account.member(f"{team} scientists", account.sso_role_arn(name), work)
        return member.step(
            f"hyp set-cluster-context without {sid}", DENIED,
            "hyp", "set-cluster-context", "--cluster-name", account.cluster, "--region", account.region,
        )  # fmt: skip
    finally:
        provision(kept["InlinePolicy"])


def summary(steps: list[Step]) -> str:
    """The tier's line: steps as expected, and the decisions behind them, AWS's and Kubernetes' apart."""
    good = [s for s in steps if s.as_expected]
    allowed = sum(s.expected == ALLOWED for s in good)
    aws = [ok for s in steps for _, ok in s.calls]
    k8s = [ok for s in steps for _, ok in s.kubernetes]
    return (
        f"journeys: {len(good)}/{len(steps)} steps as expected ({allowed} allowed, {len(good) - allowed} denied); "
        f"AWS: {sum(aws)} calls allowed, {len(aws) - sum(aws)} refused; "
        f"Kubernetes: {sum(k8s)} requests allowed, {len(k8s) - sum(k8s)} refused"
    )


def decisions(endpoint: str) -> list[dict]:
    import urllib.request

    with urllib.request.urlopen(f"{endpoint}/_emulator/decisions", timeout=30) as answer:
        return json.loads(answer.read())["decisions"]


def hyp_cli_bin() -> Path | None:
    """The folder of the journey tier's `hyp` and `aws` (`make test` installs them in .venv-journey)."""
    configured = os.environ.get("HYPERPOD_TEAMS_JOURNEY_BIN")
    folder = Path(configured) if configured else Path(__file__).resolve().parents[2] / ".venv-journey" / "bin"
    return folder if (folder / "hyp").exists() and (folder / "aws").exists() else None
