"""Several clusters in one spec (#61, in progress): `clusters:` instead of `cluster:`, a team's
compute per cluster in `teams[].placements`, its Studio domain's cluster in `teams[].studio.home`.

```yaml
clusters:                 # each item: a `cluster` section, and where it runs
  - name: train
    account_id: "222200000001"   # default organization.account_id
    region: us-east-1            # default organization.region
    ...
teams:
  - name: nlp
    placements:           # cluster name -> that cluster's `compute` section
      train: {quota: [{instance_type: ml.p5.48xlarge, count: 4}]}
    studio: {home: train} # where the team's domain, data and roles live (default: its one placement)
```

How it is checked: the fields first (`SeveralClustersSpec`), then the rules across them that only
several clusters have (a placement names a cluster of the spec, ...), then every rule of a
one-cluster spec on each cluster's view (`cluster_view`): the spec as if it had that cluster alone,
in that cluster's account and region, with the teams placed there and their compute there. A view's
problem is reported at the field of this spec it comes from (`cluster.X` at `clusters[i].X`, a
team's `compute.X` at `teams[j].placements.<cluster>.X`), once however many views find it.

Not yet taken by the commands: `validate_spec` reads `cluster:` specs. The stacks of several
clusters are planned (`stack_plan.several_clusters_stack_plan`); building them comes next (#61).
Pure layer: never imports cdktf.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

from pydantic import ConfigDict, Field, ValidationError

from hyperpod_teams import naming, registry
from hyperpod_teams.policies.documents import policy_size
from hyperpod_teams.policies.several_clusters import (
    PERMISSION_SET_POLICY_MAX,
    several_clusters_permission_set_policy,
    several_clusters_platform_admins_policy,
)
from hyperpod_teams.spec.field_types import (
    MAX_ORGANIZATION_TAGS,
    AccountId,
    RegionName,
    ResourceName,
    SpecModel,
    optional,
)
from hyperpod_teams.spec.fields import (
    Backend,
    Cluster,
    Compute,
    Cost,
    Identity,
    LocalBackend,
    Organization,
    Studio,
    Team,
)
from hyperpod_teams.spec.models import PlatformSpec
from hyperpod_teams.spec.problems import Path, Problem, SpecError
from hyperpod_teams.spec.validation_errors import problems_from_validation_error

#: Rules of a cost category (the Cost Explorer API's model: CostCategoryRulesList, 1 to 500).
MAX_COST_CATEGORY_RULES = 500
#: The fields a cluster of `clusters` has besides a `cluster` section's: where it runs (in its
#: view, the organization's).
WHERE_FIELDS = ("account_id", "region")


class PlacedCluster(Cluster):
    """A `cluster` section, and the account and region the cluster runs in."""

    account_id: AccountId | None = optional("Default: organization.account_id.")
    region: RegionName | None = optional("Default: organization.region.")
    one_cluster_names: bool = Field(
        default=False,
        description="This cluster keeps the names a one-cluster spec gives its stacks, roles and quotas "
        "(`<org>-eks`, `<org>-cluster`, ...): the cluster of a spec that grew from `cluster` to `clusters`, "
        "whose deployed stacks and create-only names stay as they are. At most one cluster. Default: its "
        "names are qualified by its own (`<org>-<cluster>-eks`, ...).",
    )


class PlacedStudio(Studio):
    """A `studio` section, and the cluster the team's home is on."""

    home: ResourceName | None = optional(
        "The cluster whose account and region hold the team's SageMaker AI domain, data bucket and roles; "
        "its Studio apps reach that cluster's EKS API. Default: the team's one placement."
    )


class PlacedTeam(Team):
    """A team of a spec with `clusters`: its compute on each cluster it runs on (`placements`), its
    Studio domain, data and roles on one of them (`studio.home`)."""

    placements: dict[ResourceName, Compute] = Field(
        min_length=1,
        description="Cluster name -> the team's compute there (a `compute` section): its quota, sharing, "
        "priority. The team's namespace, queues, access entries and quota exist on these clusters only.",
    )
    studio: PlacedStudio = Field(default_factory=PlacedStudio)


class SeveralClustersSpec(SpecModel):
    """One organization's HyperPod clusters and the teams that share them: the fields."""

    model_config = ConfigDict(title="hyperpod-teams spec v1, several clusters")

    version: Literal[1]
    organization: Organization
    backend: Backend = Field(default_factory=LocalBackend)
    identity: Identity
    # Each cluster's shared spend is split by a split charge rule of its own in the organization's
    # cost category, and a cost category takes at most 10 (the Cost Explorer API's model:
    # CostCategorySplitChargeRulesList).
    clusters: list[PlacedCluster] = Field(min_length=1, max_length=10)
    teams: list[PlacedTeam] = Field(min_length=1, max_length=499)
    cost: Cost = Field(default_factory=Cost)


@dataclass(frozen=True)
class SeveralClusters:
    """A valid spec of several clusters: its fields, and each cluster's one-cluster view by name."""

    spec: SeveralClustersSpec
    views: dict[str, PlatformSpec]

    @cached_property
    def organization_view(self) -> PlatformSpec:
        """The spec as the organization's stacks (identity, access, cost) read it: the organization's
        account, Region and tags (no cluster's), every team as on its home cluster. Its `cluster` is
        the first cluster's, which none of them reads."""
        first = self.views[self.spec.clusters[0].name]
        teams = [self.views[home_cluster(t.studio.home, t.placements)].team(t.name) for t in self.spec.teams]
        return first.model_copy(update={"organization": self.spec.organization, "teams": teams})

    @cached_property
    def _teams(self) -> dict[str, PlacedTeam]:
        return {team.name: team for team in self.spec.teams}

    def home(self, team: str) -> str:
        """The cluster of a team's home."""
        placed = self._teams[team]
        return home_cluster(placed.studio.home, placed.placements)

    def placements(self, team: str) -> list[str]:
        """The clusters a team is placed on, in the spec's order of the clusters."""
        return [name for name in self.views if name in self._teams[team].placements]


def organization_of(spec: PlatformSpec | SeveralClusters) -> PlatformSpec:
    """The spec as the organization's stacks read it: a one-cluster spec itself, or the
    organization's view of a spec of several clusters (SeveralClusters.organization_view)."""
    return spec.organization_view if isinstance(spec, SeveralClusters) else spec


def cluster_qualifier(cluster: PlacedCluster) -> str | None:
    """What a cluster's stacks, roles and quotas are named after besides the organization: the
    cluster's name, or None for the cluster that keeps a one-cluster spec's names."""
    return None if cluster.one_cluster_names else cluster.name


def team_stack_names(org: str, team: str, *, placed_on: str | None = None) -> tuple[str, str]:
    """The names of a team's AWS and Kubernetes stacks on one cluster: on its home cluster
    (`placed_on` None) a one-cluster spec's (`<org>-team-<t>`, `<org>-k8s-<t>`), whichever cluster
    that is, so a spec that grew from `cluster` renames none; on another cluster, qualified by that
    cluster's name (`<org>-<cluster>-team-<t>`)."""
    return (
        naming.team_stack_name(org, team, cluster=placed_on),
        naming.team_kubernetes_stack_name(org, team, cluster=placed_on),
    )


def home_cluster(home: str | None, placements: Mapping[str, Any]) -> str:
    """A team's home cluster: `studio.home`, or its one placement (the rules require `home` with
    several)."""
    return home if home is not None else next(iter(placements))


def validate_several_clusters(data: Any) -> SeveralClusters:
    """The spec `data` (parsed YAML or JSON) with `clusters`, checked; SpecError lists every problem."""
    try:
        spec = SeveralClustersSpec.model_validate(data)
    except ValidationError as exc:
        raise SpecError(list(problems_from_validation_error(exc, SeveralClustersSpec, data=data))) from None
    problems = list(_problems_across_clusters(spec))
    if problems:
        raise SpecError(problems)
    views: dict[str, PlatformSpec] = {}
    found: list[Problem] = []
    for index, cluster in enumerate(spec.clusters):
        view, teams = cluster_view(data, index)
        try:
            views[cluster.name] = _on_cluster(PlatformSpec.model_validate(view), cluster, spec.organization.region)
            # What AWS's registry schemas refuse of the desired states this cluster's stacks make.
            view_problems = registry.spec_problems(views[cluster.name])
        except ValidationError as exc:
            view_problems = list(problems_from_validation_error(exc, PlatformSpec, data=view))
        except SpecError as exc:
            view_problems = exc.problems
        found += [_from_view(p, data, index, teams) for p in view_problems]
    unique = list(dict.fromkeys(found))
    if unique:
        raise SpecError(unique)
    problems = list(_permission_sets_fit(spec, views))
    if problems:
        raise SpecError(problems)
    return SeveralClusters(spec, views)


def _on_cluster(view: PlatformSpec, cluster: PlacedCluster, identity_center_region: str) -> PlatformSpec:
    """A cluster's view as its stacks build it: every resource tagged with the cluster's name
    (naming.TAG_CLUSTER: the cost category splits each cluster's shared spend by it), the names
    AWS holds once per account or Region qualified by it (PlatformSpec.cluster_qualifier), Identity
    Center's resources of its team stacks in the organization's Region
    (PlatformSpec.identity_center_region)."""
    org = view.organization
    tagged = org.model_copy(update={"tags": {**org.tags, naming.TAG_CLUSTER: cluster.name}})
    view = view.model_copy(update={"organization": tagged})
    view._cluster_qualifier = cluster_qualifier(cluster)
    view._identity_center_region = identity_center_region
    return view


def _permission_sets_fit(spec: SeveralClustersSpec, views: dict[str, PlatformSpec]) -> Iterator[Problem]:
    """A team's roles, and the platform admins, have one permission set over every cluster they
    serve, and Identity Center takes at most PERMISSION_SET_POLICY_MAX characters of its policy."""
    if len(views) > 1:
        size = policy_size(several_clusters_platform_admins_policy(views))
        if size > PERMISSION_SET_POLICY_MAX:
            yield Problem(
                ("clusters",),
                f"over {len(views)} clusters, the policy of the platform admins' permission set would hold "
                f"{size:,} characters (whitespace aside), and IAM Identity Center takes at most "
                f"{PERMISSION_SET_POLICY_MAX:,}",
                "split the organization's clusters into fewer, or give them shorter names",
            )
    for index, team in enumerate(spec.teams):
        if len(team.placements) < 2:
            continue  # the one-cluster spec's policy: a few thousand characters
        home = home_cluster(team.studio.home, team.placements)
        sizes = {
            role: policy_size(several_clusters_permission_set_policy(views, home, team.name, role))
            for role in naming.ROLES
        }
        role, size = max(sizes.items(), key=lambda item: item[1])
        if size > PERMISSION_SET_POLICY_MAX:
            yield Problem(
                ("teams", index, "placements"),
                f"on {len(team.placements)} clusters, the policy of team {team.name}'s {role} permission set "
                f"would hold {size:,} characters (whitespace aside), and IAM Identity Center takes at most "
                f"{PERMISSION_SET_POLICY_MAX:,}",
                "place the team on fewer clusters, or give the clusters shorter names",
            )


def _problems_across_clusters(spec: SeveralClustersSpec) -> Iterator[Problem]:
    """The rules only several clusters have."""
    yield from _clusters_once(spec)
    yield from _stack_names_collide(spec)
    yield from _cost_category_fits(spec)
    if len(spec.organization.tags) > MAX_ORGANIZATION_TAGS - 1:
        yield Problem(
            ("organization", "tags"),
            f"{len(spec.organization.tags)} tags, and with clusters every resource carries one more "
            f"({naming.TAG_CLUSTER}: the cost category splits each cluster's shared spend by it), of AWS's 50",
            f"give at most {MAX_ORGANIZATION_TAGS - 1} tags",
        )
    names = [cluster.name for cluster in spec.clusters]
    for index, team in enumerate(spec.teams):
        yield from _placed(index, team, names)
    placed = {name for team in spec.teams for name in team.placements}
    for index, name in enumerate(names):
        if name not in placed:
            yield Problem(
                ("clusters", index, "name"),
                f"no team is placed on cluster {name}",
                f"place a team there (teams[].placements.{name}), or leave the cluster out",
            )


def _clusters_once(spec: SeveralClustersSpec) -> Iterator[Problem]:
    """Each cluster named once, and no two adopting the same cluster in one account and region."""
    names = [cluster.name for cluster in spec.clusters]
    for index, name in enumerate(names):
        if name in names[:index]:
            yield Problem(("clusters", index, "name"), f"a second cluster is named {name!r}", "name each cluster once")
    keeping = [index for index, cluster in enumerate(spec.clusters) if cluster.one_cluster_names]
    for index in keeping[1:]:
        yield Problem(
            ("clusters", index, "one_cluster_names"),
            f"clusters[{keeping[0]}] keeps the one-cluster names already, and two clusters' stacks of one name "
            "would share a state",
            "keep them on one cluster only: the one the spec had under `cluster`",
        )
    org = spec.organization
    where: dict[tuple[str, str, str], int] = {}
    for index, cluster in enumerate(spec.clusters):
        account, region = cluster.account_id or org.account_id, cluster.region or org.region
        for field, held in (
            (("existing_hyperpod_cluster_name",), cluster.existing_hyperpod_cluster_name),
            (("eks", "existing_cluster_name"), cluster.eks.existing_cluster_name),
        ):
            if held is None:
                continue
            key = (field[0], account, f"{region}/{held}")
            if key in where:
                yield Problem(
                    ("clusters", index, *field),
                    f"{held} in account {account}, {region} is clusters[{where[key]}]'s already",
                    "a HyperPod cluster has an EKS cluster of its own: give each cluster its own",
                )
            where[key] = index


def _cost_category_fits(spec: SeveralClustersSpec) -> Iterator[Problem]:
    """A rule per team and one per cluster for its shared spend, within the API's limit, and no
    team value that is a cluster's shared value."""
    rules = len(spec.teams) + len(spec.clusters)
    if rules > MAX_COST_CATEGORY_RULES:
        yield Problem(
            ("teams",),
            f"{len(spec.teams)} teams and {len(spec.clusters)} clusters make {rules} rules of the cost category, "
            f"and AWS takes at most {MAX_COST_CATEGORY_RULES}",
            "split the organization, or join teams",
        )
    shared = {naming.cluster_shared_cost_value(c.name): c.name for c in spec.clusters}
    for index, team in enumerate(spec.teams):
        if team.name in shared:
            yield Problem(
                ("teams", index, "name"),
                f"team name {team.name!r} is cluster {shared[team.name]}'s shared spend in the cost category",
                "choose another team name",
            )


def _placed(index: int, team: PlacedTeam, clusters: list[str]) -> Iterator[Problem]:
    """A team's placements on clusters of the spec, its compute there only, its home one of them."""
    for name in team.placements:
        if name not in clusters:
            yield Problem(
                ("teams", index, "placements", name),
                f"no cluster is named {name!r}",
                f"place the team on clusters of the spec: {', '.join(clusters)}",
            )
    if "compute" in team.model_fields_set:
        yield Problem(
            ("teams", index, "compute"),
            "with clusters, a team's compute is given per cluster",
            "move it under teams[].placements.<cluster>",
        )
    home = team.studio.home
    if home is not None and home not in team.placements:
        yield Problem(
            ("teams", index, "studio", "home"),
            f"{home!r} is not a cluster the team is placed on",
            f"choose one of {', '.join(team.placements)}, or place the team there",
        )
    if home is None and len(team.placements) > 1:
        yield Problem(
            ("teams", index, "studio", "home"),
            "a team on several clusters needs the one its domain, data and roles live on",
            f"set teams[{index}].studio.home to one of {', '.join(team.placements)}",
        )


def _stack_names_collide(spec: SeveralClustersSpec) -> Iterator[Problem]:
    """Two stacks of one name would share a state: a cluster's name and a team's can make one
    (cluster `team` with team `x`, and team `team-x`: `<org>-team-team-x` both)."""
    org = spec.organization.name
    seen = {
        shared(org): "the organization"
        for shared in (naming.identity_stack_name, naming.access_stack_name, naming.cost_stack_name)
    }
    owners: list[tuple[list[str], str, Path, str]] = [
        (_chain_and_placements(spec, c), f"cluster {c.name}", ("clusters", i, "name"), "rename the cluster")
        for i, c in enumerate(spec.clusters)
    ]
    owners += [
        (
            list(team_stack_names(org, t.name)),
            f"team {t.name}'s home",
            ("teams", i, "name"),
            "rename the cluster or the team",
        )
        for i, t in enumerate(spec.teams)
    ]
    for names, owner, path, fix in owners:
        shared: dict[str, list[str]] = {}  # the earlier owner -> the stacks this one would share with it
        for name in names:
            if name in seen:
                shared.setdefault(seen[name], []).append(name)
            seen.setdefault(name, owner)
        for other, both in shared.items():
            stacks = f"the stack {both[0]}" if len(both) == 1 else f"the stacks {', '.join(both)}"
            yield Problem(path, f"{stacks} would be both {other}'s and {owner}'s", fix)


def _chain_and_placements(spec: SeveralClustersSpec, cluster: PlacedCluster) -> list[str]:
    """The stacks of one cluster (every one it may have: stack_plan.several_clusters_stack_plan
    plans them): its chain, and the place of each team on it that is not the team's home."""
    org, qualifier = spec.organization.name, cluster_qualifier(cluster)
    chain = [
        naming.eks_stack_name(org, cluster=qualifier),
        naming.hyperpod_dependencies_stack_name(org, cluster=qualifier),
        naming.cluster_stack_name(org, cluster=qualifier),
        naming.usage_report_stack_name(org, cluster=qualifier),
        naming.usage_operator_stack_name(org, cluster=qualifier),
    ]
    for team in spec.teams:
        if cluster.name in team.placements and cluster.name != home_cluster(team.studio.home, team.placements):
            chain += team_stack_names(org, team.name, placed_on=cluster.name)
    return chain


def cluster_view(data: Mapping[str, Any], index: int) -> tuple[dict[str, Any], list[int]]:
    """Cluster `index` of `data` as a one-cluster spec, and the index in `data` of each team of it:
    the cluster as `cluster` (its account and region as the organization's), the teams placed on it
    with their compute there. A team's Studio domain is in its home cluster's view only. Built from
    the data as written, so what a field left out still reads as left out."""
    cluster = dict(data["clusters"][index])
    name = cluster["name"]
    organization = dict(data["organization"])
    accounts = dict(organization.get("accounts") or {})
    if cluster.get("account_id", organization.get("account_id")) != organization.get("account_id"):
        # Identity Center is administered where the organization's spec says, not in the cluster's
        # account: its permission sets and the team stacks' Identity Center resources stay there.
        accounts.setdefault("identity_center", organization.get("account_id"))
        organization["accounts"] = accounts
    for field in WHERE_FIELDS:
        if field in cluster:
            organization[field] = cluster.pop(field)
    cluster.pop("one_cluster_names", None)
    teams, indexes = [], []
    for team_index, team in enumerate(data["teams"]):
        placements = team.get("placements") or {}
        if name not in placements:
            continue
        studio = dict(team.get("studio") or {})
        homed = home_cluster(studio.pop("home", None), placements)
        view_team = {k: v for k, v in team.items() if k not in ("placements", "studio")}
        view_team["compute"] = placements[name]
        view_team["studio"] = studio if homed == name else {"enabled": False}
        teams.append(view_team)
        indexes.append(team_index)
    view = {k: v for k, v in data.items() if k not in ("clusters", "teams")}
    view.update(organization=organization, cluster=cluster, teams=teams)
    return view, indexes


def _from_view(problem: Problem, data: Mapping[str, Any], index: int, teams: list[int]) -> Problem:
    """A problem of cluster `index`'s view, at the field of `data` it comes from."""
    path: Path = problem.path
    cluster = data["clusters"][index]
    if path[:1] == ("cluster",):
        path = ("clusters", index, *path[1:])
    elif path[:1] == ("teams",) and len(path) > 1 and isinstance(path[1], int) and path[1] < len(teams):
        team = teams[path[1]]
        if path[2:3] == ("compute",):
            path = ("teams", team, "placements", cluster["name"], *path[3:])
        else:
            path = ("teams", team, *path[2:])
    elif path[:1] == ("organization",) and path[1:2] and path[1] in WHERE_FIELDS and path[1] in cluster:
        path = ("clusters", index, *path[1:])
    return Problem(path, problem.message, problem.hint)
