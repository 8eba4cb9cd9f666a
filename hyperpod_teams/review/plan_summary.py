"""A summary of `terraform show -json` plans for reviewers: changes by stack and team, deletions
and replacements first with the attributes that force them, and loud warnings for what holds
data or runs everyone's work. Pure layer: plain JSON in, document blocks out."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from hyperpod_teams import cloudformation, naming
from hyperpod_teams.document import Alert, Block, Heading, Paragraph, Table, md_code, md_text
from hyperpod_teams.spec.models import PlatformSpec


@dataclass(frozen=True)
class StackPlan:
    stack: str
    plan: dict


#: The largest plan file read: a plan of the largest stack of an organization (#63's scale) is a few
#: megabytes; reading one takes about 15 times its size in memory.
MAX_PLAN_BYTES = 100 * 1024 * 1024

#: What of `terraform show -json`'s plan representation the summary reads (Terraform docs, "JSON
#: Output Format", plan representation: resource_changes[] with address, type and change.actions,
#: before, after): a plan of another shape is refused before anything reads it.
_OBJECT_OR_NULL = {"type": ["object", "null"]}
PLAN_SHAPE = {
    "type": "object",
    "properties": {
        "resource_changes": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["address", "type", "change"],
                "properties": {
                    "address": {"type": "string"},
                    "type": {"type": "string"},
                    "change": {
                        "type": "object",
                        "required": ["actions"],
                        "properties": {
                            "actions": {"type": "array", "items": {"type": "string"}},
                            "before": _OBJECT_OR_NULL,
                            "after": _OBJECT_OR_NULL,
                            "after_unknown": {"type": ["object", "boolean", "null"]},
                            "importing": _OBJECT_OR_NULL,
                            "replace_paths": {"type": ["array", "null"], "items": {"type": "array"}},
                        },
                    },
                },
            },
        },
        "planned_values": {"type": "object"},
    },
}


def read_plan(argument: str, known_stacks: set[str]) -> StackPlan:
    """`STACK=PATH`, or `PATH` whose folder or file name is the stack's (cdktf.out/stacks/<stack>/plan.json).
    A regular file of at most MAX_PLAN_BYTES in the shape PLAN_SHAPE, else ValueError (or OSError)
    saying why."""
    import jsonschema

    from hyperpod_teams.input_files import read_json_file

    stack, sep, path_text = argument.partition("=")
    if not sep:
        path_text, stack = argument, ""
    path = Path(path_text)
    plan = read_json_file(path, MAX_PLAN_BYTES, "give the file `terraform show -json` wrote")
    if not isinstance(plan, dict) or ("resource_changes" not in plan and "planned_values" not in plan):
        raise ValueError(f"{path} is not the JSON of a plan: run `terraform show -json plan.tfplan > {path.name}`")
    mismatch = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(PLAN_SHAPE).iter_errors(plan))
    if mismatch is not None:
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in mismatch.absolute_path) or "the plan"
        raise ValueError(
            f"{path}: {where.lstrip('.')} {mismatch.message}: not a plan as `terraform show -json` writes it"
        )
    if not stack:
        candidates = [path.parent.name, path.stem, path.stem.removesuffix(".plan")]
        stack = next((c for c in candidates if c in known_stacks), path.stem)
    return StackPlan(stack, plan)


def protected_kind(change: dict) -> str | None:
    """What the change's resource holds, when it must never go by accident; else None."""
    resource_type = change["type"]
    if resource_type == "aws_sagemaker_domain":
        return "SageMaker AI domain (the team's home directories and spaces)"
    if resource_type == "aws_eks_cluster":
        return "EKS cluster (every team's workloads)"
    if resource_type == "aws_kms_key":
        return "KMS key (what it encrypts is unreadable once the key is deleted, 30 days on)"
    if resource_type == "kubernetes_namespace_v1":
        return "Kubernetes namespace (the team's workloads, deleted with it)"
    if resource_type == "aws_cloudcontrolapi_resource":
        body = change["change"].get("before") or change["change"].get("after") or {}
        if body.get("type_name") == cloudformation.CLUSTER_TYPE:
            return "HyperPod cluster (every team's nodes)"
        if body.get("type_name") == cloudformation.COMPUTE_QUOTA_TYPE:
            return (
                "compute quota (task governance deletes the team's namespace and queue with what runs in them; "
                "its guaranteed capacity is gone)"
            )
        if body.get("type_name") == cloudformation.SCHEDULER_CONFIG_TYPE:
            return "scheduler config (task governance's priority classes and fair share, for every team)"
    if resource_type == "aws_s3_bucket" and "lifecycle" in change["address"]:
        return "lifecycle scripts bucket (the nodes' set-up scripts)"
    return None


#: What an in-place update of a cost category leaves out when unchanged: the AWS provider sends
#: `DefaultValue` and `SplitChargeRules` to UpdateCostCategoryDefinition only when they changed,
#: and AWS, which replaces the whole definition, clears them (terraform-provider-aws#49410, open;
#: the fix, #50002, is not released).
COST_CATEGORY_DROPPED_ON_UPDATE = ("default_value", "split_charge_rule")


def dropped_by_the_provider(change: dict) -> tuple[str, ...]:
    """The attributes an in-place update of an `aws_ce_cost_category` clears in AWS although the
    plan keeps them (set before and after, unchanged)."""
    if change["type"] != "aws_ce_cost_category" or change["change"]["actions"] != ["update"]:
        return ()
    before, after = change["change"].get("before") or {}, change["change"].get("after") or {}
    return tuple(
        name for name in COST_CATEGORY_DROPPED_ON_UPDATE if after.get(name) and before.get(name) == after.get(name)
    )


def _desired_state(body: dict | None) -> dict:
    """A Cloud Control resource's desired state, decoded; {} when unknown or absent."""
    text = (body or {}).get("desired_state")
    try:
        state = json.loads(text) if isinstance(text, str) else {}
    except ValueError:
        return {}
    return state if isinstance(state, dict) else {}


def instance_groups_leaving(change: dict) -> list[tuple[str, int, str]]:
    """The instance groups an update of the HyperPod cluster removes: (name, nodes, instance type).

    SageMaker knows an instance group by its name (UpdateCluster: a group missing from
    InstanceGroups is deleted, `InstanceGroupsToDelete`): a renamed or removed group's nodes are
    terminated with every job on them, and a renamed group is a new one provisioned from zero.
    The plan shows it as an in-place update of one attribute."""
    if change["type"] != "aws_cloudcontrolapi_resource" or action_of(change) not in ("update", "replace"):
        return []
    before = _desired_state(change["change"].get("before"))
    after = _desired_state(change["change"].get("after"))
    if change["change"].get("before", {}).get("type_name") != cloudformation.CLUSTER_TYPE or not after:
        return []
    kept = {group.get("InstanceGroupName") for group in after.get("InstanceGroups", [])}
    return [
        (group["InstanceGroupName"], int(group.get("InstanceCount", 0)), str(group.get("InstanceType", "")))
        for group in before.get("InstanceGroups", [])
        if group.get("InstanceGroupName") not in kept
    ]


#: The output of the access stack that names the identity provider it was deployed with
#: (stacks/access.py): a change of it in a plan is a switch on a running platform.
IDENTITY_PROVIDER_OUTPUT = naming.IDENTITY_PROVIDER_OUTPUT


def identity_provider_switch(plan: dict) -> tuple[str, str] | None:
    """(before, after) when the plan changes the deployed identity provider."""
    change = (plan.get("output_changes") or {}).get(IDENTITY_PROVIDER_OUTPUT)
    if not change:
        return None
    before, after = change.get("before"), change.get("after")
    if before and after and before != after:
        return before, after
    return None


def _group_names(body: dict | None) -> set[str]:
    groups = _desired_state(body).get("InstanceGroups")
    return (
        {str(g.get("InstanceGroupName", "")) for g in groups if isinstance(g, dict)}
        if isinstance(groups, list)
        else set()
    )


def teams_leaving(plans: list[StackPlan], spec: PlatformSpec) -> list[str]:
    """Teams whose permission sets a plan destroys and that the spec no longer has: the team is
    being removed, and its own stacks have left the app."""
    kept = {team.name for team in spec.teams}
    leaving = set()
    for stack_plan in plans:
        for change in stack_plan.plan.get("resource_changes", []):
            if change["type"] != "aws_ssoadmin_permission_set" or action_of(change) != "delete":
                continue
            team = ((change["change"].get("before") or {}).get("tags") or {}).get(naming.TAG_TEAM)
            if team and team not in kept:
                leaving.add(team)
    return sorted(leaving)


def clusters_leaving(plans: list[StackPlan]) -> list[str]:
    """Clusters (spec `clusters`) whose shared spend a plan drops from the cost category: the cluster
    was removed from the spec (or renamed: a new one), and its own stacks have left the app."""
    prefix = naming.cluster_shared_cost_value("")

    def shared_values(body: dict | None) -> set[str]:
        """The values of the rules over a cluster's tag (a team's rule is over the team's tag)."""
        rules = (body or {}).get("rule") or []
        return {
            str(r.get("value"))
            for r in rules
            if isinstance(r, dict)
            and str(r.get("value", "")).startswith(prefix)
            and naming.TAG_CLUSTER in json.dumps(r.get("rule"))
        }

    leaving: set[str] = set()
    for stack_plan in plans:
        for change in stack_plan.plan.get("resource_changes", []):
            if change["type"] == "aws_ce_cost_category" and action_of(change) in ("update", "replace"):
                leaving |= shared_values(change["change"].get("before")) - shared_values(change["change"].get("after"))
    return sorted(value.removeprefix(prefix) for value in leaving)


def _day_two_alerts(plans: list[StackPlan], spec: PlatformSpec) -> list[Block]:
    """Changes that terminate nodes or drop what teams rely on, which a plan shows as harmless."""
    alerts: list[Block] = []
    for cluster in clusters_leaving(plans):
        owner = naming.cluster_owner(spec.organization.name, cluster)
        alerts.append(
            Alert(
                f"Cluster {md_code(cluster)} leaves: this plan drops its shared spend from the cost category. Its "
                f"stacks ({md_code(owner + '-*')}: its EKS and HyperPod clusters, the teams' places and Kubernetes "
                "stacks there) are no longer in the app, and nothing plans or destroys them: its nodes keep running "
                "and billing. Move the teams' work to their other clusters, then destroy those stacks in reverse "
                'deploy order with the last deployed output (docs/deploy.md, "a cluster removed").'
            )
        )
    for team in teams_leaving(plans, spec):
        org = spec.organization.name
        own = f"{md_code(naming.team_stack_name(org, team))}, {md_code(naming.team_kubernetes_stack_name(org, team))}"
        alerts.append(
            Alert(
                f"Team {md_code(team)} leaves: this plan destroys its permission sets, and Identity Center then "
                f"deletes their `AWSReservedSSO_*` roles. Its own stacks ({own}) "
                "are no longer in the app: destroy them first, by the runbook's \"Remove a team without losing its "
                'data" (its domain, bucket and keys kept), or its compute quota keeps holding capacity and its access '
                "entries name roles that are gone."
            )
        )
    for stack_plan in plans:
        for change in stack_plan.plan.get("resource_changes", []):
            leaving = instance_groups_leaving(change)
            if not leaving:
                continue
            arriving = sorted(
                _group_names(change["change"].get("after")) - _group_names(change["change"].get("before"))
            )
            new_here = f"; new in this plan: {', '.join(md_code(g) for g in arriving)}" if arriving else ""
            for name, nodes, instance_type in leaving:
                alerts.append(
                    Alert(
                        f"{md_text(stack_plan.stack)}: the instance group {md_code(name)} leaves the HyperPod cluster: "
                        f"SageMaker terminates its {nodes} {md_text(instance_type)} node{'s' if nodes != 1 else ''} "
                        "and every job running on them (groups are known by name: a renamed group is a new one, "
                        f"provisioned from zero{new_here}). Only a spec that lists it in "
                        "`cluster.retired_instance_groups` gets through the plan."
                    )
                )
        switch = identity_provider_switch(stack_plan.plan)
        if switch:
            was, now = switch
            alerts.append(
                Alert(
                    f"{md_text(stack_plan.stack)}: the identity provider changes from {md_code(was)} to "
                    f"{md_code(now)} on a running platform. Changing IAM Identity Center's identity source "
                    "removes its users' and groups' assignments and with them the permission sets' "
                    "`AWSReservedSSO_*` roles; EKS access entries of a deleted role do not work for the role "
                    "made again (they name the old principal). The AWS stacks may plan no change at all: "
                    'follow docs/deploy.md, "Changes that destroy or terminate".'
                )
            )
    return alerts


ACTION_ORDER = {"delete": 0, "replace": 1, "import": 2, "update": 3, "create": 4}


def action_of(change: dict) -> str | None:
    """delete, replace, import (an `import` block takes the object over; it may be updated as
    well), update or create; None for no-op and read."""
    actions = change["change"]["actions"]
    if actions in (["delete", "create"], ["create", "delete"]):
        return "replace"
    if change["change"].get("importing") is not None:
        return "import"
    if actions in (["delete"], ["update"], ["create"]):
        return actions[0]
    return None  # no-op, read


#: Attributes every tagged resource recomputes from the provider's default tags.
_DERIVED_ATTRIBUTES = {"tags_all"}


def _updated_attributes(change: dict) -> tuple[str, ...]:
    """The top-level attributes an update changes (for an import: what taking over changes)."""
    if change["change"]["actions"] != ["update"]:
        return ()
    before, after = change["change"].get("before") or {}, change["change"].get("after") or {}
    unknown = change["change"].get("after_unknown") or {}
    names = {name for name in set(before) | set(after) if before.get(name) != after.get(name) and name not in unknown}
    names |= {name for name, value in unknown.items() if value is True and name in before}
    return tuple(sorted(names - _DERIVED_ATTRIBUTES))


@dataclass(frozen=True)
class Change:
    stack: str
    team: str | None
    address: str
    action: str
    forced_by: tuple[str, ...]
    protected: str | None
    #: For an import: the ID it takes over, and the attributes taking it over changes.
    import_id: str | None = None
    updates: tuple[str, ...] = ()


def _path_text(path: list) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else str(p)) for i, p in enumerate(path))


#: The guards of the HyperPod cluster's create-only properties, replaced when the field changes.
CREATE_ONLY_GUARD = cloudformation.CREATE_ONLY_GUARD


def _forced_by(change: dict, replaced_guards: list[str]) -> tuple[str, ...]:
    """What forces a replacement: the attributes Terraform names, or, for a replacement the
    create-only guards trigger, the create-only fields that changed."""
    paths = tuple(_path_text(p) for p in change["change"].get("replace_paths", []) or [])
    if change.get("action_reason") == "replace_by_triggers":
        paths += tuple(f"create-only {guard.removeprefix(CREATE_ONLY_GUARD)}" for guard in replaced_guards)
    return paths


def changes(plans: list[StackPlan], spec: PlatformSpec, team_of: Mapping[str, str] | None = None) -> list[Change]:
    """Every change of the plans, deletions first; `team_of`: stack -> its team (default: the
    one-cluster spec's team stacks; with several clusters, stack_plan's `team` of each stack)."""
    if team_of is None:
        org = spec.organization.name
        team_of = {naming.team_stack_name(org, t.name): t.name for t in spec.teams}
        team_of |= {naming.team_kubernetes_stack_name(org, t.name): t.name for t in spec.teams}
    found = []
    for stack_plan in plans:
        resource_changes = stack_plan.plan.get("resource_changes", [])
        replaced_guards = [
            c["address"]
            for c in resource_changes
            if c["address"].startswith(CREATE_ONLY_GUARD) and action_of(c) == "replace"
        ]
        for change in resource_changes:
            action = action_of(change)
            if action is None:
                continue
            found.append(
                Change(
                    stack=stack_plan.stack,
                    team=team_of.get(stack_plan.stack),
                    address=change["address"],
                    action=action,
                    forced_by=_forced_by(change, replaced_guards),
                    protected=protected_kind(change) if action in ("delete", "replace") else None,
                    import_id=(change["change"].get("importing") or {}).get("id"),
                    updates=_updated_attributes(change) if action == "import" else (),
                )
            )
    return sorted(found, key=lambda c: (ACTION_ORDER[c.action], c.stack, c.address))


def plan_section(
    plans: list[StackPlan],
    spec: PlatformSpec,
    *,
    max_rows: int | None = None,
    team_of: Mapping[str, str] | None = None,
) -> list[Block]:
    """The plan summary; `max_rows` keeps the updates and creations table short (deletions,
    replacements and imports are always listed whole); `team_of` as `changes` takes it."""
    found = changes(plans, spec, team_of)
    blocks: list[Block] = [Heading("Plan"), *_day_two_alerts(plans, spec)]
    for change in found:
        if change.protected:
            verb = "DESTROYED" if change.action == "delete" else "REPLACED (destroyed, then created anew)"
            forced = f" because of {', '.join(change.forced_by)}" if change.forced_by else ""
            blocks.append(
                Alert(
                    f"{md_text(change.stack)}: the {change.protected} {md_code(change.address)} would "
                    f"be {verb}{forced}."
                )
            )
    for stack_plan in plans:
        for change in stack_plan.plan.get("resource_changes", []):
            dropped = dropped_by_the_provider(change)
            if dropped:
                effects = []
                if "default_value" in dropped:
                    default = change["change"]["after"]["default_value"]
                    effects.append(f"costs no team matches are not counted as {md_code(default)}")
                if "split_charge_rule" in dropped:
                    effects.append("the shared platform's spend is not split to the teams")
                blocks.append(
                    Alert(
                        f"{md_text(stack_plan.stack)}: this apply updates the cost category "
                        f"{md_code(change['address'])} and AWS clears its "
                        f"{' and '.join(md_code(name) for name in dropped)}, which the AWS provider leaves out of "
                        "the update when unchanged (terraform-provider-aws#49410). Until the whole definition is "
                        f"written again, {' and '.join(effects)}; a second apply clears the other one. After the "
                        'deploy, run the AWS CLI commands of the runbook\'s "After a change to the cost category".'
                    )
                )
    counts: dict[tuple[str, str], dict[str, int]] = {}
    for change in found:
        per = counts.setdefault((change.team or "platform (shared)", change.stack), {})
        per[change.action] = per.get(change.action, 0) + 1
    blocks.append(
        Table(
            ["team", "stack", "delete", "replace", "import", "update", "create"],
            [
                [md_text(team), md_text(stack), *(str(per.get(a, 0)) for a in ACTION_ORDER)]
                for (team, stack), per in sorted(counts.items())
            ],
        )
    )
    risky = [c for c in found if c.action in ("delete", "replace")]
    if risky:
        blocks.append(Heading("Deletions and replacements", level=3))
        blocks.append(
            Table(
                ["stack", "resource", "action", "forced by"],
                [
                    [md_text(c.stack), md_code(c.address), c.action, ", ".join(md_code(p) for p in c.forced_by) or "–"]
                    for c in risky
                ],
            )
        )
    else:
        blocks.append(Paragraph("Nothing is deleted or replaced."))
    imports = [c for c in found if c.action == "import"]
    if imports:
        blocks.append(Heading("Imports (taken over, not created)", level=3))
        blocks.append(
            Paragraph(
                "Each of these exists in AWS already: the first apply brings it into Terraform's state "
                "and then manages it; nothing of it is created or replaced."
            )
        )
        blocks.append(
            Table(
                ["stack", "resource", "existing object", "taking over changes"],
                [
                    [
                        md_text(c.stack),
                        md_code(c.address),
                        md_code(c.import_id) if c.import_id else "–",
                        ", ".join(md_code(name) for name in c.updates) or "nothing",
                    ]
                    for c in imports
                ],
            )
        )
    others = [c for c in found if c.action in ("update", "create")]
    if others:
        blocks.append(Heading("Updates and creations", level=3))
        listed = others if max_rows is None else others[:max_rows]
        blocks.append(
            Table(["stack", "resource", "action"], [[md_text(c.stack), md_code(c.address), c.action] for c in listed])
        )
        if len(listed) < len(others):
            blocks.append(Paragraph(f"… and {len(others) - len(listed)} more, counted above (all in the HTML report)."))
    return blocks
