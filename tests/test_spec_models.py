"""The spec models accept the contract of spec-v1.md and fill its defaults."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from hyperpod_teams.spec import PlatformSpec, SpecError, load_spec, validate_spec
from hyperpod_teams.spec.models import RemoteBackend, S3Backend
from tests.conftest import EXAMPLE_SPECS


@pytest.mark.parametrize("path", EXAMPLE_SPECS, ids=lambda p: p.parent.name)
def test_every_example_spec_is_valid(path):
    assert load_spec(path).version == 1


def test_minimal_spec_gets_the_documented_defaults(quickstart_data):
    data = {
        "version": 1,
        "organization": {"name": "acme", "account_id": "111122223333", "region": "us-west-2"},
        "identity": {
            "provider": "entra_id",
            "identity_center": {
                "instance_arn": "arn:aws:sso:::instance/ssoins-0123456789abcdef",
                "identity_store_id": "d-0123456789",
            },
        },
        "cluster": {
            "name": "ml",
            "network": quickstart_data["cluster"]["network"],
            "instance_groups": [{"name": "g", "instance_type": "ml.p5.48xlarge", "count": 2}],
        },
        "teams": [{"name": "nlp"}],
    }
    spec = validate_spec(data)
    assert spec.backend.type == "local"
    assert spec.organization.tags == {} and spec.organization.platform_admins_group is None
    assert spec.identity.identity_center.session_duration == "PT8H"
    assert spec.identity.group_name_pattern == "{org}-{team}-{role}"
    assert spec.cluster.eks.creates_cluster and spec.cluster.eks.kubernetes_version == "1.32"
    assert spec.cluster.node_recovery == "Automatic"
    group = spec.cluster.instance_groups[0]
    assert (group.ebs_volume_gb, group.threads_per_core, group.deep_health_checks) == (500, 1, [])
    governance = spec.cluster.task_governance
    assert (governance.enabled, governance.fair_share, governance.priority_classes) == (True, "Enabled", [])
    team = spec.teams[0]
    assert team.title == "nlp" and team.cost_center is None and team.budget is None
    assert (team.members.scientists, team.members.admins) == (None, None)
    compute = team.compute
    assert compute.quota == [] and compute.sharing == "LendAndBorrow"
    assert compute.borrow_limit_percent == 50 and compute.borrow_limit == 50
    assert (compute.preempt_team_tasks, compute.fair_share_weight) == ("LowerPriority", 0)
    assert (team.studio.enabled, team.studio.default_instance_type, team.studio.idle_timeout_minutes) == (
        True,
        "ml.t3.medium",
        60,
    )


def test_s3_backend_defaults(quickstart_data):
    quickstart_data["backend"] = {"type": "s3", "bucket": "acme-tf-state"}
    backend = validate_spec(quickstart_data).backend
    assert isinstance(backend, S3Backend)
    assert (backend.key_prefix, backend.region, backend.use_lockfile, backend.encrypt, backend.kms_key_id) == (
        "hyperpod-teams/",
        None,
        True,
        True,
        None,
    )


def test_remote_backend_defaults_to_hcp_terraform(quickstart_data):
    quickstart_data["backend"] = {"type": "remote", "organization": "acme", "workspace_prefix": "hp-"}
    backend = validate_spec(quickstart_data).backend
    assert isinstance(backend, RemoteBackend) and backend.hostname == "app.terraform.io"


def test_existing_cluster_alone_means_no_cluster_is_created(quickstart_data):
    quickstart_data["cluster"]["eks"] = {"existing_cluster_name": "shared-eks"}
    eks = validate_spec(quickstart_data).cluster.eks
    assert not eks.creates_cluster and eks.existing_cluster_name == "shared-eks"


def test_borrow_limit_is_none_for_teams_that_never_borrow(quickstart_data):
    spec = validate_spec(quickstart_data)
    assert spec.team("vision").compute.borrow_limit is None


def test_spec_built_in_python_is_checked_like_a_file(quickstart_data):
    quickstart_data["teams"][0]["compute"]["quota"][0]["count"] = 99
    with pytest.raises(SpecError) as raised:
        PlatformSpec.model_validate(quickstart_data)
    assert raised.value.problems[0].location == "teams[0].compute.quota[0].count"


def test_models_are_immutable(quickstart_data):
    spec = validate_spec(quickstart_data)
    with pytest.raises(ValidationError, match="frozen"):
        spec.teams[0].name = "other"  # type: ignore[misc]


def test_json_spec_is_accepted_with_lines(tmp_path, quickstart_data):
    import json

    path = tmp_path / "teams.json"
    quickstart_data["teams"][1]["compute"]["fair_share_weight"] = 101
    path.write_text(json.dumps(quickstart_data, indent=2))
    with pytest.raises(SpecError) as raised:
        load_spec(path)
    problem = raised.value.problems[0]
    assert problem.location == "teams[1].compute.fair_share_weight"
    assert problem.line is not None
    assert '"fair_share_weight": 101' in path.read_text().splitlines()[problem.line - 1]


@pytest.mark.parametrize(
    ("name", "words"),
    [("shared-platform", "the shared platform's cost category value"), ("unattributed", "default value")],
)
def test_a_team_may_not_take_a_cost_category_value_the_stacks_reserve(quickstart_data, name, words):
    """A team's cost category value is its name: `shared-platform` would put its spend in the pool the
    split charge rule divides, `unattributed` would make the account's untagged spend the team's."""
    quickstart_data["teams"][1]["name"] = name
    with pytest.raises(SpecError) as refused:
        validate_spec(quickstart_data)
    assert any(p.path == ("teams", 1, "name") and words in p.message for p in refused.value.problems)
