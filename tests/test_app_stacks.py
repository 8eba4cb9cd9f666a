"""The app builds the stack set of docs/architecture.md: one provider system per stack, the spec's backend,
explicit deploy order. Real synth (the engine of hyperpod_teams.engine) with the real bindings."""

from __future__ import annotations

import json

from hyperpod_teams.spec import validate_spec
from tests.conftest import synthesize_stacks

QUICKSTART_STACKS = {
    "acme-identity",
    "acme-access",
    "acme-eks",
    "acme-hyperpod-deps",
    "acme-cluster",
    "acme-cost",
    *(f"acme-team-{t}" for t in ("nlp", "vision", "research")),
    *(f"acme-k8s-{t}" for t in ("nlp", "vision", "research")),
}


def providers_of(stack: dict) -> set[str]:
    return set(stack.get("provider", {}))


def test_quickstart_synthesizes_the_stack_set_of_the_design(quickstart_stacks):
    assert set(quickstart_stacks) == QUICKSTART_STACKS


def test_every_stack_needs_the_credentials_of_one_system_only(quickstart_stacks):
    expected = {"acme-identity": {"azuread"}, "acme-hyperpod-deps": {"helm"}}
    for name, stack in quickstart_stacks.items():
        if name.startswith("acme-k8s-"):
            assert providers_of(stack) == {"kubernetes"}, name
        else:
            assert providers_of(stack) == expected.get(name, {"aws"}), name


def test_aws_stacks_are_pinned_to_the_region_and_account(quickstart_stacks):
    for name in ("acme-access", "acme-cluster", "acme-team-nlp"):
        (aws,) = quickstart_stacks[name]["provider"]["aws"]
        assert aws["region"] == "us-west-2" and aws["allowed_account_ids"] == ["111122223333"]
    (payer,) = quickstart_stacks["acme-cost"]["provider"]["aws"]
    assert "allowed_account_ids" not in payer  # the payer account may be another one


def test_team_stacks_tag_everything_with_team_and_cost_center(quickstart_stacks):
    (aws,) = quickstart_stacks["acme-team-nlp"]["provider"]["aws"]
    assert aws["default_tags"][0]["tags"] == {
        "owner": "ml-platform",
        "hyperpod-teams:organization": "acme",
        "hyperpod-teams:team": "nlp",
        "hyperpod-teams:cost-center": "CC-1001",
    }
    (research,) = quickstart_stacks["acme-team-research"]["provider"]["aws"]
    assert "hyperpod-teams:cost-center" not in research["default_tags"][0]["tags"]


def test_kubernetes_stack_reaches_the_cluster_through_cross_stack_references(quickstart_stacks):
    stack = quickstart_stacks["acme-k8s-nlp"]
    (provider,) = stack["provider"]["kubernetes"]
    assert "data.terraform_remote_state.cross-stack-reference-input-acme-eks" in provider["host"]
    assert provider["exec"][0]["command"] == "aws"
    assert set(stack["data"]["terraform_remote_state"]) == {"cross-stack-reference-input-acme-eks"}


def test_deploy_order_is_explicit(quickstart_stacks, tmp_path_factory):
    from tests.conftest import QUICKSTART, synthesized_dir

    manifest_dir = synthesized_dir(tmp_path_factory, QUICKSTART)
    manifest = json.loads((manifest_dir / "manifest.json").read_text())["stacks"]
    depends = {name: set(entry["dependencies"]) for name, entry in manifest.items()}
    assert depends["acme-access"] == {"acme-identity"}
    assert depends["acme-hyperpod-deps"] == {"acme-eks"}
    assert depends["acme-cluster"] == {"acme-eks", "acme-hyperpod-deps", "acme-access"}
    assert depends["acme-team-nlp"] == {"acme-cluster", "acme-access", "acme-eks"}
    assert depends["acme-k8s-nlp"] == {"acme-eks", "acme-team-nlp"}
    assert depends["acme-eks"] == set() and depends["acme-cost"] == set()


def test_local_state_lives_beside_the_output_folder(quickstart_stacks):
    backend = quickstart_stacks["acme-cluster"]["terraform"]["backend"]
    assert backend == {"local": {"path": "../../../terraform.acme-cluster.tfstate"}}
    remote = quickstart_stacks["acme-team-nlp"]["data"]["terraform_remote_state"]
    assert (
        remote["cross-stack-reference-input-acme-cluster"]["config"]["path"]
        == "../../../terraform.acme-cluster.tfstate"
    )


def test_s3_backend_has_one_key_per_stack_with_locking_and_encryption(quickstart_data, tmp_path):
    quickstart_data["backend"] = {"type": "s3", "bucket": "acme-tf-state", "kms_key_id": "alias/tf"}
    stacks = synthesize_stacks(validate_spec(quickstart_data), tmp_path)
    keys = set()
    for name, stack in stacks.items():
        s3 = stack["terraform"]["backend"]["s3"]
        assert s3["bucket"] == "acme-tf-state" and s3["region"] == "us-west-2"
        assert s3["use_lockfile"] is True and s3["encrypt"] is True and s3["kms_key_id"] == "alias/tf"
        assert s3["key"] == f"hyperpod-teams/{name}/terraform.tfstate"
        keys.add(s3["key"])
    assert len(keys) == len(stacks)
    remote = stacks["acme-k8s-nlp"]["data"]["terraform_remote_state"]["cross-stack-reference-input-acme-eks"]
    assert remote["backend"] == "s3" and remote["config"]["key"] == "hyperpod-teams/acme-eks/terraform.tfstate"


def test_remote_backend_has_one_workspace_per_stack(quickstart_data, tmp_path):
    quickstart_data["backend"] = {"type": "remote", "organization": "acme-corp", "workspace_prefix": "hp-"}
    stacks = synthesize_stacks(validate_spec(quickstart_data), tmp_path)
    for name, stack in stacks.items():
        remote = stack["terraform"]["backend"]["remote"]
        assert remote["organization"] == "acme-corp" and remote["hostname"] == "app.terraform.io"
        assert remote["workspaces"] == {"name": f"hp-{name}"}


def test_existing_cluster_is_looked_up_not_created(quickstart_data, tmp_path):
    quickstart_data["cluster"]["eks"] = {"existing_cluster_name": "shared-eks"}
    eks = synthesize_stacks(validate_spec(quickstart_data), tmp_path)["acme-eks"]
    assert "aws_eks_cluster" not in eks.get("resource", {})
    (lookup,) = eks["data"]["aws_eks_cluster"].values()
    assert lookup["name"] == "shared-eks"


def test_created_eks_cluster_uses_api_authentication_and_the_spec_network(quickstart_stacks):
    (eks,) = quickstart_stacks["acme-eks"]["resource"]["aws_eks_cluster"].values()
    assert eks["access_config"]["authentication_mode"] == "API"
    assert eks["version"] == "1.32" and eks["name"] == "ml-shared-eks"
    assert eks["vpc_config"]["subnet_ids"] == ["subnet-0a1b2c3d4e5f60718", "subnet-0f1e2d3c4b5a60718"]
    assert set(eks["enabled_cluster_log_types"]) == {"api", "audit", "authenticator", "controllerManager", "scheduler"}


def test_generic_saml_needs_no_identity_stack(quickstart_data, tmp_path):
    quickstart_data["identity"]["provider"] = "generic_saml"
    stacks = synthesize_stacks(validate_spec(quickstart_data), tmp_path)
    assert "acme-identity" not in stacks
    assert set(stacks) == QUICKSTART_STACKS - {"acme-identity"}


def test_adding_a_team_leaves_other_teams_stacks_untouched(quickstart_data, quickstart_stacks, tmp_path):
    quickstart_data["teams"].append({"name": "speech", "cost_center": "CC-2000"})
    stacks = synthesize_stacks(validate_spec(quickstart_data), tmp_path)
    assert {"acme-team-speech", "acme-k8s-speech"} <= set(stacks)
    for name in QUICKSTART_STACKS:
        if "-team-" in name or "-k8s-" in name:
            assert stacks[name] == quickstart_stacks[name], f"{name} changed when another team was added"


def test_the_wheel_installs_everything_under_hyperpod_teams(tmp_path_factory):
    """stacks/ and providers/ ship as hyperpod_teams.stacks and hyperpod_teams.providers."""
    import zipfile

    from tests.conftest import project_wheel

    names = zipfile.ZipFile(project_wheel(tmp_path_factory)).namelist()
    top_level = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert top_level == {"hyperpod_teams"}
    assert "hyperpod_teams/stacks/cluster.py" in names
    assert "hyperpod_teams/providers/entra_id/__init__.py" in names
    assert "hyperpod_teams/spec/spec-v1.schema.json" in names
    assert "hyperpod_teams/instance_types.json" in names  # AWS's instance types, which the spec checks
    assert "hyperpod_teams/providers/okta/resources.py" in names
    # node would not start without the preload, nor the preload without its rewriters
    for script in ("preload", "lazy_provider_exports", "no_creation_stacks", "kernel_in_process"):
        assert f"hyperpod_teams/speedups/node/{script}.js" in names


def test_every_kind_of_planned_stack_has_one_builder_and_the_app_builds_the_plan_in_its_order():
    """One stack graph: the app iterates stack_plan and calls the builder of each stack's kind, so
    a kind without a builder, or a builder the plan never uses, is a stack written in one place only."""
    import copy
    from typing import get_args

    from hyperpod_teams.app import BUILDERS, add_platform_stacks, add_several_clusters_stacks
    from hyperpod_teams.engine import cdk
    from hyperpod_teams.spec.clusters import validate_several_clusters
    from hyperpod_teams.stack_plan import StackKind, several_clusters_stack_plan, stack_plan
    from tests.conftest import _quickstart_data
    from tests.test_spec_clusters import two_clusters

    assert set(BUILDERS) == set(get_args(StackKind))
    data = copy.deepcopy(_quickstart_data())  # the cached original is every test's
    data["cost"] = {"usage_reports": {"enabled": True}}
    spec = validate_spec(data)
    plan = stack_plan(spec)
    # The quickstart with usage reports has every kind but a team's place off its home cluster,
    # which a spec of several clusters has.
    assert {s.kind for s in plan} == set(get_args(StackKind)) - {"team-placement"}
    built = add_platform_stacks(cdk.App(), spec)
    assert [s.stack_name for s in built.all()] == [s.name for s in plan]
    several = validate_several_clusters(two_clusters())
    plan = several_clusters_stack_plan(several)
    assert "team-placement" in {s.kind for s in plan}
    assert [s.stack_name for s in add_several_clusters_stacks(cdk.App(), several).all()] == [s.name for s in plan]


def test_every_output_of_every_stack_says_what_it_is(quickstart_data, tmp_path):
    """A reviewer reads `terraform output` and the plan: each output of ours carries a description
    (cdktf writes the `cross-stack-output-...` ones that carry references between stacks)."""
    stacks = synthesize_stacks(validate_spec(quickstart_data), tmp_path)
    bare = [f"{name}.{key}" for name, stack in stacks.items() for key, out in stack.get("output", {}).items()
            if not out.get("description") and not key.startswith("cross-stack-output-")]  # fmt: skip
    assert bare == []
