"""Day 2: the changes a platform team makes to a deployed spec, applied over the first deploy's
state, as `cdktf deploy` applies them (tests/test_emulator_tier.py runs them after the round).

- quickstart: a team's quota and the priority classes changed, a team added, a team removed (by
  the runbook's procedure: its domain and key kept), the organization's tags changed, an instance
  group renamed with the old name retired;
- existing-cluster: first deployed with task governance (and usage reports, which need it) off,
  then the example as it is: task governance switched on.

Every day of the quickstart's round runs in an organization of three accounts (in_three_accounts):
Identity Center administered in a delegated administrator account, cost allocation in the
management (payer) account, the cluster in the example's, each stack's provider assuming the deploy
role of its account; existing-cluster's in one account.

A team removed from the spec leaves the app after the runbook's "Remove a team without losing
its data" ran on its stack. After the apply, every stack is planned again and must show no change,
and nothing that holds data may have been destroyed or replaced (DATA_HOLDING).
"""

from __future__ import annotations

import copy
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

#: Resource types whose destruction loses what teams made or stored: the S3 buckets, the Studio
#: domains (their home directories), the KMS keys (what they encrypt becomes unreadable), the
#: HyperPod cluster (Cloud Control), the team namespaces.
DATA_HOLDING = (
    "aws_s3_bucket",
    "aws_sagemaker_domain",
    "aws_efs_file_system",
    "aws_kms_key",
    "aws_cloudcontrolapi_resource",
    "kubernetes_namespace_v1",
)


#: The example whose round runs in three accounts, and the organization's other two.
ACCOUNTS_EXAMPLE = "quickstart"
IDENTITY_CENTER_ACCOUNT, PAYER_ACCOUNT = "999900000002", "999900000001"


def in_three_accounts(data: dict) -> dict:
    """The spec in an organization of three accounts (#60, docs/deploy.md "Accounts"): its
    `account_id` the workload account, Identity Center's and the payer's named, each stack's role
    `hyperpod-teams-deploy-<org>` (the emulator's deploy role name) in its account."""
    from hyperpod_teams import naming

    org = data["organization"]
    org["accounts"] = {"identity_center": IDENTITY_CENTER_ACCOUNT, "payer": PAYER_ACCOUNT}
    org["deploy_role_name"] = naming.deploy_role_name(org["name"])
    return data


def first_day(example: str, data: dict) -> dict:
    """The spec deployed first: the example, but with task governance off for existing-cluster."""
    data = copy.deepcopy(data)
    if example == "existing-cluster":
        data["cluster"]["task_governance"]["enabled"] = False
        data.get("cost", {}).pop("usage_reports", None)
    return in_three_accounts(data) if example == ACCOUNTS_EXAMPLE else data


def second_day(example: str, data: dict) -> tuple[dict, list[str]]:
    """The spec of day 2, and what changed, in words."""
    data, changes = _changed(example, copy.deepcopy(data))
    return (in_three_accounts(data) if example == ACCOUNTS_EXAMPLE else data), changes


def _changed(example: str, data: dict) -> tuple[dict, list[str]]:
    if example == "existing-cluster":
        return data, ["task governance switched on (with usage reports)"]
    teams = {team["name"]: team for team in data["teams"]}
    nlp, vision = teams["nlp"], teams["vision"]
    nlp["compute"]["quota"][0]["count"] -= 1
    classes = data["cluster"]["task_governance"]["priority_classes"]
    classes[0]["weight"] -= 5
    classes.append({"name": "evaluation", "weight": 50})
    speech = copy.deepcopy(vision)
    speech.update(name="speech", display_name="Speech", cost_center="CC-1004")
    speech["budget"]["notify_emails"] = ["speech-leads@example.com"]
    data["teams"] = [team for team in data["teams"] if team["name"] != "vision"] + [speech]
    tags = data["organization"].setdefault("tags", {})
    tags["owner"] = "ml-platform-day-2"
    tags["day-2"] = "yes"
    rename_group(data, RENAMED[0], RENAMED[1], retire=True)
    return data, [
        "nlp's quota changed",
        "priority classes changed (one weight, one added)",
        "team speech added",
        "team vision removed",
        "organization tags changed",
        f"instance group {RENAMED[0]} renamed {RENAMED[1]} (retired on purpose)",
    ]


#: The quickstart's instance group renamed on day 2: (old, new).
RENAMED = ("cpu-workers", "cpu-a")


def rename_group(data: dict, old: str, new: str, *, retire: bool) -> dict:
    """`data` with instance group `old` renamed `new` (in place), listed in
    cluster.retired_instance_groups when `retire`."""
    (group,) = [g for g in data["cluster"]["instance_groups"] if g["name"] == old]
    group["name"] = new
    if retire:
        data["cluster"].setdefault("retired_instance_groups", []).append(old)
    return data


@dataclass
class DayTwo:
    changes: list[str]
    removed_stacks: list[str] = field(default_factory=list)
    applied: list = field(default_factory=list)
    replanned: list = field(default_factory=list)
    #: Addresses a day-2 apply destroyed or replaced, by stack.
    destroyed: dict[str, list[str]] = field(default_factory=dict)
    #: terraform-provider-aws#49410: the cost stack applied a second time, its re-plan then, and
    #: the runbook's AWS CLI repair (a CompletedProcess) after which every stack was re-planned.
    applied_again: list = field(default_factory=list)
    replanned_again: list = field(default_factory=list)
    repaired: list = field(default_factory=list)
    #: The day-2 plans (`terraform show -json`) of the stacks with a cost category, by stack:
    #: what `hyperpod-teams report --plan` reads in review.
    plans: dict[str, dict] = field(default_factory=dict)
    #: A removed team's stack: what the runbook took out of its state (address -> ID), and the
    #: destroy that followed; what AWS then held of it after the day-2 apply (address -> state).
    kept: dict[str, dict[str, str]] = field(default_factory=dict)
    removal: list = field(default_factory=list)
    left_in_aws: dict[str, str] = field(default_factory=dict)

    @property
    def data_destroyed(self) -> list[str]:
        return [
            f"{stack}: {address}"
            for stack, addresses in self.destroyed.items()
            for address in addresses
            if address.split(".")[-2] in DATA_HOLDING
        ]

    def summary(self, example: str) -> str:
        def total(word: str) -> int:
            return sum(counted(o.output, word) for o in self.applied)

        clean = sum(o.ok for o in self.replanned)
        lost = self.data_destroyed
        parts = [
            f"{len(self.applied)} stacks applied ({total('added')} added, {total('changed')} changed, "
            f"{total('destroyed')} destroyed)"
        ]
        if self.removed_stacks:
            kept = sorted(state for address, state in self.left_in_aws.items() if address.startswith("aws_kms_key."))
            parts.append(
                f"{_stacks(len(self.removed_stacks))} of removed teams destroyed by the runbook's procedure, "
                f"{'domains, buckets and keys' if len(self.removed_stacks) > 1 else 'its domain, bucket and keys'} "
                f"kept (keys {', '.join(kept) or 'not found'})"
            )
        parts += [
            f"{o.stack}'s cost category half-updated by the provider (terraform-provider-aws#49410) and "
            "written whole by the runbook's AWS CLI repair"
            for o in self.applied_again
        ]
        parts.append(f"{clean}/{len(self.replanned)} re-plans clean")
        parts.append(f"DATA DESTROYED: {', '.join(lost)}" if lost else "nothing holding data destroyed")
        return f"emulator: {example}: day 2: {'; '.join(self.changes)}: {', '.join(parts)}"


def _stacks(n: int) -> str:
    return f"{n} stack" if n == 1 else f"{n} stacks"


def counted(output: str, word: str) -> int:
    """The count Terraform's summary line gives for `word` (added, changed, destroyed, imported)."""
    found = re.search(rf"Resources: .*?(\d+) {word}", output)
    return int(found[1]) if found else 0


def dropped_by_the_provider(output: str) -> bool:
    """Whether a re-plan's only change puts back what the AWS provider left out of the cost
    category's update before, its `default_value` or its `split_charge_rule`: it sends them to
    UpdateCostCategoryDefinition only when they changed, and AWS, which replaces the whole
    definition, clears them (terraform-provider-aws#49410, open)."""
    changed = re.findall(r"^\s*# (\S+) will be (?:updated in-place|created|destroyed|replaced)", output, re.M)
    attributes = re.findall(r"^\s*[-+~] (\w+)(?:\s+=| \{)", output, re.M)
    return (
        len(changed) == 1
        and changed[0].startswith("aws_ce_cost_category.")
        and len(attributes) == 1
        and attributes[0] in ("default_value", "split_charge_rule")
    )


def repair_cost_category(deployment, stack: str, spec) -> subprocess.CompletedProcess:
    """The runbook's "After a change to the cost category" commands, run as written by a
    platform engineer with the AWS CLI (the journey tier's), against the emulator."""
    from hyperpod_teams.review.runbook import cost_category_repair_command
    from tests.emulator.journeys import hyp_cli_bin

    cli_bin = hyp_cli_bin()
    if cli_bin is None:
        raise AssertionError("the AWS CLI of the journey tier is not installed (make .venv-journey/.installed)")
    credentials = deployment.terraform_env
    org = getattr(spec, "organization_view", spec).organization  # a spec of several clusters: its organization's
    if org.payer_account and org.deploy_role_name:
        # "credentials of the payer account", as the runbook says: its deploy role, from the pipeline's.
        from tests.emulator.deployment import assumed

        credentials = assumed(deployment.endpoint, credentials, org.payer_account, org.deploy_role_name)
    env = {
        **credentials,
        "PATH": f"{cli_bin}:/usr/bin:/bin",
        "AWS_ENDPOINT_URL": deployment.endpoint,
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_CONFIG_FILE": "/dev/null",
        "AWS_SHARED_CREDENTIALS_FILE": "/dev/null",
    }
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", cost_category_repair_command(spec)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def keep_out_of_state(deployment, stack: str) -> dict[str, str]:
    """The runbook's step that takes what keeps a removed team's data out of its stack's state
    (review/runbook_day2.py KEPT_ON_REMOVAL), run on the state file the tier keeps; what it took,
    address -> ID."""
    import json

    from hyperpod_teams.review.runbook import kept_on_removal

    state_file = deployment.directory(stack) / deployment.state_path(stack)
    state = json.loads(state_file.read_text())
    kept = {
        f"{r['type']}.{r['name']}": r["instances"][0]["attributes"]["id"]
        for r in state["resources"]
        if r["mode"] == "managed" and kept_on_removal(r["type"])
    }
    env = {**deployment.terraform_env, "AWS_ENDPOINT_URL": deployment.endpoint}
    subprocess.run(
        ["terraform", "state", "rm", f"-state={deployment.state_path(stack)}", *kept],
        cwd=deployment.directory(stack),
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return kept


def what_aws_holds_of(url: str, kept: dict[str, dict[str, str]], *, region: str) -> dict[str, str]:
    """The state AWS reports for each kept resource: a KMS key's KeyState, a domain's Status, an
    alias's target key (or "gone")."""
    from botocore.exceptions import ClientError

    from tests.emulator.deployment import emulator_client

    def client(service: str):
        return emulator_client(url, service, region)

    held: dict[str, str] = {}
    for addresses in kept.values():
        for address, identifier in addresses.items():
            kind = address.split(".")[0]
            try:
                if kind == "aws_kms_key":
                    held[address] = client("kms").describe_key(KeyId=identifier)["KeyMetadata"]["KeyState"]
                elif kind == "aws_sagemaker_domain":
                    held[address] = client("sagemaker").describe_domain(DomainId=identifier)["Status"]
                elif kind == "aws_s3_bucket":
                    client("s3").head_bucket(Bucket=identifier)
                    encryption = client("s3").get_bucket_encryption(Bucket=identifier)
                    rule = encryption["ServerSideEncryptionConfiguration"]["Rules"][0]
                    held[address] = rule["ApplyServerSideEncryptionByDefault"]["SSEAlgorithm"]
                elif kind == "aws_kms_alias":
                    aliases = client("kms").list_aliases()["Aliases"]
                    held[address] = next((a["TargetKeyId"] for a in aliases if a["AliasName"] == identifier), "gone")
            except ClientError as error:
                held[address] = f"gone ({error.response['Error']['Code']})"
    roles = client("iam").list_roles(PathPrefix="/aws-reserved/sso.amazonaws.com/")["Roles"]
    held["AWSReservedSSO roles"] = " ".join(sorted(role["RoleName"].rsplit("_", 1)[0] for role in roles))
    return held


def destroyed_addresses(output: str) -> list[str]:
    """The addresses an apply's plan destroys or replaces."""
    return re.findall(r"^\s*# (\S+) (?:will be destroyed|must be replaced)", output, re.MULTILINE)


def plan_json(deployment, stack: str) -> dict:
    """`terraform plan -out` then `terraform show -json` of one stack, as a pipeline's review job
    makes it."""
    import json

    planned = deployment.terraform(stack, "plan", "-lock=false", "-out=day-2.tfplan")
    if planned.returncode != 0:
        raise AssertionError(planned.stdout + planned.stderr)
    shown = subprocess.run(
        ["terraform", "show", "-json", "day-2.tfplan"],
        cwd=deployment.directory(stack),
        env={**deployment.terraform_env, "AWS_ENDPOINT_URL": deployment.endpoint},
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(shown.stdout)


def move_states(first: Path, second: Path) -> None:
    """The day-2 app beside the first one reads and writes the same states: `local` backends
    name files beside the app folder already; the s3 backend's stand-in files move over."""
    if (first / "s3-state").is_dir():
        shutil.copytree(first / "s3-state", second / "s3-state", dirs_exist_ok=True)
