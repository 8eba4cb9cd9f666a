"""An organization of several accounts (#60): Identity Center administered in its own account, the
payer's cost allocation in the management account, the cluster and the teams in a workload account,
each stack's AWS provider in its account (assuming `organization.deploy_role_name` there), the state
through `backend.role_arn`; and chargeback counting only the cluster's account and Region of a payer's
export that covers every linked account.

Read from the synthesized stacks as Terraform reads them: the provider blocks, the resources'
`provider` references, the backend and every `terraform_remote_state` read."""

from __future__ import annotations

import copy
import csv
import io
import json
from decimal import Decimal

import pytest
import yaml

from hyperpod_teams.chargeback import Place, read_cost_exports, reconciliation
from hyperpod_teams.spec import SpecError, validate_spec
from tests.conftest import QUICKSTART, require_module, synthesize_stacks
from tests.test_cost_exports import AMORTIZED_TOTAL, COLUMNS, LINES, NOVEMBER_WEEK, snake

WORKLOAD, IDENTITY_CENTER, PAYER, STATE = "111122223333", "999900000002", "999900000001", "999900000003"
ROLE = "hyperpod-teams-deploy"
STATE_ROLE = f"arn:aws:iam::{STATE}:role/terraform-state"


def three_accounts() -> dict:
    data = yaml.safe_load(QUICKSTART.read_text())
    data["organization"].update(
        account_id=WORKLOAD, accounts={"identity_center": IDENTITY_CENTER, "payer": PAYER}, deploy_role_name=ROLE
    )
    data["backend"] = {"type": "s3", "bucket": "acme-terraform-state", "region": "us-east-1", "role_arn": STATE_ROLE}
    return data


@pytest.fixture(scope="module")
def stacks(tmp_path_factory) -> dict[str, dict]:
    return synthesize_stacks(validate_spec(three_accounts()), tmp_path_factory.mktemp("accounts"))


def _role(account: str) -> str:
    return f"arn:aws:iam::{account}:role/{ROLE}"


def _providers(stack: dict) -> dict[str | None, dict]:
    return {p.get("alias"): p for p in stack.get("provider", {}).get("aws", [])}


def _resources(stack: dict, kind: str) -> list[dict]:
    return list(stack.get("resource", {}).get(kind, {}).values())


@pytest.mark.parametrize(
    ("stack", "account"),
    [
        ("acme-access", IDENTITY_CENTER),
        ("acme-cost", PAYER),
        ("acme-eks", WORKLOAD),
        ("acme-cluster", WORKLOAD),
        ("acme-team-nlp", WORKLOAD),
    ],
)
def test_each_stacks_provider_is_pinned_to_its_account_and_assumes_its_role_there(stacks, stack, account):
    default = _providers(stacks[stack])[None]
    assert default["allowed_account_ids"] == [account]
    assert default["assume_role"] == [{"role_arn": _role(account)}]


def test_a_team_stacks_identity_center_resources_go_through_the_identity_center_accounts_provider(stacks):
    team = stacks["acme-team-nlp"]
    center = _providers(team)["identity_center"]
    assert center["allowed_account_ids"] == [IDENTITY_CENTER]
    assert center["assume_role"] == [{"role_arn": _role(IDENTITY_CENTER)}]
    identity_center_kinds = ("aws_ssoadmin_application_assignment", "aws_ssoadmin_customer_managed_policy_attachment")
    found = [r for kind in identity_center_kinds for r in _resources(team, kind)]
    assert len(found) == 3  # the domain's application assigned to both roles' groups, the admins' policy attached
    assert all(r["provider"] == "aws.identity_center" for r in found)
    # Everything else of the team is the workload account's: the admins' policy itself lives where the
    # permission set is provisioned (Identity Center refuses to provision a set whose policy is missing there).
    others = [r for kind, rs in team["resource"].items() if kind not in identity_center_kinds for r in rs.values()]
    assert others and not any("provider" in r for r in others)
    (policy,) = _resources(team, "aws_iam_policy")
    assert "provider" not in policy


def test_permission_sets_are_assigned_to_the_workload_account_and_access_entries_name_its_roles(stacks):
    assignments = _resources(stacks["acme-access"], "aws_ssoadmin_account_assignment")
    assert assignments and {a["target_id"] for a in assignments} == {WORKLOAD}
    # The team roles' access entries name the AWSReservedSSO_* roles Identity Center made in the
    # workload account: looked up there, through the stack's default (workload) provider.
    team = stacks["acme-team-nlp"]
    lookups = team["data"]["aws_iam_roles"]
    assert lookups and all("AWSReservedSSO_" in r["name_regex"] and "provider" not in r for r in lookups.values())
    entries = _resources(team, "aws_eks_access_entry")
    assert {e["principal_arn"] for e in entries} >= {
        f"${{one(tolist(data.aws_iam_roles.{name}.arns))}}" for name in lookups
    }


def test_kubernetes_and_helm_get_their_token_as_the_workload_accounts_role(stacks):
    (kubernetes,) = stacks["acme-k8s-nlp"]["provider"]["kubernetes"][0]["exec"]
    assert kubernetes["args"][-2:] == ["--role-arn", _role(WORKLOAD)]
    helm = stacks["acme-hyperpod-deps"]["provider"]["helm"][0]["kubernetes"]["exec"]
    assert helm["args"][-2:] == ["--role-arn", _role(WORKLOAD)]


def test_the_state_and_every_remote_state_read_assume_the_backends_role(stacks):
    reads = 0
    for name, stack in stacks.items():
        assert stack["terraform"]["backend"]["s3"]["assume_role"] == {"role_arn": STATE_ROLE}, name
        for read in stack.get("data", {}).get("terraform_remote_state", {}).values():
            assert read["backend"] == "s3"
            assert read["config"]["assume_role"] == {"role_arn": STATE_ROLE}, name
            reads += 1
    assert reads > 5


def test_one_account_for_identity_center_and_the_workload_needs_no_second_provider(tmp_path):
    data = three_accounts()
    data["organization"]["accounts"] = {"identity_center": WORKLOAD, "payer": PAYER}
    stacks = synthesize_stacks(validate_spec(data), tmp_path)
    assert list(_providers(stacks["acme-team-nlp"])) == [None]
    assert _providers(stacks["acme-access"])[None]["allowed_account_ids"] == [WORKLOAD]


def test_without_a_deploy_role_the_providers_are_pinned_and_assume_nothing(tmp_path):
    data = three_accounts()
    del data["organization"]["deploy_role_name"]
    stacks = synthesize_stacks(validate_spec(data), tmp_path)
    default = _providers(stacks["acme-access"])[None]
    assert default["allowed_account_ids"] == [IDENTITY_CENTER] and "assume_role" not in default
    assert "--role-arn" not in stacks["acme-k8s-nlp"]["provider"]["kubernetes"][0]["exec"][0]["args"]


def test_a_delegated_administrator_cannot_serve_a_workload_in_the_management_account():
    """IAM Identity Center User Guide, "Delegated administration": a delegated administrator cannot
    manage permission sets provisioned in the management account."""
    data = three_accounts()
    data["organization"]["account_id"] = PAYER
    with pytest.raises(SpecError) as raised:
        validate_spec(data)
    (problem,) = raised.value.problems
    assert problem.path == ("organization", "account_id")
    assert "delegated administrator" in problem.message
    # Identity Center administered from the management account itself may provision there.
    data["organization"]["accounts"]["identity_center"] = PAYER
    validate_spec(data)


def test_an_account_or_a_role_name_aws_would_refuse_names_the_field():
    for field, value in (("accounts", {"payer": "12345"}), ("deploy_role_name", "no spaces allowed")):
        data = three_accounts()
        data["organization"][field] = value
        with pytest.raises(SpecError) as raised:
            validate_spec(data)
        assert raised.value.problems[0].path[:2] == ("organization", field)


# --- chargeback: the cluster's account and Region of a payer's export --------------------------


OTHER_ACCOUNT, OTHER_REGION = "123456789012", "eu-west-1"
#: The hand-made week (tests/test_cost_exports.py), every line the cluster's, and two lines tagged
#: shared of the same payer's export that are not: another account's cluster, another Region's.
ELSEWHERE = [
    ("x", "Usage", "2026-11-02T00:00:00Z", "2026-11-02T01:00:00Z", "USE1-ml.p5.48xlarge-hours", "5000.00",
     "", "", "", "", "", "", "", "ml.p5.48xlarge", "shared", OTHER_ACCOUNT, "us-east-1"),
    ("y", "Usage", "2026-11-03T00:00:00Z", "2026-11-03T01:00:00Z", "EUW1-ml.p5.48xlarge-hours", "700.00",
     "", "", "", "", "", "", "", "ml.p5.48xlarge", "shared", "444455556666", OTHER_REGION),
]  # fmt: skip
PLACE = Place("444455556666", "us-east-1")


def _payer_export(columns: list[str]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([(*line, "444455556666", "us-east-1") for line in LINES] + ELSEWHERE)
    return out.getvalue()


def _read(text: str, place: Place | None):
    from hyperpod_teams.chargeback.export_files import _csv_part

    return read_cost_exports([("cur.csv", _csv_part(io.StringIO(text), "cur.csv"))], NOVEMBER_WEEK, "amortized", place)


LEGACY = [*COLUMNS, "lineItem/UsageAccountId", "product/region"]
CUR2 = [
    *("resource_tags_user_hyperpod_teams_platform" if c.startswith("resourceTags") else snake(c) for c in COLUMNS),
    "line_item_usage_account_id",
    "product_region_code",
]


@pytest.mark.parametrize("columns", [LEGACY, CUR2], ids=["legacy CUR", "snake names"])
def test_a_payers_export_counts_the_clusters_account_and_region_only(columns):
    exported = _read(_payer_export(columns), PLACE)
    assert exported.amount.quantize(Decimal("0.01")) == AMORTIZED_TOTAL
    assert dict(exported.elsewhere) == {(OTHER_ACCOUNT, "us-east-1"): 1, ("444455556666", OTHER_REGION): 1}
    assert exported.elsewhere_amount == Decimal("5700.00")
    (note,) = [n for n in exported.notes if "another account or in another Region" in n]
    assert f"account {OTHER_ACCOUNT} in us-east-1: 1" in note and "5,700.00" in note
    lines = reconciliation(exported, AMORTIZED_TOTAL)
    (left,) = [line for line in lines if "another account" in line.label]
    assert left.amount == Decimal("-5700.00")
    total = next(line for line in lines if line.role == "total")
    assert total.amount + sum(line.amount for line in lines if line.role in ("less", "plus")) == AMORTIZED_TOTAL


def test_without_the_place_the_other_accounts_lines_would_be_charged_to_the_teams():
    """The fault the filter guards against: the same export read as before #60."""
    exported = _read(_payer_export(LEGACY), None)
    assert exported.amount.quantize(Decimal("0.01")) == AMORTIZED_TOTAL + Decimal("5700.00")


def test_an_export_without_the_account_column_says_so():
    columns = copy.copy(COLUMNS)
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([columns, *LINES])
    exported = _read(out.getvalue(), PLACE)
    assert exported.amount.quantize(Decimal("0.01")) == AMORTIZED_TOTAL
    assert any("no lineItem/UsageAccountId and product/regionCode column" in note for note in exported.notes)


@pytest.mark.terraform
def test_the_three_account_stacks_pass_terraform_validate_with_the_real_provider(stacks, tmp_path):
    """Terraform resolves `provider = aws.identity_center` to the alias the stack declares and takes
    each provider's `assume_role` and the backend's as the AWS provider defines them."""
    import json

    from tests.offline_terraform import terraform_or_skip, write_stack

    terraform = terraform_or_skip(tmp_path)
    for name in ("acme-access", "acme-cost", "acme-team-nlp", "acme-cluster"):
        result = terraform.run(write_stack(tmp_path, name, stacks[name]), "validate", "-json")
        report = json.loads(result.stdout)
        assert report["valid"], (name, report["diagnostics"])


# --- the deploy roles, one per account (#60.3) ----------------------------------------------------

#: The IAM service of each AWS resource type prefix the stacks use (the Service Authorization
#: Reference's prefixes): read from the synthesized stacks, not from the policy code.
SERVICE_OF_TYPE = {
    "aws_ssoadmin_": "sso",
    "aws_identitystore_": "identitystore",
    "aws_ce_": "ce",
    "aws_budgets_": "budgets",
    "aws_eks_": "eks",
    "aws_iam_": "iam",
    "aws_s3_": "s3",
    "aws_kms_": "kms",
    "aws_sagemaker_": "sagemaker",
    "aws_security_group": "ec2",
    "aws_vpc_": "ec2",
    "aws_ssm_": "ssm",
    "aws_cloudcontrolapi_": "cloudformation",
}


def _services_by_account(stacks: dict[str, dict]) -> dict[str, set[str]]:
    """Account -> the IAM services of the resources and data sources whose provider works there."""
    found: dict[str, set[str]] = {}
    for stack in stacks.values():
        accounts = {
            f"aws.{p['alias']}" if "alias" in p else "aws": p["allowed_account_ids"][0]
            for p in stack.get("provider", {}).get("aws", [])
            if p.get("allowed_account_ids")
        }
        for blocks in (stack.get("resource", {}), stack.get("data", {})):
            for kind, resources in blocks.items():
                service = next((s for prefix, s in SERVICE_OF_TYPE.items() if kind.startswith(prefix)), None)
                for resource in resources.values():
                    account = accounts.get(resource.get("provider", "aws"))
                    if service and account:
                        found.setdefault(account, set()).add(service)
    return found


def _granted_services(documents: dict[str, dict]) -> set[str]:
    actions = [
        a
        for d in documents.values()
        for s in d["Statement"]
        for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])
    ]
    return {action.split(":")[0] for action in actions}


def test_each_accounts_deploy_role_holds_what_the_stacks_there_need_and_nothing_of_another_accounts(stacks):
    """Each account's set grants the services of the resources whose provider works there (as the
    synthesized stacks say), and no Identity Center or Cost Explorer action lands in the workload
    account's role, nor a workload action in the Identity Center's or the payer's."""
    from hyperpod_teams.policies.deploy import deploy_accounts, deploy_policies

    spec = validate_spec(three_accounts())
    assert deploy_accounts(spec) == {WORKLOAD: ["workload"], IDENTITY_CENTER: ["Identity Center"], PAYER: ["payer"]}
    needed = _services_by_account(stacks)
    assert needed[IDENTITY_CENTER] == {"sso", "identitystore"}
    assert needed[PAYER] == {"ce"}
    for account in (WORKLOAD, IDENTITY_CENTER, PAYER):
        granted = _granted_services(deploy_policies(spec, account))
        assert needed[account] <= granted, account
    assert _granted_services(deploy_policies(spec, IDENTITY_CENTER)) == {"sso", "identitystore", "sts"}
    assert _granted_services(deploy_policies(spec, PAYER)) == {"ce", "sts"}
    assert not {"sso", "identitystore", "ce"} & _granted_services(deploy_policies(spec, WORKLOAD))


def test_the_accounts_sets_together_are_the_one_account_set_and_a_one_account_spec_prints_as_before():
    from hyperpod_teams.policies.deploy import deploy_policies

    spec = validate_spec(three_accounts())
    whole = [s for d in deploy_policies(spec).values() for s in d["Statement"]]
    parts = [
        s
        for account in (WORKLOAD, IDENTITY_CENTER, PAYER)
        for d in deploy_policies(spec, account).values()
        for s in d["Statement"]
        if s["Sid"] != "ReadAccount"
    ]
    assert sorted(json.dumps(s, sort_keys=True) for s in parts) == sorted(json.dumps(s, sort_keys=True) for s in whole)
    one = validate_spec(yaml.safe_load(QUICKSTART.read_text()))
    assert deploy_policies(one, "111122223333") == deploy_policies(one)


def test_deploy_policy_asks_which_account_when_the_stacks_run_in_several(tmp_path):
    from click.testing import CliRunner

    from hyperpod_teams.cli import cli

    spec = tmp_path / "teams.yaml"
    spec.write_text(yaml.safe_dump(three_accounts()))
    result = CliRunner().invoke(cli, ["deploy-policy", str(spec)])
    assert result.exit_code == 2
    assert f"{WORKLOAD} (workload); {IDENTITY_CENTER} (Identity Center); {PAYER} (payer)" in result.output
    result = CliRunner().invoke(cli, ["deploy-policy", str(spec), "--account", "123456789012"])
    assert result.exit_code == 2 and "--account" in result.output
    result = CliRunner().invoke(cli, ["deploy-policy", str(spec), "--account", PAYER])
    assert result.exit_code == 0
    assert {s["Sid"] for d in json.loads(result.output).values() for s in d["Statement"]} == {
        "ReadAccount",
        "CostCategoriesAndTags",
    }


def test_the_trust_policy_trusts_the_deploying_jobs_of_the_pipeline_and_no_pull_request(tmp_path):
    """GitHub's `sub` of a job in the production environment and of a push to main; GitLab's of
    its main branch (each issuer's documented claim format); a role of another account by ARN."""
    from click.testing import CliRunner

    from hyperpod_teams.cli import cli

    spec = tmp_path / "teams.yaml"
    spec.write_text(yaml.safe_dump(three_accounts()))
    pipeline_role = f"arn:aws:iam::{WORKLOAD}:role/{ROLE}"
    args = ["deploy-policy", str(spec), "--account", IDENTITY_CENTER, "--trust", "github:acme/platform"]
    result = CliRunner().invoke(cli, [*args, "--trust", "gitlab:acme/ml/platform", "--trust", f"aws:{pipeline_role}"])
    assert result.exit_code == 0, result.output
    github, gitlab, role = json.loads(result.output)["Statement"]
    assert github["Principal"] == {
        "Federated": f"arn:aws:iam::{IDENTITY_CENTER}:oidc-provider/token.actions.githubusercontent.com"
    }
    assert github["Action"] == "sts:AssumeRoleWithWebIdentity"
    assert github["Condition"]["StringEquals"] == {
        "token.actions.githubusercontent.com:aud": "sts.amazonaws.com",
        "token.actions.githubusercontent.com:sub": [
            "repo:acme/platform:ref:refs/heads/main",
            "repo:acme/platform:environment:production",
        ],
    }
    assert gitlab["Condition"]["StringEquals"]["gitlab.com:sub"] == [
        "project_path:acme/ml/platform:ref_type:branch:ref:main"
    ]
    assert role == {"Effect": "Allow", "Principal": {"AWS": pipeline_role}, "Action": "sts:AssumeRole"}
    assert "pull_request" not in result.output
    refused = CliRunner().invoke(cli, [*args[:-1], "github:acme"])
    assert refused.exit_code == 2 and "--trust" in refused.output


def test_parliament_finds_nothing_wrong_in_the_accounts_sets():
    require_module("parliament")
    from parliament import analyze_policy_string

    from hyperpod_teams.policies.deploy import deploy_policies

    spec = validate_spec(three_accounts())
    purpose = {"PERMISSIONS_MANAGEMENT_ACTIONS", "RESOURCE_STAR", "CREDENTIALS_EXPOSURE", "PRIVILEGE_ESCALATION"}
    purpose.add("RESOURCE_POLICY_PRIVILEGE_ESCALATION")
    problems = [
        f"{account}: {finding.issue} {finding.detail}"
        for account in (WORKLOAD, IDENTITY_CENTER, PAYER)
        for document in deploy_policies(spec, account).values()
        for finding in analyze_policy_string(json.dumps(document), include_community_auditors=True).findings
        if finding.issue not in purpose
    ]
    assert not problems, "\n".join(problems)


def test_the_plan_the_runbook_and_the_report_say_which_account_each_stack_runs_in():
    """The stacks' credentials (the synth summary's and the runbook's column) and the report's
    overview name each account; a spec of one account reads as before."""
    from hyperpod_teams.review.report import render_report
    from hyperpod_teams.stack_plan import stack_plan

    spec = validate_spec(three_accounts())
    credentials = {s.name: s.credentials for s in stack_plan(spec)}
    assert credentials["acme-access"] == f"AWS account {IDENTITY_CENTER} (Identity Center)"
    assert credentials["acme-cost"] == f"AWS account {PAYER} (payer)"
    assert credentials["acme-cluster"] == f"AWS account {WORKLOAD} (workload)"
    assert credentials["acme-team-nlp"] == f"AWS account {WORKLOAD} (workload; Identity Center's in {IDENTITY_CENTER})"
    report = render_report(spec)
    assert f"Identity Center administered in `{IDENTITY_CENTER}`" in report
    assert f"cost allocation in `{PAYER}`" in report
    one = validate_spec(yaml.safe_load(QUICKSTART.read_text()))
    assert {s.credentials for s in stack_plan(one)} >= {"AWS", "AWS (Identity Center account)", "AWS (payer account)"}
    assert "Accounts:" not in render_report(one)


# --- a usage report of another account's cluster of the same name ---------------------------------


def _chargeback(spec_file, report):
    import subprocess
    import sys

    command = ["chargeback", str(spec_file), "--usage", str(report), "--cost", "11000"]
    return subprocess.run(
        [sys.executable, "-m", "hyperpod_teams", *command], capture_output=True, text=True, timeout=60
    )


def test_a_usage_report_from_another_accounts_bucket_is_refused_and_one_from_the_clusters_is_read(
    tmp_path, quickstart_data
):
    """The generator's report names its cluster only (`Cluster Name:`), and a HyperPod cluster's
    name is unique per account and Region only: a cluster of the same name in another workload
    account passes the header check. The bucket the report was downloaded from, kept as its folder
    as the runbook's command keeps it, says whose it is."""
    from hyperpod_teams import usage_report
    from tests.test_chargeback import TWO_DAYS, summary_report

    for group in quickstart_data["cluster"]["instance_groups"]:
        group["instance_type"], group["count"] = "ml.p5.48xlarge", 2
    for team in quickstart_data["teams"]:
        team["compute"]["quota"] = [{"instance_type": "ml.p5.48xlarge", "count": 1}]
    spec = validate_spec(quickstart_data)
    org = spec.organization
    spec_file = tmp_path / "teams.json"
    spec_file.write_text(json.dumps(quickstart_data))
    rows = [row for row in TWO_DAYS if "ml.p5.48xlarge" in row]
    text = summary_report(rows).replace("Cluster Name: shared-pod", f"Cluster Name: {spec.cluster.name}")
    assert f"Cluster Name: {spec.cluster.name}" in text  # the header check passes for both

    other = tmp_path / usage_report.bucket_name(org.name, "444455556666", org.region) / "reports" / "csv" / "r.csv"
    other.parent.mkdir(parents=True)
    other.write_text(text)
    refused = _chargeback(spec_file, other)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "account 444455556666" in refused.stderr and "organization.account_id" in refused.stderr
    assert f"account {org.account_id}" in refused.stderr and "Traceback" not in refused.stderr
    assert refused.stdout == ""

    other_region = tmp_path / usage_report.bucket_name(org.name, org.account_id, "eu-west-1") / "r.csv"
    other_region.parent.mkdir(parents=True)
    other_region.write_text(text)
    assert _chargeback(spec_file, other_region).returncode == 2

    own = tmp_path / usage_report.bucket_name(org.name, org.account_id, org.region) / "reports" / "csv" / "r.csv"
    own.parent.mkdir(parents=True)
    own.write_text(text)
    read = _chargeback(spec_file, own)
    assert read.returncode == 0, read.stderr

    # A report downloaded without its bucket's folder is read as before: the same statement.
    loose = tmp_path / "r.csv"
    loose.write_text(text)
    unnamed = _chargeback(spec_file, loose)
    assert unnamed.returncode == 0, unnamed.stderr
    assert unnamed.stdout == read.stdout


def test_the_runbooks_download_keeps_the_bucket_that_chargeback_checks():
    """The runbook's commands as written: `aws s3 cp` into a folder named as the bucket, and
    `chargeback --usage` of the file there, whose origin is the cluster's account and Region."""
    import shlex

    from hyperpod_teams import usage_report
    from hyperpod_teams.review.runbook import render_runbook

    data = three_accounts()
    data.setdefault("cost", {})["usage_reports"] = {"enabled": True}
    spec = validate_spec(data)
    lines = render_runbook(spec).splitlines()
    (copy_line,) = [line for line in lines if line.startswith("aws s3 cp s3://") and "summary-report" in line]
    (usage_line,) = [line for line in lines if line.startswith("hyperpod-teams chargeback")]
    _, _, _, source, destination = shlex.split(copy_line)
    usage = shlex.split(usage_line.rstrip("\\"))[4]
    assert usage == destination + source.rsplit("/", 1)[1]
    assert source == "s3://" + usage
    origin = usage_report.report_origin(usage)
    assert origin is not None and (origin.account, origin.region) == (WORKLOAD, spec.organization.region)
