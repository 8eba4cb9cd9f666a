"""Start the local AWS API and run terraform over the synthesized AWS stacks as `cdktf deploy`
would: in the manifest's dependency order (stacks of one wave side by side, as `cdktf deploy
--parallelism` runs them), each with its own local state file at the path its `local` backend
names, which the next stacks' `terraform_remote_state` read.

The copy terraform runs differs from the synthesized stack in three ways, each for this machine
and none for what is deployed: the `backend` block goes (its path is passed as `-state`, since
`terraform init` cannot reach the registry here and the provider comes by `dev_overrides`; an
`s3` backend's bucket and key become a local file, read by the `terraform_remote_state` of the
stacks after it), the
provider gets `max_retries = 3` (moto's 500s are not retried for minutes) and, for the destroy
round only, `prevent_destroy` is lifted.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from hyperpod_teams.stack_plan import waves_of
from tests.conftest import ROOT

#: The provider's attempts per call: by default 25, with backoff, so an emulator's 500 would be
#: retried for many minutes; a few still ride out a dropped loopback connection.
MAX_RETRIES = 3


@dataclass
class Emulator:
    url: str
    pid: int

    def seed(self, world: dict) -> dict:
        """Create what exists before the first deploy (world_before_first_deploy)."""
        return self._post("seed", world)

    def replace_cloud_control(self, resources: list[dict]) -> dict:
        """Replace Cloud Control resources' properties: a change made outside the stacks."""
        return self._post("cloud-control", resources)

    def requests(self) -> list[dict]:
        """The recorded requests (additions.RECORDED) in the order they came: target and body."""
        return self._post("requests", {})["requests"]

    def deploy_decisions(self) -> dict:
        """The deploying pipeline's requests as IAM decided them: how many allowed, which refused."""
        return self._post("deploy-decisions", {})

    def cloud_control_state(self) -> dict:
        """The HyperPod clusters the local Cloud Control holds (identifier -> properties) and the
        instance groups updates deleted (`terminated`: cluster, group, nodes)."""
        return self._post("cloud-control-state", {})

    def domain_default(self, domain: str, setting: str, value: str) -> dict:
        """Have a SageMaker domain answer AWS's default for one setting (the drift test)."""
        return self._post("domain-default", {"domain": domain, "setting": setting, "value": value})

    def _post(self, what: str, body: dict | list) -> dict:
        request = urllib.request.Request(f"{self.url}/_emulator/{what}", data=json.dumps(body).encode(), method="POST")
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.loads(answer.read())


def emulator_client(url: str, service: str, region: str = "us-east-1", account: str | None = None):
    """A boto3 client of the local AWS API at `url`, with fake credentials: what a test reads back
    of what the stacks left there. `account`: an administrator of that account of the organization
    (moto's `x-moto-account-id` header); None: of the home account."""
    import boto3

    client = boto3.client(
        service,
        region_name=region,
        endpoint_url=url,
        aws_access_key_id="AKIAOFFLINEFAKE00000",
        aws_secret_access_key="offline-fake-secret",
    )
    return in_account(client, account)


def in_account(client, account: str | None):
    """`client` sending its requests as an administrator of `account` of the organization
    (moto's `x-moto-account-id` header; server.py); None: as it is."""
    if account is not None:

        def header(request, **_) -> None:
            request.headers["x-moto-account-id"] = account

        client.meta.events.register("before-sign", header)
    return client


@contextmanager
def running_emulator(work_dir: Path, account_id: str, accounts: Iterable[str] = ()) -> Iterator[Emulator]:
    """moto and the additions in a process of their own, stopped by its process ID. `accounts`:
    the organization's other accounts, which requests reach as roles assumed there (server.py)."""
    port_file = work_dir / "emulator.port"
    port_file.unlink(missing_ok=True)
    log = (work_dir / "emulator.log").open("w")
    others = sorted(set(accounts) - {account_id})
    which = (
        {"EMULATOR_HOME_ACCOUNT": account_id, "EMULATOR_ACCOUNTS": ",".join(others)}
        if others
        else {"MOTO_ACCOUNT_ID": account_id}
    )
    env = {
        **{k: v for k, v in os.environ.items() if k != "MOTO_ACCOUNT_ID"},
        **which,
        # AWS-managed policies exist in every account; moto loads them only when asked.
        "MOTO_IAM_LOAD_MANAGED_POLICIES": "true",
        "PYTHONPATH": str(ROOT),
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.emulator.server", str(port_file)], stdout=log, stderr=log, env=env, cwd=ROOT
    )
    try:
        deadline = time.monotonic() + 60
        while not port_file.exists():
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the emulator did not start: {(work_dir / 'emulator.log').read_text()[-2000:]}")
            time.sleep(0.1)
        yield Emulator(f"http://127.0.0.1:{port_file.read_text()}", process.pid)
    finally:
        os.kill(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.kill(process.pid, signal.SIGKILL)
            process.wait()
        log.close()


def world_before_first_deploy(spec: dict, groups: list[str]) -> dict:
    """What the account holds before the stacks run, for `Emulator.seed`: Identity Center enabled
    (the spec's instance and identity store), the IdP groups SCIM provisioned, the EKS
    cluster an existing-cluster spec names (with API authentication, as access entries need), and
    what a spec that adopts a HyperPod cluster adopts (adopted.py)."""
    center = spec["identity"]["identity_center"]
    region = spec["organization"]["region"]
    account = spec["organization"]["account_id"]
    eks = spec["cluster"].get("eks", {})
    clusters = []
    if eks.get("existing_cluster_name"):
        clusters.append(
            {
                "name": eks["existing_cluster_name"],
                "region": region,
                "role_arn": f"arn:aws:iam::{account}:role/{eks['existing_cluster_name']}-cluster-role",
                "subnet_ids": spec["cluster"]["network"]["subnet_ids"],
            }
        )
    world = {
        "identity_center": {
            "instance_arn": center["instance_arn"],
            "identity_store_id": center["identity_store_id"],
            "region": region,
            # The account that administers it (the workload account's when the spec names none).
            "account": (spec["organization"].get("accounts") or {}).get("identity_center"),
        },
        "groups": groups,
        "eks_clusters": clusters,
        # The VPC the spec's network names: its subnets and security groups exist.
        "network": {
            region: [
                *spec["cluster"]["network"]["subnet_ids"],
                *spec["cluster"]["network"].get("security_group_ids", []),
            ]
        },
        "lifecycle_scripts": lifecycle_scripts(spec),
        # ... and in EC2 itself, the VPC and its security groups (the teams' Studio groups are made there).
        "vpcs": [
            {
                "region": region,
                "vpc_id": spec["cluster"]["network"]["vpc_id"],
                "security_group_ids": spec["cluster"]["network"].get("security_group_ids", []),
            }
        ],
    }
    if spec["cluster"].get("existing_hyperpod_cluster_name"):
        from tests.emulator.adopted import adopted_world

        world["adopted"] = adopted_world(spec)
    return world


def lifecycle_scripts(spec: dict) -> list[dict]:
    """The OnCreate script an organization uploads where its spec's `lifecycle_scripts_s3_uri`
    points (a bucket the stacks do not create; docs/spec-reference.md)."""
    from hyperpod_teams.policies import lifecycle_script_object

    uri = spec["cluster"].get("lifecycle_scripts_s3_uri")
    if not uri:
        return []
    bucket, key = lifecycle_script_object(uri, spec["cluster"].get("lifecycle_on_create", "on_create.sh"))
    return [{"bucket": bucket, "key": key, "region": spec["organization"]["region"]}]


def is_aws_only(stack: dict) -> bool:
    return set(stack.get("terraform", {}).get("required_providers", {})) == {"aws"}


@dataclass
class Outcome:
    stack: str
    ok: bool
    output: str
    count: int = 0
    seconds: float = 0.0


@dataclass
class Deployment:
    """The AWS stacks of one synthesized app (cdktf.out), run by terraform against `endpoint`."""

    synth_dir: Path
    terraform_env: dict[str, str]
    endpoint: str
    stacks: dict[str, dict] = field(init=False)
    waves: list[list[str]] = field(init=False)

    def __post_init__(self) -> None:
        manifest = json.loads((self.synth_dir / "manifest.json").read_text())["stacks"]
        self.stacks = {}
        for name, entry in manifest.items():
            path = self.synth_dir / entry["synthesizedStackPath"]
            synthesized = path.with_name("synthesized.json")  # kept: the copy terraform runs replaces it
            if not synthesized.exists():
                synthesized.write_text(path.read_text())
            stack = json.loads(synthesized.read_text())
            if is_aws_only(stack):
                self.stacks[name] = stack
        needs = {name: manifest[name].get("dependencies", []) for name in self.stacks}
        self.waves = waves_of(list(self.stacks), needs)
        for name in self.stacks:
            self.write(name)

    @property
    def resource_types(self) -> set[str]:
        """The resource types of the AWS stacks this deployment applies."""
        return {kind for stack in self.stacks.values() for kind in stack.get("resource", {})}

    def directory(self, name: str) -> Path:
        return self.synth_dir / "stacks" / name

    def state_path(self, name: str) -> str:
        return self._local_path(self.stacks[name]["terraform"]["backend"])

    def _local_path(self, backend: dict) -> str:
        """Where a state lives on this machine: a `local` backend's own path; an `s3` backend's
        bucket and key as a file under the app's folder (the same mapping for the stack that
        writes the state and the stacks that read it)."""
        if "local" in backend:
            return backend["local"]["path"]
        ((kind, config),) = backend.items()
        if kind != "s3":
            raise ValueError(f"the emulator tier runs local and s3 backends, not {kind}")
        path = self.synth_dir / "s3-state" / config["bucket"] / config["key"]
        path.parent.mkdir(parents=True, exist_ok=True)
        return str(path)

    def looked_up_groups(self) -> list[str]:
        """The Identity Center groups the stacks look up by display name: the ones SCIM
        provisions from the identity provider before the access stack runs."""
        return sorted(
            {
                source["alternate_identifier"]["unique_attribute"]["attribute_value"]
                for stack in self.stacks.values()
                for source in stack.get("data", {}).get("aws_identitystore_group", {}).values()
            }
        )

    def write(self, name: str, *, lift_prevent_destroy: bool = False) -> None:
        """Write the copy terraform runs (module docstring)."""
        stack = json.loads(json.dumps(self.stacks[name]))
        stack["terraform"].pop("backend")
        for source in stack.get("data", {}).get("terraform_remote_state", {}).values():
            path = self._local_path({source["backend"]: source["config"]})
            source.update(backend="local", config={"path": path})
        for provider in stack["provider"]["aws"]:
            provider["max_retries"] = MAX_RETRIES
        if lift_prevent_destroy:
            for resources in stack.get("resource", {}).values():
                for resource in resources.values():
                    resource.get("lifecycle", {}).pop("prevent_destroy", None)
        (self.directory(name) / "cdk.tf.json").write_text(json.dumps(stack, indent=1))

    def terraform(self, name: str, *args: str) -> subprocess.CompletedProcess:
        env = {**self.terraform_env, "AWS_ENDPOINT_URL": self.endpoint}
        return subprocess.run(
            ["terraform", *args, "-input=false", "-no-color", f"-state={self.state_path(name)}"],
            cwd=self.directory(name),
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )

    def _outcome(self, name: str, args: tuple[str, ...], counted: str = "") -> Outcome:
        started = time.monotonic()
        result = self.terraform(name, *args)
        seconds = time.monotonic() - started
        found = re.search(rf"Resources: (\d+) {counted}", result.stdout) if counted else None
        output = result.stdout + result.stderr
        return Outcome(name, result.returncode == 0, output, int(found[1]) if found else 0, seconds)

    def apply(self, name: str) -> Outcome:
        return self._outcome(name, ("apply", "-auto-approve"), "added")

    def replan(self, name: str) -> Outcome:
        """A plan with `-detailed-exitcode`: 0 is "No changes", 2 is a change, 1 an error."""
        return self._outcome(name, ("plan", "-detailed-exitcode", "-lock=false"))

    def destroy(self, name: str) -> Outcome:
        return self._outcome(name, ("destroy", "-auto-approve"), "destroyed")

    def destroy_everything(self) -> list[Outcome]:
        """Every stack destroyed wave by wave in reverse, with `prevent_destroy` lifted in the
        copies terraform runs for this step only (written back as synthesized afterwards)."""
        for name in self.stacks:
            self.write(name, lift_prevent_destroy=True)
        try:
            return self.each_wave(self.destroy, reverse=True)
        finally:
            for name in self.stacks:
                self.write(name)

    def all_at_once(self, step) -> list[Outcome]:
        """`step` over every stack side by side, the outcomes in wave order."""
        with ThreadPoolExecutor(max_workers=4) as pool:
            return list(pool.map(step, [name for wave in self.waves for name in wave]))

    def each_wave(self, step, *, reverse: bool = False) -> list[Outcome]:
        """`step` over every stack, wave by wave (reversed for destroy); stops after the first
        wave with a failure, whose outcomes it returns with the rest."""
        outcomes: list[Outcome] = []
        waves = list(reversed(self.waves)) if reverse else self.waves
        with ThreadPoolExecutor(max_workers=4) as pool:
            for wave in waves:
                results = list(pool.map(step, wave))
                outcomes += results
                if not all(result.ok for result in results):
                    break
        return outcomes


#: The role the tier's applies run as: the deploying pipeline's, holding exactly the policies
#: `hyperpod-teams deploy-policy` prints (hyperpod_teams.policies.deploy). Not named `<org>-*`, so
#: the policy's grants on the organization's roles do not reach it.
def pipeline_role_name(org: str) -> str:
    from hyperpod_teams import naming

    return naming.deploy_role_name(org)


def several_accounts(spec) -> list[str]:
    """The accounts the stacks of `spec` (a PlatformSpec, or a SeveralClusters) deploy into, when
    more than one (the workload account first; `deploy-policy --account`); [] for one account."""
    from hyperpod_teams.policies.deploy import deploy_accounts, several_clusters_deploy_accounts
    from hyperpod_teams.spec.clusters import SeveralClusters

    accounts = list(
        several_clusters_deploy_accounts(spec) if isinstance(spec, SeveralClusters) else deploy_accounts(spec)
    )
    return accounts if len(accounts) > 1 else []


def widen_pipeline_policies(url: str, spec) -> None:
    """Give the pipeline's role the policies `deploy-policy` prints for `spec` (a PlatformSpec):
    a new default version of each policy it has, the others created and attached (as an
    administrator does before the apply of a spec that needs more; docs/deploy.md). Stacks in
    several accounts: each account's role gets `deploy-policy --account` of its account."""
    accounts: list[str | None] = [*several_accounts(spec)] or [None]
    for account in accounts:
        _widen_role(url, spec, account)


def _widen_role(url: str, spec, account: str | None) -> None:
    from hyperpod_teams.policies.deploy import deploy_policies
    from hyperpod_teams.spec.clusters import organization_of

    iam = emulator_client(url, "iam", account=account)
    org = organization_of(spec).organization
    role = pipeline_role_name(org.name)
    for policy_name, document in deploy_policies(spec, account).items():
        arn = f"arn:aws:iam::{account or org.account_id}:policy/{policy_name}"
        try:
            iam.get_policy(PolicyArn=arn)
        except iam.exceptions.NoSuchEntityException:
            iam.create_policy(PolicyName=policy_name, PolicyDocument=json.dumps(document))
            iam.attach_role_policy(RoleName=role, PolicyArn=arn)
        else:
            for version in iam.list_policy_versions(PolicyArn=arn)["Versions"]:
                if not version["IsDefaultVersion"]:
                    iam.delete_policy_version(PolicyArn=arn, VersionId=version["VersionId"])
            iam.create_policy_version(PolicyArn=arn, PolicyDocument=json.dumps(document), SetAsDefault=True)


def create_role_boundary(url: str, spec) -> None:
    """The permissions boundary of the stacks' roles (`hyperpod-teams deploy-policy --boundary`), as an
    administrator creates it once: at its own path, not attached to the pipeline's role."""
    from hyperpod_teams import naming
    from hyperpod_teams.policies.deploy import role_boundary_policy
    from hyperpod_teams.spec.clusters import organization_of

    iam = emulator_client(url, "iam")
    for policy_name, document in role_boundary_policy(organization_of(spec)).items():
        try:
            iam.create_policy(
                PolicyName=policy_name, Path=naming.ROLE_BOUNDARY_PATH, PolicyDocument=json.dumps(document)
            )
        except iam.exceptions.EntityAlreadyExistsException:
            pass


def pipeline_credentials(url: str, spec: dict, policies: dict[str, dict] | None = None) -> dict[str, str]:
    """Make the pipeline's role in the emulator's IAM (as an administrator would, once), assume
    it, and answer the session's credentials as the environment terraform runs with. Every
    request signed with them is evaluated against the role's policies (authorization.py): the
    ones `deploy-policy` prints for `spec`, with the roles' boundary, or `policies` (name ->
    document: what an earlier release printed)."""
    from hyperpod_teams.spec import validate_platform

    org, account = spec["organization"]["name"], spec["organization"]["account_id"]
    if policies is None and several_accounts(validate_platform(spec)):
        return _entry_credentials(url, validate_platform(spec))
    iam = emulator_client(url, "iam")
    name = pipeline_role_name(org)
    trust = {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{account}:root"}, "Action": "sts:AssumeRole"}
        ],
    }
    iam.create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(trust), MaxSessionDuration=43200)
    if policies is None:
        validated = validate_platform(spec)
        create_role_boundary(url, validated)
        widen_pipeline_policies(url, validated)
    for policy_name, document in (policies or {}).items():
        created = iam.create_policy(PolicyName=policy_name, PolicyDocument=json.dumps(document))
        iam.attach_role_policy(RoleName=name, PolicyArn=created["Policy"]["Arn"])
    credentials = emulator_client(url, "sts").assume_role(
        RoleArn=f"arn:aws:iam::{account}:role/{name}", RoleSessionName="pipeline", DurationSeconds=43200
    )["Credentials"]
    return session_env(credentials)


#: The pipeline's own role where the stacks run in several accounts: its session (the job's OIDC
#: identity in a real pipeline) only assumes each account's deploy role, which the stacks'
#: providers name (`organization.deploy_role_name`).
ENTRY_ROLE = "ci-pipeline"


def _entry_credentials(url: str, spec) -> dict[str, str]:
    """Stacks in several accounts (docs/deploy.md, "Accounts"): in each account the deploy role
    with `deploy-policy --account`'s policies and the trust `--trust aws:<the pipeline's role>`
    prints, and the pipeline's role allowed to assume them; its session's credentials."""
    from hyperpod_teams.policies.deploy import deploy_role_trust_policy
    from hyperpod_teams.spec.clusters import organization_of

    organization = organization_of(spec)
    home = organization.organization.account_id
    entry = f"arn:aws:iam::{home}:role/{ENTRY_ROLE}"
    name = pipeline_role_name(organization.organization.name)
    assert organization.organization.deploy_role_name == name, "the stacks must assume the roles made here"
    roles = [f"arn:aws:iam::{account}:role/{name}" for account in several_accounts(spec)]
    iam = emulator_client(url, "iam")
    trust_home = {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{home}:root"}, "Action": "sts:AssumeRole"}
        ],
    }
    iam.create_role(RoleName=ENTRY_ROLE, AssumeRolePolicyDocument=json.dumps(trust_home), MaxSessionDuration=43200)
    assume = {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": roles}],
    }
    iam.put_role_policy(RoleName=ENTRY_ROLE, PolicyName="assume-deploy-roles", PolicyDocument=json.dumps(assume))
    for account in several_accounts(spec):
        trust = deploy_role_trust_policy(organization, account, [f"aws:{entry}"])
        emulator_client(url, "iam", account=account).create_role(
            RoleName=name, AssumeRolePolicyDocument=json.dumps(trust), MaxSessionDuration=43200
        )
    create_role_boundary(url, spec)
    widen_pipeline_policies(url, spec)
    credentials = emulator_client(url, "sts").assume_role(
        RoleArn=entry, RoleSessionName="pipeline", DurationSeconds=43200
    )["Credentials"]
    return session_env(credentials)


def assumed(url: str, env: dict[str, str], account: str, role_name: str) -> dict[str, str]:
    """`env` with the credentials of `role_name` in `account`, assumed with the credentials `env` holds."""
    import boto3

    sts = boto3.client(
        "sts",
        region_name="us-east-1",
        endpoint_url=url,
        aws_access_key_id=env["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=env["AWS_SECRET_ACCESS_KEY"],
        aws_session_token=env.get("AWS_SESSION_TOKEN"),
    )
    credentials = sts.assume_role(RoleArn=f"arn:aws:iam::{account}:role/{role_name}", RoleSessionName="engineer")
    return {**env, **session_env(credentials["Credentials"])}


def session_env(credentials: dict) -> dict[str, str]:
    """An STS session's credentials (AssumeRole's `Credentials`) as the environment the SDKs read."""
    return {
        "AWS_ACCESS_KEY_ID": credentials["AccessKeyId"],
        "AWS_SECRET_ACCESS_KEY": credentials["SecretAccessKey"],
        "AWS_SESSION_TOKEN": credentials["SessionToken"],
    }
