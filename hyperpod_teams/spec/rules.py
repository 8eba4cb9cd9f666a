"""Rules across fields of a structurally valid spec (spec-v1.md, "Rules across fields").

Every rule reports all its violations with the path of the field to fix; the caller raises them
together as one SpecError.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from pydantic import ValidationError

from hyperpod_teams import naming
from hyperpod_teams.plugins import PluginError, load_identity_provider
from hyperpod_teams.spec.problems import Path, Problem, SpecError

if TYPE_CHECKING:
    from hyperpod_teams.spec.models import PlatformSpec


def check_rules_across_fields(spec: PlatformSpec) -> None:
    problems = [
        *_unique_names(spec.teams, lambda t: t.name, ("teams",), "team name"),
        *_unique_names(
            spec.cluster.instance_groups, lambda g: g.name, ("cluster", "instance_groups"), "instance group name"
        ),
        *_unique_names(
            spec.cluster.task_governance.priority_classes,
            lambda c: c.name,
            ("cluster", "task_governance", "priority_classes"),
            "priority class name",
        ),
        *_quota_rules(spec),
        *_unique_groups(spec),
        *_identity_settings(spec),
    ]
    if problems:
        raise SpecError(problems)


def _unique_names(items: Iterable, key: Callable, path: Path, what: str) -> Iterator[Problem]:
    seen: dict[str, int] = {}
    for index, item in enumerate(items):
        folded = key(item).casefold()
        if folded in seen:
            yield Problem(
                (*path, index, "name"),
                f"duplicate {what} {key(item)!r}: {path[-1]}[{seen[folded]}] has it already "
                "(names are compared without regard to case)",
            )
        else:
            seen[folded] = index


def _quota_rules(spec: PlatformSpec) -> Iterator[Problem]:
    capacity = spec.cluster.capacity_by_instance_type()
    known = ", ".join(sorted(capacity))
    allocated: dict[str, list[tuple[str, int]]] = {}
    over: dict[str, Path] = {}
    for t, team in enumerate(spec.teams):
        seen_types: set[str] = set()
        for q, entry in enumerate(team.compute.quota):
            path: Path = ("teams", t, "compute", "quota", q, "instance_type")
            if entry.instance_type in seen_types:
                yield Problem(path, f"{entry.instance_type} appears twice in this team's quota", "merge the entries into one")
                continue
            seen_types.add(entry.instance_type)
            if entry.instance_type not in capacity:
                yield Problem(
                    path,
                    f"no instance group of the cluster has instance type {entry.instance_type}",
                    f"instance types in the cluster: {known}",
                )
                continue
            shares = allocated.setdefault(entry.instance_type, [])
            shares.append((team.name, entry.count))
            if sum(c for _, c in shares) > capacity[entry.instance_type] and entry.instance_type not in over:
                over[entry.instance_type] = ("teams", t, "compute", "quota", q, "count")
    for instance_type, path in over.items():
        shares = allocated[instance_type]
        total = sum(c for _, c in shares)
        cap = capacity[instance_type]
        breakdown = ", ".join(f"{team} {count}" for team, count in shares)
        yield Problem(
            path,
            f"quotas for {instance_type} add up to {total} nodes across teams, but the cluster "
            f"has {cap} ({breakdown})",
            f"reduce the quotas by {total - cap} nodes in all, or add {instance_type} nodes to "
            "an instance group",
        )


def _unique_groups(spec: PlatformSpec) -> Iterator[Problem]:
    """Two roles sharing one IdP group would give its members both roles' access."""
    owners = {naming.platform_admins_group(spec).casefold(): "the platform admins"}
    team_names: set[str] = set()
    for t, team in enumerate(spec.teams):
        if team.name in team_names:
            continue  # a duplicate team name is reported once, by _unique_names
        team_names.add(team.name)
        for role in naming.ROLES:
            group = naming.team_group_name(spec, team, role)
            owner = f"team {team.name} ({role})"
            if group.casefold() in owners:
                explicit = getattr(team.members, role) is not None
                path: Path = ("teams", t, "members", role) if explicit else ("teams", t, "name")
                yield Problem(
                    path,
                    f"group {group!r} is already the group of {owners[group.casefold()]}",
                    "each team role needs a group of its own, or its members get the other's access",
                )
            else:
                owners[group.casefold()] = owner


def _identity_settings(spec: PlatformSpec) -> Iterator[Problem]:
    try:
        plugin = load_identity_provider(spec.identity.provider)
    except PluginError as exc:
        yield Problem(("identity", "provider"), str(exc))
        return
    try:
        plugin.settings_model.model_validate(spec.identity.settings)
    except ValidationError as exc:
        from hyperpod_teams.spec.loading import problems_from_validation_error

        yield from problems_from_validation_error(exc, prefix=("identity", "settings"))
