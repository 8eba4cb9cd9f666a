"""Build the CDK app (cdktn or cdktf: hyperpod_teams.engine) of a validated spec: the stacks
`stack_plan` lists (names, credentials,
deploy order and dependencies come from that one graph), each built from its constructs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from hyperpod_teams import engine, naming, policies
from hyperpod_teams.engine import cdk
from hyperpod_teams.plugins import PLATFORM_ADMINS_KEY, IdentityBuild, IdentityGroups, IdentityProviderPlugin
from hyperpod_teams.spec.clusters import SeveralClusters
from hyperpod_teams.spec.fields import installs
from hyperpod_teams.spec.models import PlatformSpec, Team
from hyperpod_teams.stack_plan import (
    PlacedWorkload,
    PlannedStack,
    StackKind,
    TeamPlacement,
    identity_groups,
    identity_plugin,
    several_clusters_stack_plan,
    stack_plan,
    team_pod_identity_role_arn,
)
from hyperpod_teams.stacks import (
    AccessStack,
    ClusterStack,
    CostStack,
    EksStack,
    HyperPodDependenciesStack,
    IdentityStack,
    PlatformStack,
    TeamKubernetesStack,
    TeamPlacementStack,
    TeamStack,
    UsageOperatorStack,
    UsageReportStack,
)


@dataclass
class PlatformStacks:
    """Every stack of one platform, for wiring and for library users who add their own."""

    identity: IdentityStack | None
    access: AccessStack
    eks: EksStack
    hyperpod_dependencies: HyperPodDependenciesStack | None
    cluster: ClusterStack
    cost: CostStack
    teams: dict[str, TeamStack] = field(default_factory=dict)
    team_kubernetes: dict[str, TeamKubernetesStack] = field(default_factory=dict)
    usage_report: UsageReportStack | None = None
    usage_operator: UsageOperatorStack | None = None
    #: With several clusters, the teams placed on this cluster whose home is another's.
    placements: dict[str, TeamPlacementStack] = field(default_factory=dict)

    def all(self) -> list[PlatformStack]:
        """In deploy order: identity, access, EKS, HyperPod dependencies, cluster, then per team
        AWS before Kubernetes, usage reporting, cost (stack_plan's order)."""
        ordered: list[PlatformStack] = [
            s for s in (self.identity, self.access, self.eks, self.hyperpod_dependencies, self.cluster) if s
        ]
        for name, kubernetes_stack in self.team_kubernetes.items():
            ordered += [self.teams.get(name) or self.placements[name], kubernetes_stack]
        ordered += [s for s in (self.usage_report, self.usage_operator) if s]
        return [*ordered, self.cost]

    def by_name(self) -> dict[str, PlatformStack]:
        return {stack.stack_name: stack for stack in self.all()}


def add_platform_stacks(app: cdk.App, spec: PlatformSpec) -> PlatformStacks:
    """Add the platform's stacks to `app` with their providers, backends and dependencies: each
    stack of `stack_plan`, in its order, by the builder of its kind. `app` is a cdktn.App or a
    cdktf.App: the engine of this process (hyperpod_teams.engine), refused clearly if not."""
    engine.for_app(app)
    building = _Building(app, spec, identity_plugin(spec), identity_groups(spec))
    _build(stack_plan(spec), lambda planned: building)
    return building.stacks()


@dataclass
class SeveralClustersStacks:
    """Every stack of a spec with `clusters`: the organization's identity, access and cost stacks,
    and each cluster's stacks (sharing those three) by the cluster's name."""

    identity: IdentityStack | None
    access: AccessStack
    cost: CostStack
    clusters: dict[str, PlatformStacks]
    #: Every stack in deploy order (several_clusters_stack_plan's).
    ordered: list[PlatformStack]

    def all(self) -> list[PlatformStack]:
        return list(self.ordered)

    def by_name(self) -> dict[str, PlatformStack]:
        return {stack.stack_name: stack for stack in self.ordered}


def add_several_clusters_stacks(app: cdk.App, clusters: SeveralClusters) -> SeveralClustersStacks:
    """Add the stacks of a spec with `clusters` (spec.clusters.validate_several_clusters) to `app`:
    each stack of `stack_plan.several_clusters_stack_plan`, the organization's from its view
    (SeveralClusters.organization_view), each cluster's from that cluster's view."""
    engine.for_app(app)
    organization = clusters.organization_view
    plugin, groups = identity_plugin(organization), identity_groups(organization)
    shared = _Building(app, organization, plugin, groups, clusters=clusters)
    buildings = {name: _Building(app, view, plugin, groups, clusters=clusters) for name, view in clusters.views.items()}

    def building_of(planned: PlannedStack) -> _Building:
        if planned.cluster is None:
            return shared
        building = buildings[planned.cluster]
        # The organization's stacks, which every cluster's refer to (the plan has them first).
        building.identity, building.access = shared.identity, shared.access
        return building

    ordered = _build(several_clusters_stack_plan(clusters), building_of)
    assert shared.access is not None and shared.cost is not None, "the plan always has them"
    for building in buildings.values():
        building.cost = shared.cost
    return SeveralClustersStacks(
        identity=shared.identity,
        access=shared.access,
        cost=shared.cost,
        clusters={name: building.stacks() for name, building in buildings.items()},
        ordered=ordered,
    )


def _build(plan: list[PlannedStack], building_of: Callable[[PlannedStack], _Building]) -> list[PlatformStack]:
    """Each stack of `plan`, in its order, by the builder of its kind, with its credentials and
    dependencies; `building_of` gives the stacks built so far that it refers to."""
    built: dict[str, PlatformStack] = {}
    for planned in plan:
        stack = BUILDERS[planned.kind](building_of(planned), planned)
        stack.credentials = planned.credentials
        # Each stack deploys after those the plan lists (why each dependency exists is said where
        # stack_plan lists it); the engine adds no duplicates for the ones cross-stack references imply.
        for dependency in planned.depends_on:
            stack.add_dependency(built[dependency])
        built[planned.name] = stack
    return list(built.values())


@dataclass
class _Building:
    """The stacks built so far, which later stacks refer to."""

    app: cdk.App
    spec: PlatformSpec
    plugin: IdentityProviderPlugin
    groups: IdentityGroups
    identity: IdentityStack | None = None
    access: AccessStack | None = None
    eks: EksStack | None = None
    hyperpod_dependencies: HyperPodDependenciesStack | None = None
    cluster: ClusterStack | None = None
    cost: CostStack | None = None
    teams: dict[str, TeamStack] = field(default_factory=dict)
    team_kubernetes: dict[str, TeamKubernetesStack] = field(default_factory=dict)
    usage_report: UsageReportStack | None = None
    usage_operator: UsageOperatorStack | None = None
    placements: dict[str, TeamPlacementStack] = field(default_factory=dict)
    #: With several clusters: the spec, `spec` being one cluster's view or the organization's.
    clusters: SeveralClusters | None = None

    def team(self, planned: PlannedStack) -> Team:
        return next(t for t in self.spec.teams if t.name == planned.team)

    def stacks(self) -> PlatformStacks:
        assert self.access and self.eks and self.cluster and self.cost, "stack_plan always plans these"
        return PlatformStacks(
            identity=self.identity,
            access=self.access,
            eks=self.eks,
            hyperpod_dependencies=self.hyperpod_dependencies,
            cluster=self.cluster,
            cost=self.cost,
            teams=self.teams,
            team_kubernetes=self.team_kubernetes,
            usage_report=self.usage_report,
            usage_operator=self.usage_operator,
            placements=self.placements,
        )


def _identity(b: _Building, planned: PlannedStack) -> PlatformStack:
    b.identity = IdentityStack(b.app, planned.name, spec=b.spec, plugin=b.plugin, groups=b.groups)
    return b.identity


def _access(b: _Building, planned: PlannedStack) -> PlatformStack:
    b.access = AccessStack(
        b.app,
        planned.name,
        spec=b.spec,
        groups=b.identity.build if b.identity else IdentityBuild.unchanged(b.groups),
        create_groups=b.plugin.creates_identity_center_groups,
        existing_groups=b.groups.existing,
        clusters=b.clusters,
    )
    return b.access


def _eks(b: _Building, planned: PlannedStack) -> PlatformStack:
    b.eks = EksStack(b.app, planned.name, spec=b.spec)
    return b.eks


def _hyperpod_dependencies(b: _Building, planned: PlannedStack) -> PlatformStack:
    assert b.eks is not None
    b.hyperpod_dependencies = HyperPodDependenciesStack(b.app, planned.name, spec=b.spec, eks=b.eks.eks)
    return b.hyperpod_dependencies


def _cluster(b: _Building, planned: PlannedStack) -> PlatformStack:
    assert b.eks is not None
    grafana_groups: tuple[list[str], list[str]] = ([], [])
    observability = b.spec.cluster.observability
    if b.access is not None and observability is not None and installs(observability) and observability.grafana:
        ids, teams = b.access.group_ids, {team.name for team in b.spec.teams}
        grafana_groups = (
            [ids[key] for key in ids if key != PLATFORM_ADMINS_KEY and key[0] in teams],
            [ids[key] for key in ids if key == PLATFORM_ADMINS_KEY],
        )
    b.cluster = ClusterStack(b.app, planned.name, spec=b.spec, eks=b.eks.eks, grafana_groups=grafana_groups)
    return b.cluster


def _team(b: _Building, planned: PlannedStack) -> PlatformStack:
    assert b.cluster is not None and b.eks is not None and b.access is not None
    team = b.team(planned)
    b.teams[team.name] = TeamStack(
        b.app,
        planned.name,
        spec=b.spec,
        team=team,
        placement=_placement(b, team.name, admins_studio=True),
        placed=_placed_workload(b, team.name),
    )
    return b.teams[team.name]


def _placement(b: _Building, team: str, *, admins_studio: bool) -> TeamPlacement:
    """Where a team's stack on `b`'s cluster stands: its HyperPod and EKS cluster, its groups' IDs,
    and (`admins_studio`: its home) the admins' permission set its Studio policy is attached to."""
    assert b.cluster is not None and b.eks is not None and b.access is not None
    access = b.access
    return TeamPlacement(
        hyperpod_cluster_arn=b.cluster.hyperpod.arn,
        eks_cluster_name=b.eks.eks.name,
        group_ids={role: access.group_ids[(team, role)] for role in naming.ROLES},
        admins_permission_set_arn=access.permission_sets[(team, "admins")].arn if admins_studio else None,
    )


def _placed_workload(b: _Building, team: str) -> PlacedWorkload:
    """With several clusters, where a team's workload role is reached from off its home cluster:
    the EKS clusters of its placements in the home's account (Pod Identity binds it there), and
    the roles Pod Identity assumes for it on its clusters of other accounts (Pod Identity binds a
    role of the cluster's own account, which assumes the workload role as its target)."""
    if b.clusters is None:
        return PlacedWorkload()
    home = b.clusters.home(team)
    account = b.clusters.views[home].organization.account_id
    eks_arns, chained = [], []
    for name in b.clusters.placements(team):
        view = b.clusters.views[name]
        org = view.organization
        if name == home:
            continue
        if org.account_id == account:
            eks = naming.shared_eks_cluster_name(view.cluster)
            eks_arns.append(
                policies.eks_cluster_arn(policies.aws_partition(org.region), org.region, org.account_id, eks)
            )
        else:
            chained.append(team_pod_identity_role_arn(view, team))
    return PlacedWorkload(tuple(eks_arns), tuple(chained))


def _team_placement(b: _Building, planned: PlannedStack) -> PlatformStack:
    assert b.cluster is not None and b.eks is not None and b.access is not None and b.clusters is not None
    team = b.team(planned)
    b.placements[team.name] = TeamPlacementStack(
        b.app,
        planned.name,
        spec=b.spec,
        team=team,
        placement=_placement(b, team.name, admins_studio=False),
        home=b.clusters.views[b.clusters.home(team.name)],
    )
    return b.placements[team.name]


def _team_kubernetes(b: _Building, planned: PlannedStack) -> PlatformStack:
    assert b.eks is not None
    team = b.team(planned)
    b.team_kubernetes[team.name] = TeamKubernetesStack(b.app, planned.name, spec=b.spec, team=team, eks=b.eks.eks)
    return b.team_kubernetes[team.name]


def _usage_report(b: _Building, planned: PlannedStack) -> PlatformStack:
    assert b.eks is not None
    b.usage_report = UsageReportStack(b.app, planned.name, spec=b.spec, eks=b.eks.eks)
    return b.usage_report


def _usage_operator(b: _Building, planned: PlannedStack) -> PlatformStack:
    assert b.eks is not None and b.usage_report is not None
    b.usage_operator = UsageOperatorStack(
        b.app, planned.name, spec=b.spec, eks=b.eks.eks, bucket_name=b.usage_report.infrastructure.bucket_name
    )
    return b.usage_operator


def _cost(b: _Building, planned: PlannedStack) -> PlatformStack:
    b.cost = CostStack(b.app, planned.name, spec=b.spec, clusters=b.clusters)
    return b.cost


#: One builder per kind of stack (stack_plan.StackKind): it builds the stack from the spec and
#: the stacks built before it, and keeps it where later builders find it.
BUILDERS: dict[StackKind, Callable[[_Building, PlannedStack], PlatformStack]] = {
    "identity": _identity,
    "access": _access,
    "eks": _eks,
    "hyperpod-dependencies": _hyperpod_dependencies,
    "cluster": _cluster,
    "team": _team,
    "team-placement": _team_placement,
    "team-kubernetes": _team_kubernetes,
    "usage-report": _usage_report,
    "usage-operator": _usage_operator,
    "cost": _cost,
}


def build_app(
    spec: PlatformSpec | SeveralClusters, *, outdir: str | None = None, context: dict | None = None
) -> cdk.App:
    """An App of the process's engine holding the platform's stacks (of one cluster, or of several:
    spec.clusters.validate_several_clusters); call `.synth()` to write them."""
    app = cdk.App(outdir=outdir, context=context, skip_validation=False)
    if isinstance(spec, SeveralClusters):
        add_several_clusters_stacks(app, spec)
    else:
        add_platform_stacks(app, spec)
    return app
