"""Rules across fields (spec-v1.md, "Rules across fields").

Every rule reports all its violations with the path of the field to fix. The rules read the
sections they need through `Sections`, which holds whichever sections of the spec are valid on
their own: so a spec with a typo in one team still gets its quota over-capacity reported in the
same run, and every problem is listed at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from pydantic import TypeAdapter, ValidationError

from hyperpod_teams import addons, instance_types, instance_worth, naming, regions
from hyperpod_teams.plugins import PluginError, load_identity_provider
from hyperpod_teams.spec.fields import (
    Cluster,
    Cost,
    Identity,
    InstanceGroup,
    Organization,
    PriorityClass,
    TaskGovernance,
    Team,
    capacity_by_instance_type,
)
from hyperpod_teams.spec.problems import Path, Problem, SpecError
from hyperpod_teams.spec.validation_errors import problems_from_validation_error


@dataclass
class Sections:
    """The valid sections of a spec; `teams` keeps each valid team's index in the spec."""

    organization: Organization | None = None
    identity: Identity | None = None
    instance_groups: list[InstanceGroup] | None = None
    priority_classes: list[PriorityClass] | None = None
    teams: list[tuple[int, Team]] = field(default_factory=list)
    task_governance: TaskGovernance | None = None
    cost: Cost | None = None
    #: Whether cluster.existing_hyperpod_cluster_name is set (None: the cluster section is unreadable).
    adopted_cluster: bool | None = None
    #: cluster.platform_group, where the spec names one.
    platform_group: str | None = None

    @classmethod
    def of_parts(
        cls, organization: Organization, identity: Identity, cluster: Cluster, teams: list[Team], cost: Cost
    ) -> Sections:
        """The sections of a whole, valid spec (PlatformSpec's validator gives its parts)."""
        return cls(
            organization,
            identity,
            cluster.instance_groups,
            cluster.task_governance.priority_classes,
            list(enumerate(teams)),
            cluster.task_governance,
            cost,
            cluster.adopted,
            cluster.platform_group,
        )

    @classmethod
    def valid_parts_of(cls, data: Any) -> Sections:
        """The sections of raw spec data that validate on their own; the rest stay None."""
        if not isinstance(data, dict):
            return cls()

        def valid(kind, value):
            try:
                return TypeAdapter(kind).validate_python(value)
            except (ValidationError, SpecError):
                return None

        def at(container: Any, *keys: str) -> Any:
            for key in keys:
                container = container.get(key) if isinstance(container, dict) else None
            return container

        raw_teams = data.get("teams")
        teams: list[Any] = raw_teams if isinstance(raw_teams, list) else []
        return cls(
            organization=valid(Organization, data.get("organization")),
            identity=valid(Identity, data.get("identity")),
            instance_groups=valid(list[InstanceGroup], at(data, "cluster", "instance_groups")),
            priority_classes=valid(
                list[PriorityClass], at(data, "cluster", "task_governance", "priority_classes") or []
            ),
            teams=[(i, team) for i, raw in enumerate(teams) if (team := valid(Team, raw)) is not None],
            task_governance=valid(TaskGovernance, at(data, "cluster", "task_governance") or {}),
            cost=valid(Cost, data.get("cost") or {}),
            adopted_cluster=(
                at(data, "cluster", "existing_hyperpod_cluster_name") is not None
                if isinstance(data.get("cluster"), dict)
                else None
            ),
            platform_group=group if isinstance(group := at(data, "cluster", "platform_group"), str) else None,
        )


def problems_across_fields(sections: Sections) -> list[Problem]:
    problems = list(_unique_names(sections.teams, "teams", "team name"))
    problems += _derived_kubernetes_names(sections.teams)
    problems += _reserved_team_names(sections.teams)
    # Only where the spec chose it: by default an impossible quota split gives way to a proportional one.
    if (
        sections.cost is not None
        and "shared_split" in sections.cost.model_fields_set
        and sections.cost.shared_split == "quota"
    ):
        problems += _quota_split(sections.cost, sections.teams)
    if sections.organization is not None and sections.task_governance is not None:
        problems += _task_governance_region(sections.organization, sections.task_governance)
        if sections.cost is not None and sections.cost.usage_reports.enabled:
            problems += _usage_reports(sections.organization, sections.task_governance)
    if sections.instance_groups is not None:
        groups = sections.instance_groups
        problems += _unique_names(enumerate(groups), "cluster.instance_groups", "instance group name")
        problems += _quota_rules(groups, sections.teams)
        if sections.platform_group is not None:
            problems += _platform_group_quota(groups, sections.platform_group, sections.teams)
    if sections.priority_classes is not None:
        problems += _unique_names(
            enumerate(sections.priority_classes), "cluster.task_governance.priority_classes", "priority class name"
        )
        problems += _team_priority_classes(sections.priority_classes, sections.teams)
    problems += _adoption(sections)
    if sections.identity is not None:
        problems += _identity_settings(sections.identity)
        if sections.organization is not None:
            problems += _unique_groups(sections.organization, sections.identity, sections.teams)
    return problems


def _unique_names(indexed: Iterable[tuple[int, Any]], where: str, what: str) -> Iterator[Problem]:
    path: Path = tuple(where.split("."))
    seen: dict[str, tuple[int, str]] = {}
    for index, item in indexed:
        folded = item.name.casefold()
        if folded in seen:
            first_index, first = seen[folded]
            spelled = f"as {first!r} " if first != item.name else ""
            yield Problem(
                (*path, index, "name"),
                f"duplicate {what} {item.name!r}: {path[-1]}[{first_index}] has it already {spelled}"
                "(names are compared without regard to case)",
            )
        else:
            seen[folded] = (index, item.name)


def _team_priority_classes(classes: list[PriorityClass], teams: list[tuple[int, Team]]) -> Iterator[Problem]:
    """A team's priority classes narrow the scheduler config's: each is one of them."""
    names = [c.name for c in classes]
    for t, team in teams:
        for i, name in enumerate(team.compute.priority_classes or []):
            if name not in names:
                yield Problem(
                    ("teams", t, "compute", "priority_classes", i),
                    f"{name!r} is not one of cluster.task_governance.priority_classes",
                    f"name one of {', '.join(names)}"
                    if names
                    else "add it to cluster.task_governance.priority_classes",
                )


#: Team names the stacks give to spend of no single team (naming.COST_CATEGORY_*_VALUE), and why.
RESERVED_TEAM_NAMES = {
    naming.COST_CATEGORY_SHARED_VALUE: "the shared platform's cost category value (its own spend would join the pool "
    "the split charge rule divides across the teams)",
    naming.COST_CATEGORY_DEFAULT_VALUE: "the cost category's default value (the account's untagged spend would "
    "become the team's)",
}


def _reserved_team_names(teams: list[tuple[int, Team]]) -> Iterator[Problem]:
    """A team's cost category value is its name: none may be a value the stacks reserve."""
    for t, team in teams:
        if team.name in RESERVED_TEAM_NAMES:
            yield Problem(
                ("teams", t, "name"),
                f"team name {team.name!r} is {RESERVED_TEAM_NAMES[team.name]}",
                "choose another team name",
            )


def _platform_group_quota(groups: list[InstanceGroup], name: str, teams: list[tuple[int, Team]]) -> Iterator[Problem]:
    """Team pods never run on the platform group's nodes (its taints), so no team's quota may count
    them: no team quota on its instance type."""
    group = next((g for g in groups if g.name == name), None)
    if group is None:
        return  # reported by the cluster's own validator
    for t, team in teams:
        for q, entry in enumerate(team.compute.quota):
            if entry.instance_type == group.instance_type:
                yield Problem(
                    ("teams", t, "compute", "quota", q, "instance_type"),
                    f"{entry.instance_type} is the instance type of cluster.platform_group {name!r}, whose nodes run "
                    "no team pod",
                    "give the platform group an instance type of its own, or take this quota entry out",
                )


def _derived_kubernetes_names(teams: list[tuple[int, Team]]) -> Iterator[Problem]:
    """Task governance names a team's namespace and queues after it; never shortened."""
    for t, team in teams:
        for problem in naming.derived_name_problems(team.name):
            yield Problem(("teams", t, "name"), problem, "choose a shorter team name")


def _quota_split(cost_section: Cost, teams: list[tuple[int, Team]]) -> Iterator[Problem]:
    """The quota split needs to know what each quota's instance type is worth, and a team to pay."""
    prices = dict(cost_section.instance_prices_usd)
    unknown_seen: set[str] = set()
    for t, team in teams:
        for q, entry in enumerate(team.compute.quota):
            if (
                not instance_worth.worth_is_known(entry.instance_type, prices)
                and entry.instance_type not in unknown_seen
            ):
                unknown_seen.add(entry.instance_type)
                yield Problem(
                    ("teams", t, "compute", "quota", q, "instance_type"),
                    f"the quota split of the shared spend does not know what {entry.instance_type} is worth "
                    "(its accelerators are not in hyperpod_teams.cost.ACCELERATORS_PER_INSTANCE)",
                    f"price it: cost.instance_prices_usd: {{{entry.instance_type}: <USD per hour>}}, or choose "
                    "cost.shared_split: proportional or even",
                )
    # Each unknown type is reported above, with its path; what is left is a split that mixes
    # units, or one worth nothing.
    if not teams or unknown_seen:
        return
    quotas = [[(q.instance_type, q.instances) for q in team.compute.quota] for _, team in teams]
    mixed = instance_worth.mixed_units_problem(quotas, prices)
    if mixed:
        yield Problem(("cost", "instance_prices_usd"), mixed, "or choose cost.shared_split: proportional or even")
    elif instance_worth.quota_split_problem(quotas, prices):
        yield Problem(
            ("cost", "shared_split"),
            "no team's guaranteed quota is worth anything, so the shared spend cannot be split by quota",
            "give teams quota of accelerated instance types, price the types in cost.instance_prices_usd, "
            "or choose shared_split: proportional or even",
        )


def _task_governance_region(organization: Organization, governance: TaskGovernance) -> Iterator[Problem]:
    if not governance.enabled or governance.allow_unlisted_region:
        return
    if regions.task_governance_available(organization.region):
        return
    yield Problem(
        ("organization", "region"),
        f"HyperPod task governance (compute quotas, scheduler config) is not known to exist in "
        f"{organization.region}: Cloud Control would fail at plan time",
        f"regions known to have it: {', '.join(sorted(regions.TASK_GOVERNANCE_REGIONS))} "
        f"({regions.TASK_GOVERNANCE_REGIONS_SOURCE}); if AWS has added {organization.region} "
        "since, set cluster.task_governance.allow_unlisted_region: true",
    )


def _usage_reports(organization: Organization, governance: TaskGovernance) -> Iterator[Problem]:
    """The usage-report operator reads task governance's Kueue queues, and its image exists only
    in the regions of its chart (awslabs/sagemaker-hyperpod-usage-report, values.yaml)."""
    if not governance.enabled:
        yield Problem(
            ("cost", "usage_reports", "enabled"),
            "usage reporting measures task governance's queues, but cluster.task_governance.enabled is false",
            "enable task governance, or set cost.usage_reports.enabled: false",
        )
    if organization.region not in regions.USAGE_REPORT_REGIONS:
        yield Problem(
            ("cost", "usage_reports", "enabled"),
            f"HyperPod's usage-report operator has no image in {organization.region}: its chart would fail",
            "regions its chart (values.yaml, image.repositoryDomainMap) has an image in: "
            + ", ".join(sorted(regions.USAGE_REPORT_REGIONS)),
        )


def _quota_rules(groups: list[InstanceGroup], teams: list[tuple[int, Team]]) -> Iterator[Problem]:
    capacity = capacity_by_instance_type(groups)
    known = ", ".join(sorted(capacity))
    allocated: dict[str, list[tuple[str, Decimal]]] = {}
    over: dict[str, Path] = {}
    for t, team in teams:
        seen_types: set[str] = set()
        for q, entry in enumerate(team.compute.quota):
            path: Path = ("teams", t, "compute", "quota", q, "instance_type")
            if entry.instance_type in seen_types:
                yield Problem(
                    path, f"{entry.instance_type} appears twice in this team's quota", "merge the entries into one"
                )
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
            shares.append((team.name, entry.instances))
            if sum(c for _, c in shares) > capacity[entry.instance_type] and entry.instance_type not in over:
                field = (
                    "count"
                    if entry.count is not None
                    else next(
                        f
                        for f in ("accelerators", "accelerator_partition", "vcpu", "memory_gib")
                        if getattr(entry, f) is not None
                    )
                )
                over[entry.instance_type] = ("teams", t, "compute", "quota", q, field)
    for instance_type, path in over.items():
        shares = allocated[instance_type]
        total = sum((c for _, c in shares), Decimal(0))
        cap = capacity[instance_type]
        breakdown = ", ".join(f"{team} {nodes(count)}" for team, count in shares)
        units = _in_accelerators(instance_type, total, cap)
        yield Problem(
            path,
            f"quotas for {instance_type} add up to {nodes(total)} nodes across teams{units}, but the cluster has {cap} "
            f"({breakdown})",
            f"reduce the quotas by {nodes(total - cap)} node{'s' if total - cap != 1 else ''} in all, or add "
            f"{instance_type} nodes to an instance group",
        )


def nodes(amount: Decimal) -> str:
    """Instances as a reader counts them: 2, 0.5, 1.125 (no trailing zeros, at most 3 decimals)."""
    text = f"{amount.quantize(Decimal('0.001')):f}".rstrip("0").rstrip(".")
    return text or "0"


def _in_accelerators(instance_type: str, total: Decimal, capacity: int) -> str:
    devices = instance_types.ACCELERATORS_PER_INSTANCE.get(instance_type)
    if not devices:
        return ""
    return f" ({nodes(total * devices)} of the {capacity * devices} accelerators its groups hold)"


#: The longest group name each identity provider takes, with its source. IAM Identity Center
#: takes 1024 (Identity Store API reference, CreateGroup DisplayName), which every IdP's is below.
GROUP_NAME_MAX: dict[str, tuple[int, str]] = {
    # Microsoft Graph, group resource type: displayName, "Maximum length is 256 characters".
    "entra_id": (256, "Microsoft Entra ID (Microsoft Graph group displayName)"),
    # Okta Groups API, group profile `name`: 1 to 255 characters.
    "okta": (255, "Okta (Groups API profile.name)"),
}
IDENTITY_CENTER_GROUP_NAME_MAX = 1024


def _group_name_problem(group: str, identity: Identity, path: Path) -> Problem | None:
    most, who = GROUP_NAME_MAX.get(
        identity.provider, (IDENTITY_CENTER_GROUP_NAME_MAX, "IAM Identity Center (Identity Store DisplayName)")
    )
    if len(group) <= most:
        return None
    return Problem(
        path,
        f"group name {group[:40]!r}... has {len(group)} characters; {who} takes at most {most}",
        "shorten the group name (identity.group_name_pattern, the team's members, or the team name)",
    )


def _unique_groups(organization: Organization, identity: Identity, teams: list[tuple[int, Team]]) -> Iterator[Problem]:
    """Two roles sharing one IdP group would give its members both roles' access; and every group
    name must fit the identity provider."""
    pattern = identity.group_name_pattern
    admins = naming.platform_admins_group(pattern, organization)
    too_long = _group_name_problem(admins, identity, ("organization", "platform_admins_group"))
    if too_long:
        yield too_long
    owners = {admins.casefold(): "the platform admins"}
    team_names: set[str] = set()
    for t, team in teams:
        if team.name in team_names:
            continue  # a duplicate team name is reported once, by _unique_names
        team_names.add(team.name)
        for role in naming.ROLES:
            group = naming.team_group_name(pattern, organization.name, team, role)
            owner = f"team {team.name} ({role})"
            # Where the group's name comes from: the team's members, or the pattern with its name.
            explicit = getattr(team.members, role) is not None
            path: Path = ("teams", t, "members", role) if explicit else ("teams", t, "name")
            too_long = _group_name_problem(group, identity, path)
            if too_long:
                yield too_long
            if group.casefold() in owners:
                yield Problem(
                    path,
                    f"group {group!r} is already the group of {owners[group.casefold()]}",
                    "each team role needs a group of its own, or its members get the other's access",
                )
            else:
                owners[group.casefold()] = owner


def _identity_settings(identity: Identity) -> Iterator[Problem]:
    try:
        plugin = load_identity_provider(identity.provider)
    except PluginError as exc:
        yield Problem(("identity", "provider"), str(exc))
        return
    try:
        plugin.settings_model.model_validate(identity.settings)
    except ValidationError as exc:
        yield from problems_from_validation_error(exc, plugin.settings_model, prefix=("identity", "settings"))


def _arn_place(arn: str) -> tuple[str, str]:
    """(region, account) of an ARN."""
    parts = arn.split(":")
    return parts[3], parts[4]


_ADOPTED_HINT = "set cluster.existing_hyperpod_cluster_name to the HyperPod cluster it belongs to"


def _adoption(sections: Sections) -> Iterator[Problem]:
    """What the spec says exists already must belong to this cluster, region, account and
    Identity Center, and be something the stacks would otherwise create: by the kind of resource
    adopted."""
    yield from _adopted_task_governance(sections)
    taken: dict[str, Path] = {}
    for t, team in sections.teams:
        yield from _adopted_quota(sections, t, team)
        yield from _adopted_domain(t, team)
        yield from _adopted_permission_sets(sections, t, team)
        yield from _adopted_once(t, team, taken)


def _not_in_organization(arn: str, org: Organization | None) -> str | None:
    if org is not None and _arn_place(arn) != (org.region, org.account_id):
        return f"{arn} is not in the organization's region and account ({org.region}, {org.account_id})"
    return None


def _adopted_task_governance(sections: Sections) -> Iterator[Problem]:
    governance = sections.task_governance
    if governance is None:
        return
    for name in ("existing_addon", "existing_scheduler_config_arn"):
        if getattr(governance, name) is None:
            continue
        path: Path = ("cluster", "task_governance", name)
        if sections.adopted_cluster is False:
            yield Problem(path, "only a HyperPod cluster that runs already has task governance", _ADOPTED_HINT)
        if not governance.enabled:
            yield Problem(path, "task governance is disabled (enabled: false)", f"remove {name}, or enable it")
    arn = governance.existing_scheduler_config_arn
    if arn is not None and (elsewhere := _not_in_organization(arn, sections.organization)):
        yield Problem(
            ("cluster", "task_governance", "existing_scheduler_config_arn"),
            elsewhere,
            "give the ARN that `aws sagemaker list-cluster-scheduler-configs` prints in that account",
        )


def _adopted_quota(sections: Sections, t: int, team: Team) -> Iterator[Problem]:
    arn = team.compute.existing_quota_arn
    if arn is None:
        return
    path: Path = ("teams", t, "compute", "existing_quota_arn")
    if sections.adopted_cluster is False:
        yield Problem(path, "a HyperPod cluster the stacks create has no compute quotas yet", _ADOPTED_HINT)
    if sections.task_governance is not None and not sections.task_governance.enabled:
        yield Problem(path, "task governance is disabled (enabled: false)", "remove existing_quota_arn")
    if elsewhere := _not_in_organization(arn, sections.organization):
        yield Problem(path, elsewhere, "give the ARN that `aws sagemaker list-compute-quotas` prints in that account")


def _adopted_domain(t: int, team: Team) -> Iterator[Problem]:
    if team.studio.existing_domain_id is not None and not team.studio.enabled:
        yield Problem(
            ("teams", t, "studio", "existing_domain_id"),
            "the team's Studio is disabled (studio.enabled: false), so there is no domain to take over",
            "remove existing_domain_id, or enable studio",
        )


def _adopted_permission_sets(sections: Sections, t: int, team: Team) -> Iterator[Problem]:
    if sections.identity is None:
        return
    instance = sections.identity.identity_center.instance_arn.rpartition("/")[2]
    for role, existing in team.existing_permission_sets.items():
        owner = existing.arn.split("/")[1]
        if owner != instance:
            yield Problem(
                ("teams", t, "existing_permission_sets", role, "arn"),
                f"the permission set belongs to Identity Center instance {owner}, not to the spec's ({instance})",
                "give a permission set of identity.identity_center.instance_arn",
            )


def _adopted_once(t: int, team: Team, taken: dict[str, Path]) -> Iterator[Problem]:
    """Each existing resource is taken over by one team role: `taken` holds where each one the
    teams before this one took over."""
    identifiers = [
        (("teams", t, "compute", "existing_quota_arn"), team.compute.existing_quota_arn),
        (("teams", t, "studio", "existing_domain_id"), team.studio.existing_domain_id),
        *(
            (("teams", t, "existing_permission_sets", r, "arn"), e.arn)
            for r, e in team.existing_permission_sets.items()
        ),
    ]
    for where, identifier in identifiers:
        if identifier is None:
            continue
        if identifier in taken:
            yield Problem(
                where,
                f"{identifier} is taken over at {'.'.join(map(str, taken[identifier]))} already",
                "each existing resource belongs to one team role",
            )
        else:
            taken[identifier] = where


def add_on_problems(organization: Organization, cluster: Cluster, teams: list[Team]) -> list[Problem]:
    """Rules of cluster.inference: a team's endpoints are known by their name's prefix
    (naming.team_endpoint_prefix), so no team's prefix may begin another's, and each leaves room for a
    name; the endpoints' priority class is one task governance defines; the operator's images exist in
    the region. And the dependency chart's inference operator, which cannot render, is refused."""
    problems: list[Problem] = []
    if cluster.dependencies_chart.components.get("hyperpod-inference-operator"):
        problems.append(
            Problem(
                ("cluster", "dependencies_chart", "components", "hyperpod-inference-operator"),
                "the dependency chart's inference operator needs values the chart stack does not pass (its execution "
                "role, TLS bucket, region, EKS cluster, load balancer and KEDA roles)",
                "remove it: cluster.inference installs the operator as the EKS add-on with all of them",
            )
        )
    inference = cluster.inference
    if inference is None:
        return problems
    names = [team.name for team in teams]
    for t, team in enumerate(teams):
        prefix = naming.team_endpoint_prefix(organization.name, team.name)
        claimed = [other for other in names if other != team.name and team.name.startswith(f"{other}--")]
        if claimed:
            problems.append(
                Problem(
                    ("teams", t, "name"),
                    f"with cluster.inference, team {claimed[0]!r} invokes the endpoints named "
                    f"{naming.team_endpoint_prefix(organization.name, claimed[0])}*, "
                    f"which takes this team's ({prefix}*)",
                    "rename the team so its name does not start with another team's name and '--'",
                )
            )
        if len(prefix) > naming.ENDPOINT_NAME_MAX - naming.ENDPOINT_NAME_ROOM:
            problems.append(
                Problem(
                    ("teams", t, "name"),
                    f"with cluster.inference, the team's endpoint names start with {prefix!r} ({len(prefix)} "
                    f"characters): SageMaker takes {naming.ENDPOINT_NAME_MAX}, which leaves fewer than "
                    f"{naming.ENDPOINT_NAME_ROOM} for a name",
                    "choose a shorter team or organization name",
                )
            )
    if (
        inference.existing_addon != "leave_alone"
        and organization.region not in addons.INFERENCE_REGIONS
        and not inference.allow_unlisted_region
    ):
        problems.append(
            Problem(
                ("cluster", "inference"),
                f"the HyperPod inference operator's images are not published in {organization.region} (its chart's "
                f"regions: {', '.join(addons.INFERENCE_REGIONS)})",
                "deploy in one of them, leave an operator installed by hand alone (existing_addon: leave_alone), or "
                "set allow_unlisted_region: true if AWS has added the region since",
            )
        )
    classes = [c.name for c in cluster.task_governance.priority_classes]
    if inference.priority_class is not None and inference.priority_class not in classes:
        problems.append(
            Problem(
                ("cluster", "inference", "priority_class"),
                f"{inference.priority_class!r} is not one of task_governance.priority_classes "
                f"({', '.join(classes) or 'none defined'})",
                "name one of them, or add it to cluster.task_governance.priority_classes",
            )
        )
    return problems
