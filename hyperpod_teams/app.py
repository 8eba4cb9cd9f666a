"""Build the CDK app (cdktn or cdktf: hyperpod_teams.engine) of a validated spec: the stacks
`stack_plan` lists (names, credentials,
deploy order and dependencies come from that one graph), each built from its constructs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from hyperpod_teams import engine, naming
from hyperpod_teams.engine import cdk
from hyperpod_teams.plugins import PLATFORM_ADMINS_KEY, IdentityBuild, IdentityGroups, IdentityProviderPlugin
from hyperpod_teams.spec.fields import installs
from hyperpod_teams.spec.models import PlatformSpec, Team
from hyperpod_teams.stack_plan import (
    PlannedStack,
    StackKind,
    TeamPlacement,
    identity_groups,
    identity_plugin,
    stack_plan,
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

    def all(self) -> list[PlatformStack]:
        """In deploy order: identity, access, EKS, HyperPod dependencies, cluster, then per team
        AWS before Kubernetes, usage reporting, cost (stack_plan's order)."""
        ordered: list[PlatformStack] = [
            s for s in (self.identity, self.access, self.eks, self.hyperpod_dependencies, self.cluster) if s
        ]
        for name, team_stack in self.teams.items():
            ordered += [team_stack, self.team_kubernetes[name]]
        ordered += [s for s in (self.usage_report, self.usage_operator) if s]
        return [*ordered, self.cost]

    def by_name(self) -> dict[str, PlatformStack]:
        return {stack.stack_name: stack for stack in self.all()}


def add_platform_stacks(app: cdk.App, spec: PlatformSpec) -> PlatformStacks:
    """Add the platform's stacks to `app` with their providers, backends and dependencies: each
    stack of `stack_plan`, in its order, by the builder of its kind. `app` is a cdktn.App or a
    cdktf.App: the engine of this process (hyperpod_teams.engine), refused clearly if not."""
    engine.for_app(app)
    plugin = identity_plugin(spec)
    building = _Building(app, spec, plugin, identity_groups(spec))
    plan = stack_plan(spec)
    built: dict[str, PlatformStack] = {}
    for planned in plan:
        # A one-cluster plan has no team placed off its home (stack_plan.PlacementKind: #61).
        assert planned.kind != "team-placement", planned
        stack = BUILDERS[planned.kind](building, planned)
        stack.credentials = planned.credentials
        # Each stack deploys after those the plan lists (why each dependency exists is said where
        # stack_plan lists it); the engine adds no duplicates for the ones cross-stack references imply.
        for dependency in planned.depends_on:
            stack.add_dependency(built[dependency])
        built[planned.name] = stack
    return building.stacks()


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
        ids = b.access.group_ids
        grafana_groups = (
            [ids[key] for key in ids if key != PLATFORM_ADMINS_KEY],
            [ids[key] for key in ids if key == PLATFORM_ADMINS_KEY],
        )
    b.cluster = ClusterStack(b.app, planned.name, spec=b.spec, eks=b.eks.eks, grafana_groups=grafana_groups)
    return b.cluster


def _team(b: _Building, planned: PlannedStack) -> PlatformStack:
    assert b.cluster is not None and b.eks is not None and b.access is not None
    team = b.team(planned)
    access = b.access
    b.teams[team.name] = TeamStack(
        b.app,
        planned.name,
        spec=b.spec,
        team=team,
        placement=TeamPlacement(
            hyperpod_cluster_arn=b.cluster.hyperpod.arn,
            eks_cluster_name=b.eks.eks.name,
            group_ids={role: access.group_ids[(team.name, role)] for role in naming.ROLES},
            admins_permission_set_arn=access.permission_sets[(team.name, "admins")].arn,
        ),
    )
    return b.teams[team.name]


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
    b.cost = CostStack(b.app, planned.name, spec=b.spec)
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
    "team-kubernetes": _team_kubernetes,
    "usage-report": _usage_report,
    "usage-operator": _usage_operator,
    "cost": _cost,
}


def build_app(spec: PlatformSpec, *, outdir: str | None = None, context: dict | None = None) -> cdk.App:
    """An App of the process's engine holding the platform's stacks; call `.synth()` to write them."""
    app = cdk.App(outdir=outdir, context=context, skip_validation=False)
    add_platform_stacks(app, spec)
    return app
