"""Build the cdktf App of a validated spec: the stack set of DESIGN.md, wired in deploy order."""

from __future__ import annotations

from dataclasses import dataclass, field

from hyperpod_teams import bindings, naming

# When this module is the first to load cdktf, jsii's node process starts with the lazy provider
# exports (bindings.tune_node_process); when cdktf is loaded already, this changes nothing.
bindings.tune_node_process()

import cdktf  # noqa: E402

from hyperpod_teams.plugins import IdentityBuild, IdentityGroups  # noqa: E402
from hyperpod_teams.spec.models import PlatformSpec  # noqa: E402
from hyperpod_teams.stack_plan import identity_plugin  # noqa: E402
from hyperpod_teams.stacks import (  # noqa: E402
    AccessStack,
    ClusterStack,
    CostStack,
    EksStack,
    HyperPodDependenciesStack,
    IdentityStack,
    PlatformStack,
    TeamKubernetesStack,
    TeamStack,
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

    def all(self) -> list[PlatformStack]:
        """In deploy order: identity, access, EKS, HyperPod dependencies, cluster, then per team
        AWS before Kubernetes, cost."""
        ordered: list[PlatformStack] = [
            s for s in (self.identity, self.access, self.eks, self.hyperpod_dependencies, self.cluster) if s
        ]
        for name, team_stack in self.teams.items():
            ordered += [team_stack, self.team_kubernetes[name]]
        return [*ordered, self.cost]


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
    if identity is not None:
        # Permission sets are assigned to groups the IdP provisions into Identity Center.
        access.add_dependency(identity)
    eks = EksStack(app, naming.eks_stack_name(org), spec=spec)
    dependencies = None
    if spec.cluster.dependencies_chart.install:
        dependencies = HyperPodDependenciesStack(
            app, naming.hyperpod_dependencies_stack_name(org), spec=spec, eks=eks.eks
        )
    cluster = ClusterStack(app, naming.cluster_stack_name(org), spec=spec, eks=eks.eks)
    if dependencies is not None:
        # HyperPod's agents and device plugins must be in EKS before its nodes join.
        cluster.add_dependency(dependencies)
    cluster.add_dependency(access)  # the platform admins' access entry needs their permission set
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
        team_stack.add_dependency(cluster)
        team_stack.add_dependency(access)  # EKS access entries need the permission sets' roles
        kubernetes_stack = TeamKubernetesStack(
            app, naming.team_kubernetes_stack_name(org, team.name), spec=spec, team=team, eks=eks.eks
        )
        kubernetes_stack.add_dependency(team_stack)  # the team namespace comes with its quota
        stacks.teams[team.name] = team_stack
        stacks.team_kubernetes[team.name] = kubernetes_stack
    return stacks


def build_app(spec: PlatformSpec, *, outdir: str | None = None, context: dict | None = None) -> cdktf.App:
    """A cdktf App holding the platform's stacks; call `.synth()` to write them."""
    app = cdktf.App(outdir=outdir, context=context, skip_validation=False)
    add_platform_stacks(app, spec)
    return app
