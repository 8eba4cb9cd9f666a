"""Build the cdktf App of a validated spec: the stacks `stack_plan` lists (names, credentials,
deploy order and dependencies come from that one graph), each built from its constructs."""

from __future__ import annotations

from dataclasses import dataclass, field

import cdktf

from hyperpod_teams import naming
from hyperpod_teams.plugins import IdentityBuild, IdentityGroups
from hyperpod_teams.spec.models import PlatformSpec
from hyperpod_teams.stack_plan import identity_plugin, stack_plan
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


def add_platform_stacks(app: cdktf.App, spec: PlatformSpec) -> PlatformStacks:
    """Add the platform's stacks to `app` with their providers, backends and dependencies."""
    org = spec.organization.name
    plugin = identity_plugin(spec)

    groups = IdentityGroups.for_spec(spec)
    identity = None
    if plugin.needs_identity_stack:
        identity = IdentityStack(app, naming.identity_stack_name(org), spec=spec, plugin=plugin, groups=groups)
        identity_build = identity.build
    else:
        identity_build = IdentityBuild.unchanged(groups)
    access = AccessStack(
        app,
        naming.access_stack_name(org),
        spec=spec,
        groups=identity_build,
        create_groups=plugin.creates_identity_center_groups,
        existing_groups=groups.existing,
    )
    eks = EksStack(app, naming.eks_stack_name(org), spec=spec)
    dependencies = None
    if spec.cluster.installs_dependencies_chart:
        dependencies = HyperPodDependenciesStack(
            app, naming.hyperpod_dependencies_stack_name(org), spec=spec, eks=eks.eks
        )
    cluster = ClusterStack(app, naming.cluster_stack_name(org), spec=spec, eks=eks.eks)
    cost = CostStack(app, naming.cost_stack_name(org), spec=spec)
    stacks = PlatformStacks(
        identity=identity, access=access, eks=eks, hyperpod_dependencies=dependencies, cluster=cluster, cost=cost
    )

    for team in spec.teams:
        team_stack = TeamStack(
            app,
            naming.team_stack_name(org, team.name),
            spec=spec,
            team=team,
            hyperpod_cluster_arn=cluster.hyperpod.arn,
            eks_cluster_name=eks.eks.name,
            group_ids={role: access.group_ids[(team.name, role)] for role in naming.ROLES},
        )
        kubernetes_stack = TeamKubernetesStack(
            app, naming.team_kubernetes_stack_name(org, team.name), spec=spec, team=team, eks=eks.eks
        )
        stacks.teams[team.name] = team_stack
        stacks.team_kubernetes[team.name] = kubernetes_stack
    if spec.cost.usage_reports.enabled:
        stacks.usage_report = UsageReportStack(app, naming.usage_report_stack_name(org), spec=spec, eks=eks.eks)
        stacks.usage_operator = UsageOperatorStack(
            app,
            naming.usage_operator_stack_name(org),
            spec=spec,
            eks=eks.eks,
            bucket_name=stacks.usage_report.infrastructure.bucket_name,
        )
    _wire(stacks, stack_plan(spec))
    return stacks


def _wire(stacks: PlatformStacks, plan: list) -> None:
    """Credentials and deploy order from the plan: each stack deploys after those it lists (why
    each dependency exists is said where stack_plan lists it); cdktf adds no duplicates for the
    ones cross-stack references imply too."""
    built = stacks.by_name()
    if [s.name for s in plan] != list(built):
        raise AssertionError(f"the app built {list(built)}, the plan lists {[s.name for s in plan]}")
    for planned in plan:
        stack = built[planned.name]
        stack.credentials = planned.credentials
        for dependency in planned.depends_on:
            stack.add_dependency(built[dependency])


def build_app(spec: PlatformSpec, *, outdir: str | None = None, context: dict | None = None) -> cdktf.App:
    """A cdktf App holding the platform's stacks; call `.synth()` to write them."""
    app = cdktf.App(outdir=outdir, context=context, skip_validation=False)
    add_platform_stacks(app, spec)
    return app
