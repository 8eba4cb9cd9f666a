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

    @property
    def as_expected(self) -> bool:
        return self.expected == self.got


class Member:
    """A session of one role, and the commands a member runs with it."""

    def __init__(self, who: str, credentials: dict, *, endpoint: str, region: str, home: Path, cli_bin: Path) -> None:
        self.who = who
        home.mkdir(parents=True, exist_ok=True)
        self.env = {
            "PATH": f"{cli_bin}:/usr/bin:/bin",
            "HOME": str(home),
            "KUBECONFIG": str(home / ".kube" / "config"),
            "AWS_ACCESS_KEY_ID": credentials["AccessKeyId"],
            "AWS_SECRET_ACCESS_KEY": credentials["SecretAccessKey"],
            "AWS_SESSION_TOKEN": credentials["SessionToken"],
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
        return subprocess.run(
            [str(self.cli_bin / command[0]), *command[1:]],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=180,
            cwd=self.env["HOME"],
        )

    def step(self, step: str, expected: str, *command: str) -> Step:
        """Run one step. It is allowed when the command succeeds and IAM allowed every AWS call it
        made; denied when IAM refused one (the CLI may go on: `hyp` falls back when iam:GetRole is
        refused, and fails later)."""
        before = len(decisions(self.endpoint))
        result = self.run(*command)
        calls = [(d["action"], d["allowed"]) for d in decisions(self.endpoint)[before:]]
        output = (result.stdout + result.stderr)[-3000:]
        refused = [action for action, allowed in calls if not allowed]
        if refused:
            got = DENIED
        elif result.returncode == 0 and calls:
            got = ALLOWED
        else:
            got = f"failed (exit {result.returncode}, {len(calls)} AWS calls)"
        return Step(self.who, step, expected, got, f"$ {' '.join(command)}\n{output}", calls)


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

    def client(self, service: str):
        return self.session.client(service, endpoint_url=self.endpoint)

    def sso_role_arn(self, permission_set: str) -> str:
        """The role Identity Center made for the permission set (its name ends in a hash)."""
        roles = self.iam.list_roles(PathPrefix=naming.SSO_ROLE_PATH)["Roles"]
        (arn,) = [r["Arn"] for r in roles if r["RoleName"].startswith(f"AWSReservedSSO_{permission_set}_")]
        return arn

    def member(self, who: str, role_arn: str, home: Path) -> Member:
        credentials = self.client("sts").assume_role(RoleArn=role_arn, RoleSessionName="member")["Credentials"]
        return Member(who, credentials, endpoint=self.endpoint, region=self.region, home=home, cli_bin=self.cli_bin)


def run_journeys(spec, *, endpoint: str, work: Path, cli_bin: Path, teams: tuple[str, str]) -> list[Step]:
    """Every step, as scientists and admins of `teams[0]` (each against `teams[1]` where a step names
    a team's resource) and as `teams[0]`'s Studio execution role."""
    account = Account(spec, endpoint=endpoint, cli_bin=cli_bin)
    org, region, cluster = spec.organization.name, account.region, account.cluster
    sagemaker = account.client("sagemaker")
    domains = {d["DomainName"]: d["DomainId"] for d in sagemaker.list_domains()["Domains"]}
    own, other = teams
    own_domain, other_domain = (domains[naming.team_domain_name(org, t)] for t in teams)
    eks = naming.shared_eks_cluster_name(spec.cluster)
    steps: list[Step] = []

    def member(who: str, role_arn: str) -> Member:
        return account.member(who, role_arn, work / who.replace(" ", "-"))

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
            m.step(f"hyp describe cluster {cluster}", ALLOWED,
                   "hyp", "describe", "cluster", cluster, "--region", region),
            m.step("open the team's domain (describe-domain)", ALLOWED,
                   "aws", "sagemaker", "describe-domain", "--domain-id", own_domain),
            m.step(f"open {other}'s domain (describe-domain)", DENIED,
                   "aws", "sagemaker", "describe-domain", "--domain-id", other_domain),
        ]  # fmt: skip

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
    return steps


def without_grant(spec, *, endpoint: str, work: Path, cli_bin: Path, team: str, sid: str = "CheckTheOwnEksAccessEntry"):
    """`hyp set-cluster-context` as the team's scientists after `sid` is taken out of their permission
    set's inline policy and the set provisioned again (what an administrator's edit would do); the
    policy is put back afterwards."""
    account = Account(spec, endpoint=endpoint, cli_bin=cli_bin)
    sso = account.client("sso-admin")
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
    good = [s for s in steps if s.as_expected]
    allowed = sum(s.expected == ALLOWED for s in good)
    return f"journeys: {len(good)}/{len(steps)} steps as expected ({allowed} allowed, {len(good) - allowed} denied)"


def decisions(endpoint: str) -> list[dict]:
    import urllib.request

    with urllib.request.urlopen(f"{endpoint}/_emulator/decisions", timeout=30) as answer:
        return json.loads(answer.read())["decisions"]


def hyp_cli_bin() -> Path | None:
    """The folder of the journey tier's `hyp` and `aws` (`make test` installs them in .venv-journey)."""
    configured = os.environ.get("HYPERPOD_TEAMS_JOURNEY_BIN")
    folder = Path(configured) if configured else Path(__file__).resolve().parents[2] / ".venv-journey" / "bin"
    return folder if (folder / "hyp").exists() and (folder / "aws").exists() else None
