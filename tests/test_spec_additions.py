"""A field added to version 1 keeps what an older spec meant when it is absent (docs/spec-versions.md).

The older specs are the last release's (0.2.0) own examples, kept unchanged in
tests/data/release-0.2.0/; what that release derived from them (its stacks, its cluster, scheduler
config and compute quota requests) was written by the release's own code (write_requests.py there),
never by the code under test. Each field the schema gained since that release has its test here:
main reads every older spec, which is silent on the field, and derives what the release derived;
a new field without an entry fails the first test. Pure layer: no engine, no Terraform.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
import yaml

from hyperpod_teams import isolation, naming
from hyperpod_teams.spec.loading import load_spec
from hyperpod_teams.stack_plan import stack_plan

RELEASE = Path(__file__).parent / "data" / "release-0.2.0"
SCHEMA_NOW = Path(__file__).parents[1] / "hyperpod_teams" / "spec" / "spec-v1.schema.json"
EXAMPLES = ("quickstart", "okta", "existing-cluster", "existing-hyperpod")


def _load_derivation():
    """The release's derivation script, run here with main's code."""
    spec = importlib.util.spec_from_file_location("release_requests", RELEASE / "write_requests.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RELEASED = json.loads((RELEASE / "requests.json").read_text())
#: Loaded once: every check derives with the same script.
DERIVATION = _load_derivation()


def _older_specs():
    return {name: load_spec(RELEASE / f"{name}.yaml") for name in EXAMPLES}


def _same_requests(specs, path):
    """The stacks and every AWS request the release derived, unchanged."""
    derive = DERIVATION.requests
    for name, spec in specs.items():
        assert derive(spec) == RELEASED[name], f"{name}: {path} absent changed what the release derived"


def _no_addon(attribute):
    def check(specs, path):
        for name, spec in specs.items():
            assert getattr(spec.cluster, attribute) is None, name
            assert [s.name for s in stack_plan(spec)] == RELEASED[name]["stacks"], name

    return check


def _no_platform_group(specs, path):
    """No group is the platform's: no controller is placed, no toleration refused."""
    for spec in specs.values():
        assert spec.cluster.platform_group is None and spec.cluster.platform_instance_group is None
        assert all(not group.platform_taints for group in spec.cluster.instance_groups)


def _every_scheduler_class(specs, path):
    """Unset: the team's work may run at every class of the scheduler config, as before."""
    for spec in specs.values():
        governance = spec.cluster.task_governance
        classes = [c.name for c in governance.priority_classes] if governance else []
        for team in spec.teams:
            assert team.compute.priority_classes is None
            assert isolation.team_workload_priorities(None, classes) == isolation.team_workload_priorities(
                classes, classes
            )


def _no_pod_priority_class(specs, path):
    # an older spec named no PriorityClass for pods: team pods run at the default priority
    for spec in specs.values():
        assert spec.cluster.pod_priority_classes == []


def _studio_jobs_on_quota_types(specs, path):
    # an older team's Studio jobs run on the instance types of its quota
    for spec in specs.values():
        for team in spec.teams:
            assert team.studio.job_instance_types is None
            assert team.job_instance_types == sorted({entry.instance_type for entry in team.compute.quota})


#: Every field the schema gained since the release, and what its absence must keep.
def _one_account_as_before(specs, path):
    """Unset: Identity Center's stacks in account_id, the cost stack pinned to no account, no role
    assumed, the state read with the pipeline's own credentials (the providers and backends the
    release wrote; .ci/outputs.py shows the stacks byte for byte)."""
    for name, spec in specs.items():
        org = spec.organization
        assert (org.identity_center_account, org.payer_account) == (org.account_id, None), name
        assert naming.assumed_deploy_role_arn(org, org.account_id) is None, name
        assert getattr(spec.backend, "role_arn", None) is None, name


ADDITIONS = {
    # #47: HyperPod's newer API. Absent, the cluster, scheduler config and quota requests are the release's.
    "cluster.autoscaling": _same_requests,
    "cluster.node_provisioning_mode": _same_requests,
    "cluster.instance_groups[].auto_patch": _same_requests,
    "cluster.instance_groups[].capacity": _same_requests,
    "cluster.instance_groups[].image_release_version": _same_requests,
    "cluster.instance_groups[].kubernetes": _same_requests,
    "cluster.instance_groups[].min_count": _same_requests,
    "cluster.instance_groups[].scheduled_update": _same_requests,
    "cluster.instance_groups[].training_plan_arn": _same_requests,
    "cluster.instance_groups[].volume_kms_key_id": _same_requests,
    "cluster.task_governance.idle_resource_sharing": _same_requests,
    "teams[].compute.absolute_borrow_limits": _same_requests,
    "teams[].compute.quota[].accelerator_partition": _same_requests,
    "teams[].compute.quota[].accelerators": _same_requests,
    "teams[].compute.quota[].memory_gib": _same_requests,
    "teams[].compute.quota[].vcpu": _same_requests,
    # an adopted paused quota: tests/test_adopt_existing.py plans both ways
    "teams[].compute.active": _same_requests,
    # #46: absent, none of the three add-ons, no stack of theirs
    "cluster.inference": _no_addon("inference"),
    "cluster.spaces": _no_addon("spaces"),
    "cluster.observability": _no_addon("observability"),
    # #57: isolation. The last two default to the secure choice: what an older spec may no longer do
    # is a newly refused value (CHANGELOG, docs/security.md); what it keeps is checked here.
    "cluster.platform_group": _no_platform_group,
    "teams[].compute.priority_classes": _every_scheduler_class,
    "cluster.pod_priority_classes": _no_pod_priority_class,
    "teams[].studio.job_instance_types": _studio_jobs_on_quota_types,
    # #60's accounts.
    "organization.accounts": _one_account_as_before,
    "organization.deploy_role_name": _one_account_as_before,
    "backend.role_arn": _one_account_as_before,
    # #61's several clusters: a spec with `cluster` has neither, and derives what it did.
    "clusters": _same_requests,
    "teams[].placements": _same_requests,
    "teams[].studio.home": _same_requests,
}


def _field_paths(schema: dict) -> set[str]:
    definitions = schema.get("$defs", {})
    paths: set[str] = set()

    def walk(node: dict, prefix: str, seen: frozenset[str]) -> None:
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            if name not in seen:
                walk(definitions[name], prefix, seen | {name})
            return
        for key in ("anyOf", "oneOf", "allOf"):
            for option in node.get(key, []):
                walk(option, prefix, seen)
        if isinstance(node.get("items"), dict):
            walk(node["items"], prefix + "[]", seen)
        if isinstance(node.get("additionalProperties"), dict):
            walk(node["additionalProperties"], prefix + ".*", seen)
        for key, value in node.get("properties", {}).items():
            path = f"{prefix}.{key}".lstrip(".")
            paths.add(path)
            walk(value, path, seen)

    walk(schema, "", frozenset())
    return paths


def _added_fields() -> set[str]:
    """The fields added since the release, each at its top (a new section's own fields are its)."""
    before = _field_paths(json.loads((RELEASE / "spec-v1.schema.json").read_text()))
    now = _field_paths(json.loads(SCHEMA_NOW.read_text()))
    assert before <= now, f"version 1 lost fields: {sorted(before - now)}"
    added = now - before
    return {path for path in added if not any(path.startswith((f"{top}.", f"{top}[].")) for top in added)}


def test_every_field_added_since_the_release_has_its_older_meaning_pinned():
    assert _added_fields() == set(ADDITIONS)


def _mentions(data, path: str) -> bool:
    """Whether a spec's data sets the field at path (lists walked, [] in the path)."""
    head, _, rest = path.partition(".")
    listed = head.endswith("[]")
    key = head.removesuffix("[]")
    if not isinstance(data, dict) or key not in data:
        return False
    value = data[key]
    if not rest:
        return True
    values = value if listed and isinstance(value, list) else [value]
    return any(_mentions(item, rest) for item in values)


@pytest.mark.parametrize("path", sorted(ADDITIONS))
def test_an_older_spec_silent_on_an_addition_keeps_its_meaning(path):
    specs = _older_specs()
    for name in EXAMPLES:
        data = yaml.safe_load((RELEASE / f"{name}.yaml").read_text())
        assert not _mentions(data, path), f"the release's {name} sets {path}: it is no older spec for it"
    ADDITIONS[path](specs, path)


def test_the_check_sees_a_changed_request():
    """The comparison is not blind: an older spec given one of the additions derives other requests."""
    specs = _older_specs()
    data = yaml.safe_load((RELEASE / "quickstart.yaml").read_text())
    data["cluster"]["instance_groups"][0]["min_count"] = 1
    from hyperpod_teams.spec.loading import validate_spec

    changed = dict(specs, quickstart=validate_spec(data))
    with pytest.raises(AssertionError, match="changed what the release derived"):
        _same_requests(changed, "cluster.instance_groups[].min_count")
    assert _mentions(data, "cluster.instance_groups[].min_count")
