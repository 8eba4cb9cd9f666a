"""Independent security checkers on what the project generates, none of them written here:
checkov (synthesized AWS stacks, offline plans, RBAC manifests), parliament (every IAM policy
document), kubernetes-validate (RBAC manifests); and the search for secrets in all output.

What a checker finds that truly does not apply is skipped in `.checkov.yaml`, each with its reason.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from hyperpod_teams import policies, rbac
from hyperpod_teams.spec import load_spec, validate_spec
from tests.conftest import EXAMPLE_SPECS, EXAMPLES, ROOT, require_module, synthesize_stacks
from tests.offline_terraform import (
    is_aws_only,
    real_offline_plans,
)
from tests.test_iam_promises import KEY_POLICY, policy_documents

CHECKOV_CONFIG = ROOT / ".checkov.yaml"


def checkov(directory: Path, framework: str) -> dict:
    """Run checkov on a folder with the project's config; its JSON summary and failures."""
    require_module("checkov")
    checkov_bin = Path(sys.executable).parent / "checkov"
    result = subprocess.run(
        [
            str(checkov_bin),
            "--config-file",
            str(CHECKOV_CONFIG),
            "-d",
            str(directory),
            "--framework",
            framework,
            "-o",
            "json",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "BC_SKIP_MAPPING": "TRUE", "CHECKOV_RUN_SCA_PACKAGE_SCAN_V2": "false"},
        timeout=600,
    )
    reports = json.loads(result.stdout)
    reports = reports if isinstance(reports, list) else [reports]
    (report,) = [r for r in reports if r.get("check_type") == framework]
    return report


def describe_failures(report: dict) -> str:
    return "\n".join(
        f"{f['check_id']} {f['check_name']}: {f['resource']} in {f['file_path']}"
        for f in report["results"]["failed_checks"]
    )


# --- checkov ---------------------------------------------------------------------------------


def without_import_blocks(stack: dict) -> dict:
    """checkov 3.3.30's terraform_json parser fails on a file with top-level `import` blocks (a
    parsing error, every check of the file lost); they hold IDs, nothing a check reads, so the
    scan sees the stack without them. The plan scan below sees the imported resources as planned.
    The same for `moved` and `removed` blocks (state addresses only)."""
    return {key: value for key, value in stack.items() if key not in ("import", "moved", "removed")}


def test_checkov_passes_every_synthesized_aws_stack_of_every_example(example_stacks, tmp_path):
    """One scan of every example's AWS stacks, each in `<example>/<stack>/` (a failure names its
    file): one checkov start instead of one per example (about 3 CPU-seconds each)."""
    scanned: dict[str, int] = {}
    for example in [p.parent.name for p in EXAMPLE_SPECS]:
        for name, stack in example_stacks[example].items():
            if is_aws_only(stack):
                folder = tmp_path / example / name
                folder.mkdir(parents=True)
                (folder / "cdk.tf.json").write_text(json.dumps(without_import_blocks(stack), indent=2))
                scanned[example] = scanned.get(example, 0) + 1
    assert set(scanned) == {p.parent.name for p in EXAMPLE_SPECS}, scanned
    report = checkov(tmp_path, "terraform_json")
    assert report["summary"]["passed"] > 40 * len(scanned), report["summary"]  # it did read the stacks
    assert report["summary"]["parsing_errors"] == 0
    assert report["summary"]["failed"] == 0, describe_failures(report)


#: The examples whose offline plans checkov reads: between them, every AWS resource type of every
#: example (quickstart's and existing-hyperpod's are all among them: the test below holds it), so the
#: plans of the other two would show checkov nothing new.
PLAN_SCAN_EXAMPLES = ("okta", "team-work", "existing-cluster")


def _aws_resource_types(stacks: dict[str, dict]) -> set[str]:
    return {kind for stack in stacks.values() if is_aws_only(stack) for kind in stack.get("resource", {})}


def test_the_scanned_plans_hold_every_aws_resource_type_of_every_example(example_stacks):
    scanned = set().union(*(_aws_resource_types(example_stacks[e]) for e in PLAN_SCAN_EXAMPLES))
    for example, stacks in example_stacks.items():
        assert _aws_resource_types(stacks) <= scanned, (example, sorted(_aws_resource_types(stacks) - scanned))


@pytest.mark.terraform
def test_checkov_passes_the_offline_plans_of_every_example(example_stacks, tmp_path, tmp_path_factory):
    """The real binary's plans, which the offline plan test makes too (once per run: real_offline_plans)."""
    plans = tmp_path / "plans"
    plans.mkdir()
    scanned = 0
    for example in PLAN_SCAN_EXAMPLES:
        for name, found in real_offline_plans(tmp_path_factory, example, example_stacks[example]).items():
            assert isinstance(found, dict), found
            (plans / f"{example}-{name}.json").write_text(json.dumps(found))
            scanned += 1
    assert scanned >= 10
    report = checkov(plans, "terraform_plan")
    assert report["summary"]["passed"] > 100, report["summary"]
    assert report["summary"]["failed"] == 0, describe_failures(report)


@pytest.fixture(scope="module")
def rbac_manifests(tmp_path_factory) -> Path:
    """Every team's RBAC objects of every example, as Kubernetes manifests."""
    folder = tmp_path_factory.mktemp("rbac")
    for path in EXAMPLE_SPECS:
        for team in load_spec(path).teams:
            (folder / f"{path.parent.name}-{team.name}.yaml").write_text(
                yaml.safe_dump_all(rbac.team_rbac_manifests(team.name))
            )
    return folder


def test_checkov_passes_the_rbac_manifests(rbac_manifests):
    report = checkov(rbac_manifests, "kubernetes")
    assert report["summary"]["resource_count"] >= 6 * 7, report["summary"]
    assert report["summary"]["failed"] == 0, describe_failures(report)


@pytest.mark.parametrize("path", EXAMPLE_SPECS, ids=lambda p: p.parent.name)
def test_kubernetes_validate_accepts_the_rbac_manifests_strictly_for_the_specs_version(path, rbac_manifests):
    require_module("kubernetes_validate")
    version = load_spec(path).cluster.eks.kubernetes_version
    files = sorted(str(f) for f in rbac_manifests.glob(f"{path.parent.name}-*.yaml"))
    result = subprocess.run(
        [str(Path(sys.executable).parent / "kubernetes-validate"), "--strict", "--kubernetes-version", version, *files],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_checkov_skips_are_few_and_each_has_a_reason():
    lines = CHECKOV_CONFIG.read_text().splitlines()
    config = yaml.safe_load(CHECKOV_CONFIG.read_text())
    assert "framework" not in config and "skip-framework" not in config, "no framework may be skipped whole"
    for index, line in enumerate(lines):
        if line.strip().startswith("- CKV"):
            assert lines[index - 1].strip().startswith("# ") and len(lines[index - 1]) > 30, (
                f"no reason for {line.strip()}"
            )
    # Seven: five for the lifecycle bucket and the usage function, one for the instance-group record,
    # one for the Studio security groups (CKV2_AWS_5's list of resources a group attaches to has no
    # aws_sagemaker_domain).
    assert len(config["skip-check"]) <= 7


# --- parliament ------------------------------------------------------------------------------

#: Tokens that stand in policies for values known at apply time, and a value of the same shape.
TOKEN_STAND_INS = {
    r"\$\{aws_kms_key\.[\w-]+\.arn\}": "arn:aws:kms:us-west-2:111122223333:key/00000000-0000-0000-0000-000000000000",
    r"\$\{aws_sqs_queue\.[\w-]+\.arn\}": "arn:aws:sqs:us-west-2:111122223333:acme-hyperpod-usage-aggregation-failures",
    # A team's domain ID (the execution role creates spaces and apps in its own domain only).
    r"\$\{aws_sagemaker_domain\.[\w-]+\.id\}": "d-abcdef123456",
    # The shared EKS cluster's name, from the EKS stack (the node policy's Pod Identity resource).
    r"\$\{data\.terraform_remote_state\.[\w-]+\.outputs\.[\w-]+\}": "ml-shared-eks",
    # The EKS cluster's OIDC issuer and provider (the inference operator's IRSA roles).
    r"\$\{local\.[\w-]+oidc-issuer[\w-]*\}": "oidc.eks.us-west-2.amazonaws.com/id/0123456789ABCDEF",
    r"\$\{aws_iam_openid_connect_provider\.[\w-]+\.arn\}": (
        "arn:aws:iam::111122223333:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/0123456789ABCDEF"
    ),
    # The observability add-on's Prometheus workspace.
    r"\$\{aws_prometheus_workspace\.[\w-]+\.arn\}": "arn:aws:aps:us-west-2:111122223333:workspace/ws-0123",
}
#: Findings parliament makes of a document's kind rather than its content.
BY_KIND: dict[str | None, set[tuple[str, str | None]]] = {
    # A role trust policy has no Resource by definition (parliament's own note in statement.py).
    "trust": {
        ("MALFORMED", "Statement contains neither Resource nor NotResource"),
        # An EKS cluster's OIDC provider (IRSA: the inference operator's roles), which parliament's list
        # of federation sources predates; the stand-in above is the provider's ARN.
        ("UNKNOWN_FEDERATION_SOURCE", TOKEN_STAND_INS[r"\$\{aws_iam_openid_connect_provider\.[\w-]+\.arn\}"]),
    },
    # A key policy is where a key's permissions are managed, and its Resource "*" is the key itself.
    "key": {("RESOURCE_STAR", None), ("PERMISSIONS_MANAGEMENT_ACTIONS", None)},
    # The HyperPod nodes' EKS access: ecr:GetAuthorizationToken (nodes pull images) and the
    # network-interface permissions HyperPod attaches the nodes' ENIs with, both required by the
    # AWS docs' "IAM role for SageMaker HyperPod" (EKS); the community auditors flag them by name.
    "node": {("CREDENTIALS_EXPOSURE", None), ("PERMISSIONS_MANAGEMENT_ACTIONS", None)},
    # A team's execution role passes the team's own two roles (its own and the workload role), to
    # SageMaker only, to the training and processing jobs it starts: iam:PassRole, which the
    # community auditors flag by name (test_the_execution_roles_only_permission_management_is_passing_its_own_roles).
    # It also signs in to ECR (ecr:GetAuthorizationToken, a docker login) to pull the team's own
    # images; the community auditors flag the action by name, and what a pull then reads is held to
    # the team's repositories (test_policies.py, test_a_team_reads_its_own_images_and_no_other_teams).
    "execution": {("PERMISSIONS_MANAGEMENT_ACTIONS", None), ("CREDENTIALS_EXPOSURE", None)},
    # A team role's permission set: the same sign-in to ECR.
    "team role": {("CREDENTIALS_EXPOSURE", None)},
    # The inference operator's load balancer controller creates Elastic Load Balancing's service-linked
    # role on the account's first load balancer (iam:CreateServiceLinkedRole, held to that role's ARN and
    # AWSServiceName), which the community auditors flag by name.
    "load balancer": {("PERMISSIONS_MANAGEMENT_ACTIONS", None)},
}


#: Actions AWS added after the IAM definitions parliament (pinned) ships: the platform admins'
#: node operations and the autoscaling role's BatchAddClusterNodes (#47). Each is an operation of
#: the pinned botocore SageMaker model and unknown to parliament (test below), so "unknown" is
#: parliament's age, not a typo of ours.
NEWER_THAN_PARLIAMENT = (*policies.NODE_OPERATION_ACTIONS, "sagemaker:BatchAddClusterNodes")
UNKNOWN_BUT_REAL = {("UNKNOWN_ACTION", f"Unknown action {action}") for action in NEWER_THAN_PARLIAMENT} | {
    # The load balancer controller tags what it creates, and only then (its IAM policy,
    # kubernetes-sigs/aws-load-balancer-controller docs/install/iam_policy.json): the condition key is
    # Elastic Load Balancing V2's (Service Authorization Reference, "Condition keys for Elastic Load
    # Balancing V2": elasticloadbalancing:CreateAction), which parliament's definitions lack for AddTags.
    (
        "UNKNOWN_CONDITION_FOR_ACTION",
        "Unknown condition elasticloadbalancing:CreateAction for action elasticloadbalancing:AddTags",
    ),
}


def test_the_actions_parliament_does_not_know_are_operations_of_the_pinned_sagemaker_model():
    require_module("parliament")
    from tests.emulator.input_shapes import load_session

    session, _ = load_session()
    operations = set(session.get_service_model("sagemaker").operation_names)
    for action in NEWER_THAN_PARLIAMENT:
        assert action.removeprefix("sagemaker:") in operations, action
        assert ("UNKNOWN_ACTION", f"Unknown action {action}") in {
            (issue, str(detail)) for issue, detail in lint(_allow(action))
        }, f"parliament knows {action} now: drop it from NEWER_THAN_PARLIAMENT"


def _allow(action: str) -> str:
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {"Effect": "Allow", "Action": [action], "Resource": "arn:aws:sagemaker:us-west-2:1:cluster/*"}
            ],
        }
    )


def lint(document: str) -> list[tuple[str, object]]:
    from parliament import analyze_policy_string

    for pattern, value in TOKEN_STAND_INS.items():
        document = re.sub(pattern, value, document)
    assert "${" not in document, f"a Terraform reference without a stand-in: {document}"
    return [(f.issue, f.detail) for f in analyze_policy_string(document, include_community_auditors=True).findings]


@pytest.mark.parametrize("example", [p.parent.name for p in EXAMPLE_SPECS])
def test_parliament_finds_nothing_in_any_generated_iam_policy(example, example_stacks):
    require_module("parliament")
    documents = policy_documents(example_stacks[example])
    kinds = {where.split(": ")[1].split(".")[0] for where, _ in documents}
    assert {"aws_iam_role", "aws_iam_role_policy", "aws_kms_key"} <= kinds
    problems = []
    for where, document in documents:
        kind = (
            "trust"
            if where.split(": ")[1].startswith("aws_iam_role.")
            else "key"
            if f": {KEY_POLICY}." in where
            else "node"
            if "_eks-node-access_" in where
            else "execution"
            if "_execution-role_team-access_" in where
            else "team role"
            if "aws_ssoadmin_permission_set_inline_policy.permission-set-" in where and "platform" not in where
            else "load balancer"
            if "aws_iam_role_policy.inference-operator_load-balancer_" in where
            else None
        )
        allowed = BY_KIND.get(kind, set())
        for issue, detail in lint(json.dumps(document)):
            if (issue, None) in allowed or (issue, str(detail)) in allowed or (issue, str(detail)) in UNKNOWN_BUT_REAL:
                continue
            problems.append(f"{where}: {issue} {detail}")
    assert not problems, "\n".join(problems)


def test_the_execution_roles_only_permission_management_is_passing_its_own_roles(example_stacks):
    """What the "execution" allowance above lets through: iam:PassRole and no other IAM write, on the
    team's own roles, to SageMaker only."""
    for where, document in policy_documents(example_stacks["quickstart"]):
        if "_execution-role_team-access_" not in where:
            continue
        team = where.split(": ")[0].removeprefix("acme-team-")
        iam = [
            st for st in document["Statement"] if any(a.startswith("iam:") and a != "iam:GetRole" for a in st["Action"])
        ]
        (passing,) = iam
        assert passing["Action"] == ["iam:PassRole"]
        assert all(
            r.endswith((f"role/acme-{team}-execution", f"role/acme-{team}-workload")) for r in passing["Resource"]
        )
        assert passing["Condition"] == {"StringEquals": {"iam:PassedToService": "sagemaker.amazonaws.com"}}


def test_parliament_does_find_an_unknown_action_and_a_wide_grant():
    """The check above can fail: parliament reports what it is there to report."""
    require_module("parliament")

    def document(action: str) -> str:
        return json.dumps(
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": [action], "Resource": "*"}]}
        )

    assert "UNKNOWN_ACTION" in {issue for issue, _ in lint(document("sagemaker:DescribeBogus"))}
    assert "RESOURCE_STAR" in {issue for issue, _ in lint(document("sagemaker:UpdateCluster"))}


# --- secrets in output ----------------------------------------------------------------------

KNOWN_SECRETS = {
    "TF_VAR_scim_access_token": "scim-token-5b1e0c94-must-not-leak",
    "TF_VAR_scim_endpoint": "https://scim.us-west-2.amazonaws.com/must-not-leak/scim/v2/",
    "TF_VAR_identity_center_acs_url": "https://us-west-2.signin.aws.amazon.com/platform/saml/acs/must-not-leak",
    "ARM_CLIENT_SECRET": "entra-client-secret-must-not-leak",
    "OKTA_API_TOKEN": "okta-api-token-must-not-leak",
    "AWS_SECRET_ACCESS_KEY": "aws-secret-must-not-leak",
}


@pytest.mark.parametrize("example", ["quickstart", "okta"])
def test_no_secret_from_the_environment_appears_in_any_output(example, tmp_path, monkeypatch):
    """A pipeline holds these for `cdktf deploy`; synth, report and runbook must not copy any."""
    for name, value in KNOWN_SECRETS.items():
        monkeypatch.setenv(name, value)
    spec_path = EXAMPLES / example / "teams.yaml"
    synthesize_stacks(validate_spec(yaml.safe_load(spec_path.read_text())), tmp_path / "out")
    texts = {str(p): p.read_text() for p in (tmp_path / "out").rglob("*") if p.is_file()}
    assert any(name.endswith("cdk.tf.json") for name in texts)
    for command in (
        ["report", str(spec_path)],
        ["report", str(spec_path), "--format", "html"],
        ["runbook", str(spec_path)],
    ):
        result = subprocess.run(
            [sys.executable, "-m", "hyperpod_teams", *command], capture_output=True, text=True, env=os.environ.copy()
        )
        assert result.returncode == 0, result.stderr
        texts[" ".join(command)] = result.stdout + result.stderr
    leaks = [(where, name) for where, text in texts.items() for name, value in KNOWN_SECRETS.items() if value in text]
    assert not leaks


def test_the_only_credentials_a_team_role_can_get_are_the_registry_sign_in(quickstart_stacks):
    """What the "team role" and "execution" allowances let through: ecr:GetAuthorizationToken, held
    to the spec's region, and no other action parliament counts as exposing credentials."""
    require_module("parliament")
    from parliament import analyze_policy_string

    documents = [
        (where, document)
        for where, document in policy_documents(quickstart_stacks)
        if "_execution-role_team-access_" in where or "permission-set-nlp-" in where
    ]
    assert len(documents) == 3 + 2  # three teams' execution roles, nlp's two permission sets
    for where, document in documents:
        exposing = {
            action
            for statement in document["Statement"]
            for action in statement["Action"]
            if [
                f
                for f in analyze_policy_string(
                    json.dumps({"Version": "2012-10-17", "Statement": [{**statement, "Action": [action]}]}),
                    include_community_auditors=True,
                ).findings
                if f.issue == "CREDENTIALS_EXPOSURE"
            ]
        }
        assert exposing == {"ecr:GetAuthorizationToken"}, where


def test_parliament_finds_nothing_but_its_age_in_the_autoscaling_role():
    require_module("parliament")
    document = policies.hyperpod_autoscaling_policy(
        partition="aws",
        region="us-west-2",
        account_id="111122223333",
        kms_keys=["arn:aws:kms:us-west-2:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab"],
    )
    assert [f for f in lint(json.dumps(document)) if f not in UNKNOWN_BUT_REAL] == []
