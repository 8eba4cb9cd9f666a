"""Every stack of every example meets Terraform with the exact provider versions it pins.

No binary of the helm, kubernetes, azuread or okta provider can be installed here, and the AWS
binary here is 5.100.0 while the stacks pin 6.25.0. So each pinned provider is served by its schema
stand-in (tests/schema_provider): Terraform 1.11 installs it from a filesystem mirror at exactly the
pinned version (`init` fails on any other), checks every attribute, type, block, reference,
expression and lifecycle rule against the provider's published schema (`validate`), and evaluates
the whole configuration (`plan`). The real AWS binary still validates and plans the AWS stacks
(tests/test_terraform_offline.py). What the stand-in does not check: docs/testing.md.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.conftest import EXAMPLE_SPECS, TERRAFORM_SUMMARY
from tests.offline_terraform import (
    clone_charts,
    in_parallel,
    plan_changes,
    stand_in_plan_config,
    stand_in_terraform,
    stub_remote_states,
    write_stack,
)
from tests.schema_provider import mirror

pytestmark = pytest.mark.terraform

EXAMPLES = [path.parent.name for path in EXAMPLE_SPECS]


def pinned_providers(stack: dict) -> set[tuple[str, str]]:
    return {(name, spec["version"]) for name, spec in stack["terraform"].get("required_providers", {}).items()}


def record(kind: str, example: str, count: int, total: int) -> None:
    """A figure for the terminal summary's `terraform:` line (conftest), from any test process."""
    TERRAFORM_SUMMARY.mkdir(parents=True, exist_ok=True)
    (TERRAFORM_SUMMARY / f"{kind}-{example}.json").write_text(json.dumps({"count": count, "total": total}))


def adoption_world(example: str) -> dict:
    """What exists already in an example that adopts it, as Cloud Control describes it."""
    if example != "existing-hyperpod":
        return {}
    from tests.test_adopt_existing import adopted_world

    return adopted_world().cloud_control


def init(terraform, directory: Path) -> str | None:
    result = terraform.run(directory, "init", "-input=false", "-backend=false")
    return None if result.returncode == 0 else result.stderr


def test_every_pinned_provider_has_a_schema_stand_in(example_stacks):
    served = {(s.name, s.version) for s in mirror.available()}
    pinned = {pin for stacks in example_stacks.values() for stack in stacks.values() for pin in pinned_providers(stack)}
    assert pinned <= served, f"no schema stand-in for {sorted(pinned - served)}: add it (schemas/SOURCES.md)"


@pytest.mark.parametrize("example", EXAMPLES)
def test_every_stack_validates_against_the_providers_it_pins(example, example_stacks, tmp_path):
    terraform = stand_in_terraform(tmp_path)
    stacks = example_stacks[example]

    def validate(name: str) -> tuple[str, str | None]:
        directory = write_stack(tmp_path, name, stacks[name])
        failed = init(terraform, directory)
        if failed:
            return name, failed
        result = terraform.run(directory, "validate", "-json")
        report = json.loads(result.stdout)
        problems = [d for d in report["diagnostics"] if d["severity"] == "error" or "ignore_changes" in d["detail"]]
        return name, json.dumps(problems, indent=2) if problems or not report["valid"] else None

    failures = {name: error for name, error in in_parallel(validate, stacks) if error}
    record("validated", example, len(stacks) - len(failures), len(stacks))
    assert not failures, "\n".join(f"{name}:\n{error}" for name, error in failures.items())


@pytest.mark.parametrize("example", EXAMPLES)
def test_every_stack_plans_against_the_providers_it_pins(example, example_stacks, tmp_path):
    """A first plan of every stack, as after the stacks it reads were applied (stub remote
    states), with the Helm charts cloned where the runbook says: it only creates, reads and
    imports."""
    terraform = stand_in_terraform(tmp_path)
    world = adoption_world(example)
    stacks = {name: stand_in_plan_config(stack, world) for name, stack in example_stacks[example].items()}
    directories = {name: write_stack(tmp_path, name, stack) for name, stack in stacks.items()}
    for name, directory in directories.items():
        stub_remote_states(directory, stacks[name])
    clone_charts(tmp_path)

    def plan(name: str) -> tuple[str, dict | str]:
        failed = init(terraform, directories[name])
        return name, failed or plan_changes(terraform, directories[name])

    results = dict(in_parallel(plan, stacks))
    failures = {name: result for name, result in results.items() if isinstance(result, str)}
    record("planned", example, len(stacks) - len(failures), len(stacks))
    assert not failures, "\n".join(f"{name}:\n{error}" for name, error in failures.items())
    for name, plan_json in results.items():
        actions = {tuple(change["change"]["actions"]) for change in plan_json.get("resource_changes", [])}
        assert actions <= {("create",), ("read",), ("no-op",), ("update",)}, f"{name}: {actions}"
        if not plan_json.get("resource_changes"):
            assert plan_json.get("output_changes"), f"{name} plans nothing at all"


# --- the chart precondition --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("example", "stack", "clone"),
    [
        (
            "quickstart",
            "acme-hyperpod-deps",
            "git clone --depth 1 --branch v3.9.0 https://github.com/aws/sagemaker-hyperpod-cli",
        ),
        (
            "existing-cluster",
            "globex-usage-operator",
            "git clone https://github.com/awslabs/sagemaker-hyperpod-usage-report",
        ),
    ],
)
def test_a_chart_stack_stops_the_plan_with_the_clone_command_until_the_chart_is_cloned(
    example, stack, clone, example_stacks, tmp_path
):
    """`init` accepts the chart precondition (it refers to `path.module`), the plan stops with the
    clone command while the chart is missing, and passes once it is there."""
    terraform = stand_in_terraform(tmp_path)
    config = stand_in_plan_config(example_stacks[example][stack], {})
    directory = write_stack(tmp_path, stack, config)
    stub_remote_states(directory, config)
    assert init(terraform, directory) is None
    validated = terraform.run(directory, "validate")
    assert validated.returncode == 0, validated.stderr

    missing = terraform.plan(directory)
    assert isinstance(missing, str), "the plan must stop while the chart is not cloned"
    assert "Resource precondition failed" in missing
    assert clone in re.sub(r"\s+", " ", missing)

    clone_charts(tmp_path)
    planned = terraform.plan(directory)
    assert isinstance(planned, dict), planned
    assert {c["type"] for c in planned["resource_changes"]} >= {"helm_release"}


# --- the stand-in refuses what the real provider refuses -----------------------------------------------

#: A small configuration of the kind the stacks hold, valid against the published schemas.
VALID = {
    "terraform": {
        "required_providers": {
            "kubernetes": {"source": "hashicorp/kubernetes", "version": "2.38.0"},
            "helm": {"source": "hashicorp/helm", "version": "3.1.1"},
        }
    },
    "provider": {"kubernetes": [{"host": "https://example.eks.amazonaws.com"}]},
    "resource": {
        "kubernetes_namespace_v1": {"team": {"metadata": [{"name": "hyperpod-ns-nlp", "labels": {"a": "b"}}]}},
        "helm_release": {
            "chart": {
                "name": "usage",
                "chart": "./chart",
                "namespace": "${kubernetes_namespace_v1.team.metadata[0].name}",
                "set": [{"name": "region", "value": "us-west-2"}],
                "lifecycle": {
                    "precondition": [{"condition": '${fileexists("${path.module}/x")}', "error_message": "x"}]
                },
            }
        },
    },
}


def _broken(change) -> dict:
    config = json.loads(json.dumps(VALID))
    change(config)
    return config


REFUSALS = {
    "misspelt attribute": (
        lambda c: c["resource"]["kubernetes_namespace_v1"]["team"]["metadata"][0].update(lables={"a": "b"}),
        # In JSON syntax (what cdktf writes) Terraform names the property but suggests no spelling.
        'No argument or block type is named "lables".',
    ),
    "missing required argument": (
        lambda c: c["resource"]["helm_release"]["chart"].pop("name"),
        'The argument "name" is required, but no definition was found.',
    ),
    "wrong type": (
        lambda c: c["resource"]["helm_release"]["chart"].update(set="region=us-west-2"),
        'Inappropriate value for attribute "set": list of object required.',
    ),
    "unknown nested block": (
        lambda c: c["resource"]["kubernetes_namespace_v1"]["team"].update(spec=[{"finalizers": []}]),
        'No argument or block type is named "spec".',
    ),
    "condition that references nothing": (
        lambda c: c["resource"]["helm_release"]["chart"]["lifecycle"]["precondition"][0].update(
            condition='${fileexists("./chart/Chart.yaml")}'
        ),
        "The condition expression must refer to at least one object from elsewhere in the configuration",
    ),
    "attribute of another provider version": (
        lambda c: c["provider"]["kubernetes"][0].update(kubernetes={"host": "x"}),
        'No argument or block type is named "kubernetes".',
    ),
}


@pytest.fixture(scope="module")
def small_terraform(tmp_path_factory):
    return stand_in_terraform(tmp_path_factory.mktemp("stand-in-refusals"))


def _validate(terraform, directory: Path, config: dict) -> str:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "main.tf.json").write_text(json.dumps(config))
    failed = init(terraform, directory)
    if failed:
        return re.sub(r"\s+", " ", failed)
    result = terraform.run(directory, "validate")
    return "" if result.returncode == 0 else re.sub(r"\s+", " ", result.stderr)


def test_the_small_configuration_is_valid_as_it_is(small_terraform, tmp_path):
    assert _validate(small_terraform, tmp_path, VALID) == ""


@pytest.mark.parametrize("fault", REFUSALS)
def test_the_stand_in_refuses_what_the_provider_refuses(fault, small_terraform, tmp_path):
    change, message = REFUSALS[fault]
    error = _validate(small_terraform, tmp_path, _broken(change))
    assert message in error, error


def test_init_refuses_a_version_other_than_the_one_kept(small_terraform, tmp_path):
    config = _broken(lambda c: c["terraform"]["required_providers"]["helm"].update(version="3.1.2"))
    error = _validate(small_terraform, tmp_path, config)
    assert "no available releases match the given constraints 3.1.2" in error, error


def test_the_stand_in_cannot_apply(small_terraform, tmp_path):
    """A stand-in plans; asked to apply it says so instead of pretending."""
    config = {
        "terraform": VALID["terraform"],
        "resource": {"kubernetes_namespace_v1": {"team": {"metadata": [{"name": "x"}]}}},
    }
    (tmp_path / "main.tf.json").write_text(json.dumps(config))
    assert init(small_terraform, tmp_path) is None
    result = small_terraform.run(tmp_path, "apply", "-auto-approve", "-input=false")
    assert result.returncode != 0
    assert "kubernetes 2.38.0 is a schema stand-in" in result.stderr


def test_the_schema_files_are_the_ones_sources_md_names():
    """Every kept schema is listed with its source, and nothing else is kept."""
    sources = (mirror.SCHEMAS / "SOURCES.md").read_text()
    for stand_in in mirror.available():
        assert stand_in.schema_file.exists(), stand_in
        assert f"`{stand_in.schema_file.name}`" in sources, f"{stand_in.schema_file.name} has no source in SOURCES.md"
    kept = {path.name for path in mirror.SCHEMAS.glob("*.json.gz")}
    assert kept == {s.schema_file.name for s in mirror.available()}
    assert shutil.which("git")  # the build script reads the published schemas' git tags


# --- the okta schema's method, checked where a published schema exists -------------------------------


def _shape(block: dict) -> dict:
    """What reading a binding back can know of a block: names, blocks, required or optional or
    computed-only, and types."""
    shape: dict = {}
    for name, attribute in block.get("attributes", {}).items():
        role = "required" if attribute.get("required") else "optional" if attribute.get("optional") else "computed"
        shape[name] = (role, json.dumps(attribute.get("type")))
    for name, nested in block.get("block_types", {}).items():
        shape[name] = ("block", nested["nesting_mode"], _shape(nested["block"]))
    return shape


@pytest.mark.parametrize("provider", ["kubernetes", "azuread"])
def test_a_schema_read_back_from_a_binding_matches_the_published_one(provider, example_stacks):
    """The okta schema is read back from its prebuilt binding (no published one exists), and so are
    the CDK Terrain versions' resources (SOURCES.md). The same reading of the CDKTF kubernetes and
    azuread bindings gives, for every resource type the stacks use,
    exactly their published schemas (at the level of detail SOURCES.md states)."""
    import glob
    import gzip
    import importlib.util

    from hyperpod_teams import engine
    from tests.schema_provider.from_binding import read_binding

    cdktf_version = dict(engine.CDKTF.provider_versions)[provider]
    (stand_in,) = [s for s in mirror.available() if s.name == provider and s.version == cdktf_version]
    published = json.loads(gzip.decompress(stand_in.schema_file.read_bytes()))["resource_schemas"]
    found = importlib.util.find_spec(f"cdktf_cdktf_provider_{provider}")
    assert found is not None and found.origin is not None, f"the {provider} bindings are not installed"
    package = Path(found.origin).parent
    (bundle,) = glob.glob(str(package / "_jsii" / "*.jsii.tgz"))
    every = {t for stacks in example_stacks.values() for s in stacks.values() for t in s.get("resource", {})}
    used = sorted(t for t in every if t.startswith(f"{provider}_"))
    assert used
    for type_name in used:
        folder = type_name.split("_", 1)[1].replace("_", "-")
        read_back = _shape(read_binding(bundle, folder).resource(type_name)["block"])
        expected = _shape(published[type_name]["block"])
        for name in BINDING_AMBIGUITIES.get(type_name, ()):
            read_back.pop(name), expected.pop(name)
        assert read_back == expected, type_name


#: What a binding cannot tell apart, by resource type: an attribute of object type, which cdktf's
#: generator writes as a single block ("isBlock: true", type "struct") like a block of its own.
#: kubernetes_manifest's deprecated `wait_for` is one; the stacks never set it.
BINDING_AMBIGUITIES = {"kubernetes_manifest": ("wait_for",)}


# --- the VPC CNI floor -------------------------------------------------------------------------------


@pytest.mark.parametrize(("version", "plans"), [("v1.18.2-eksbuild.1", False), ("v1.18.3-eksbuild.1", True)])
def test_an_existing_eks_clusters_vpc_cni_below_1_18_3_stops_the_plan_with_the_fix(
    version, plans, example_stacks, tmp_path
):
    """HyperPod needs the VPC CNI at 1.18.3 or later: the plan of an existing cluster's EKS stack
    stops below it, naming the version found and the update command."""
    terraform = stand_in_terraform(tmp_path, data={"aws_eks_addon": {"addon_version": version}})
    config = stand_in_plan_config(example_stacks["existing-cluster"]["globex-eks"], {})
    directory = write_stack(tmp_path, "globex-eks", config)
    assert init(terraform, directory) is None
    result = terraform.plan(directory)
    if plans:
        assert isinstance(result, dict), result
    else:
        assert isinstance(result, str), "the plan went through"
        flat = re.sub(r"\s+", " ", result)
        assert "Resource postcondition failed" in flat
        assert f"has {version}" in flat and "aws eks update-addon --cluster-name globex-shared-eks" in flat


def test_the_version_floor_is_the_one_terraform_evaluates(tmp_path):
    """The floor's expression, run by `terraform console` itself."""
    from hyperpod_teams.addons import version_at_least

    terraform = stand_in_terraform(tmp_path)
    cases = {
        "v1.18.2-eksbuild.1": False,
        "v1.18.3-eksbuild.1": True,
        "v1.19.0-eksbuild.2": True,
        "v2.0.0-eksbuild.1": True,
        "v1.9.9-eksbuild.1": False,
        "no version": False,
    }
    for version, expected in cases.items():
        result = subprocess.run(
            ["terraform", "console"],
            input=version_at_least(json.dumps(version), (1, 18, 3)),
            cwd=tmp_path,
            env=terraform.env,
            capture_output=True,
            text=True,
        )
        assert result.stdout.strip() == str(expected).lower(), (version, result.stdout, result.stderr)


# --- the CloudWatch Observability option ----------------------------------------------------------


def test_the_cloudwatch_observability_option_plans_the_addon_after_the_nodes_may_publish(tmp_path):
    """Off in every example (its resources appear nowhere above); on, the cluster stack plans the
    add-on and the agent's policy on the instance groups' role, through Terraform."""
    import copy

    import yaml

    from hyperpod_teams.spec.models import PlatformSpec
    from tests.conftest import QUICKSTART, synthesize_stacks

    data = copy.deepcopy(yaml.safe_load(QUICKSTART.read_text()))
    data["cluster"]["cloudwatch_observability"] = True
    stacks = synthesize_stacks(PlatformSpec.model_validate(data), tmp_path / "out")
    cluster = stacks["acme-cluster"]
    (addon,) = [
        a for a in cluster["resource"]["aws_eks_addon"].values() if a["addon_name"] == "amazon-cloudwatch-observability"
    ]
    policies = [p["policy_arn"] for p in cluster["resource"]["aws_iam_role_policy_attachment"].values()]
    assert "arn:aws:iam::aws:policy/CloudWatchAgentServerPolicy" in policies
    assert any("cloudwatch-agent-policy" in d for d in addon["depends_on"])

    terraform = stand_in_terraform(tmp_path)
    config = stand_in_plan_config(cluster, {})
    directory = write_stack(tmp_path, "acme-cluster", config)
    stub_remote_states(directory, config)
    assert init(terraform, directory) is None
    plan = terraform.plan(directory)
    assert isinstance(plan, dict), plan
    created = {c["address"] for c in plan["resource_changes"] if c["change"]["actions"] == ["create"]}
    assert any(a.startswith("aws_eks_addon.cloudwatch-observability") for a in created), created


# --- task governance switched on later ------------------------------------------------------------


def test_switching_task_governance_on_forgets_the_team_namespace_instead_of_destroying_it(example_stacks, tmp_path):
    """With task governance off, `<org>-k8s-<team>` created the team namespace; switched on, the
    namespace is task governance's and the stack drops it. The plan must forget it (Terraform's
    `removed` block, `destroy = false`): destroying it would take everything the team runs there."""
    terraform = stand_in_terraform(tmp_path)
    stack = example_stacks["quickstart"]["acme-k8s-nlp"]  # task governance on
    config = stand_in_plan_config(stack, {})
    directory = write_stack(tmp_path, "acme-k8s-nlp", config)
    stub_remote_states(directory, config)
    # The state as the stack left it with task governance off: the namespace it created.
    namespace = {
        "mode": "managed",
        "type": "kubernetes_namespace_v1",
        "name": "namespace",
        "provider": 'provider["registry.terraform.io/hashicorp/kubernetes"]',
        "instances": [
            {
                "schema_version": 0,
                "attributes": {"id": "hyperpod-ns-nlp", "metadata": [{"name": "hyperpod-ns-nlp"}]},
            }
        ],
    }
    state = {"version": 4, "terraform_version": "1.11.0", "serial": 1, "lineage": "day-2", "resources": [namespace]}
    (directory / "terraform.tfstate").write_text(json.dumps(state))
    assert init(terraform, directory) is None
    plan = terraform.plan(directory, "-refresh=false")
    assert isinstance(plan, dict), plan
    actions = {c["address"]: c["change"]["actions"] for c in plan["resource_changes"]}
    assert actions["kubernetes_namespace_v1.namespace"] == ["forget"]
    assert not [address for address, change in actions.items() if "delete" in change]
    # And the same block in a first deploy, with no namespace in the state, plans nothing for it.
    (directory / "terraform.tfstate").unlink()
    first = terraform.plan(directory, "-refresh=false", name="first")
    assert isinstance(first, dict), first
    assert "kubernetes_namespace_v1.namespace" not in {c["address"] for c in first.get("resource_changes", [])}


# --- several clusters (#61) ----------------------------------------------------------------------------


def test_the_stacks_new_with_several_clusters_plan_against_the_providers_they_pin(tmp_path):
    """The stacks of tests/data/specs/two-clusters.yaml that a one-cluster example has no twin of:
    the access stack assigning in every account, the cost category of two clusters, a team's place
    off its home and its Kubernetes stack there, the home whose workload role trusts both clusters,
    and the second cluster in its own Region; with infer in another account, nlp's place there (a
    role of that account assuming nlp's workload role, the association's target) and its home (the
    role trusting it). A first plan: it only creates and reads."""
    from hyperpod_teams.spec import load_platform, validate_platform
    from tests.conftest import synthesize_stacks

    spec_file = Path(__file__).parent / "data" / "specs" / "two-clusters.yaml"
    (tmp_path / "synth").mkdir()
    synthesized = synthesize_stacks(load_platform(spec_file), tmp_path / "synth" / "cdktf.out")
    data = yaml.safe_load(spec_file.read_text())
    data["clusters"][1]["account_id"] = "444455556666"
    (tmp_path / "synth-accounts").mkdir()
    accounts = synthesize_stacks(validate_platform(data), tmp_path / "synth-accounts" / "cdktf.out")
    synthesized.update({f"{name}-accounts": accounts[name] for name in ("acme-team-nlp", "acme-infer-team-nlp")})
    names = [
        "acme-access",
        "acme-cost",
        "acme-team-nlp",
        "acme-infer-cluster",
        "acme-infer-team-nlp",
        "acme-infer-k8s-nlp",
        "acme-team-nlp-accounts",
        "acme-infer-team-nlp-accounts",
    ]
    terraform = stand_in_terraform(tmp_path)
    stacks = {name: stand_in_plan_config(synthesized[name], {}) for name in names}
    directories = {name: write_stack(tmp_path, name, stack) for name, stack in stacks.items()}
    for name, directory in directories.items():
        stub_remote_states(directory, stacks[name])

    def plan(name: str) -> tuple[str, dict | str]:
        failed = init(terraform, directories[name])
        return name, failed or plan_changes(terraform, directories[name])

    results = dict(in_parallel(plan, names))
    failures = {name: result for name, result in results.items() if isinstance(result, str)}
    assert not failures, "\n".join(f"{name}:\n{error}" for name, error in failures.items())
    for name, planned in results.items():
        actions = {tuple(change["change"]["actions"]) for change in planned["resource_changes"]}
        assert actions <= {("create",), ("read",)}, f"{name}: {actions}"
    created = {change["address"] for change in results["acme-access"]["resource_changes"]}
    assert any(address.endswith("_assignment_A51DF0DF") for address in created)
    placed = {change["address"].split(".")[0] for change in results["acme-infer-team-nlp"]["resource_changes"]}
    assert {"aws_cloudcontrolapi_resource", "aws_eks_access_entry", "aws_eks_pod_identity_association"} <= placed
    # The pinned provider's schema takes the association's target role (an unknown argument fails the plan).
    chained = {change["address"] for change in results["acme-infer-team-nlp-accounts"]["resource_changes"]}
    assert {"aws_iam_role.pod-identity-role", "aws_eks_pod_identity_association.pod-identity"} <= chained
