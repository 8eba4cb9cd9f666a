"""The stacks of a spec, their credentials and deploy order, as plain data: what the report and
the runbook show without building the app. Pure layer: no cdktf.

The one stack graph: `app.py` builds the stacks of this plan in its order, one builder per
kind, and takes their credentials and dependencies from here; a test compares this plan with the
synthesized manifest too. Adding a stack: its name in `naming`, its entry here with a new kind,
its module in `stacks/`, and one builder in `app.BUILDERS`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import asdict, dataclass, replace
from typing import Literal

from hyperpod_teams import naming
from hyperpod_teams.plugins import (
    PLATFORM_ADMINS_KEY,
    IdentityGroups,
    IdentityProviderInputs,
    IdentityProviderPlugin,
    load_identity_provider,
)
from hyperpod_teams.spec.clusters import SeveralClusters, cluster_qualifier, home_cluster, team_stack_names
from hyperpod_teams.spec.models import Network, Organization, PlatformSpec, Team

#: What a stack is: `app.BUILDERS` has one builder per kind.
StackKind = Literal[
    "identity",
    "access",
    "eks",
    "hyperpod-dependencies",
    "cluster",
    "team",
    # With several clusters (spec `clusters`), a team's place on a cluster other than its home's.
    "team-placement",
    "team-kubernetes",
    "usage-report",
    "usage-operator",
    "cost",
]


@dataclass(frozen=True)
class PlannedStack:
    name: str
    kind: StackKind
    credentials: str
    holds: str
    depends_on: tuple[str, ...] = ()
    #: The team the stack belongs to, or None for a shared stack.
    team: str | None = None
    #: With several clusters (spec `clusters`), the cluster whose stack it is, by its name in the
    #: spec; None for the organization's stacks, and for every stack of a one-cluster spec.
    cluster: str | None = None


def identity_plugin(spec: PlatformSpec) -> IdentityProviderPlugin:
    """The spec's identity-provider plugin with its validated settings (imports no bindings)."""
    plugin_class = load_identity_provider(spec.identity.provider)
    return plugin_class(plugin_class.settings_model.model_validate(spec.identity.settings))


def identity_provider_inputs(spec: PlatformSpec) -> IdentityProviderInputs:
    """What the identity provider's plugin is handed of the spec."""
    center = spec.identity.identity_center
    return IdentityProviderInputs(
        organization=spec.organization.name,
        account_id=spec.organization.account_id,
        region=spec.organization.region,
        identity_center_instance_arn=center.instance_arn,
        identity_store_id=center.identity_store_id,
    )


@dataclass(frozen=True)
class PlacedWorkload:
    """Where a team's workload role is reached from off its home cluster (several clusters): the EKS
    clusters of its placements in the home's account, whose Pod Identity it trusts, and the roles
    Pod Identity assumes on its clusters of other accounts, which it trusts to assume it."""

    #: The EKS clusters of its placements off its home in the home's account: the workload role
    #: trusts their Pod Identity too (stacks/team_placement.py binds it there).
    eks_cluster_arns: tuple[str, ...] = ()
    #: The roles Pod Identity assumes for it on its clusters in other accounts than its home's
    #: (naming.team_pod_identity_role_name), which assume its workload role.
    chained_role_arns: tuple[str, ...] = ()


@dataclass(frozen=True)
class TeamStackInputs:
    """What a team's resources need of the spec besides the team itself: the organization (account,
    region, tags), the network its Studio domain runs in, the EKS cluster its access entries go
    to, and whether task governance gives it a compute quota."""

    organization: Organization
    network: Network
    #: The EKS cluster's name as the spec gives it: the IAM policies name it before it exists.
    eks_cluster_name: str
    task_governance: bool
    #: The Identity Center instance of the team's permission sets (the admins' Studio policy is
    #: attached to theirs).
    identity_center_instance_arn: str | None = None
    #: Whether the CloudWatch Observability add-on writes the containers' logs (the team's roles
    #: then read their own namespace's).
    container_logs: bool = False
    #: Whether the cluster runs SageMaker Spaces (the team roles' access entries then get AWS's space
    #: policies, scoped to the team namespace and to the shared templates' namespace).
    spaces: bool = False
    #: With several clusters, the cluster's qualifier its quota names carry (PlatformSpec.cluster_qualifier).
    cluster_qualifier: str | None = None
    #: With several clusters, where the team's other placements reach its workload role from.
    placed: PlacedWorkload = PlacedWorkload()


def team_workload_role_arn(home: PlatformSpec, team: str) -> str:
    """The workload role the stacks make for `team` at its home (`home`: the view of its home
    cluster, or a one-cluster spec)."""
    org = home.organization
    return naming.iam_role_arn(org.region, org.account_id, naming.team_workload_role_name(org.name, team))


def team_pod_identity_role_arn(spec: PlatformSpec, team: str) -> str:
    """The role Pod Identity assumes for `team` on the cluster of `spec` (a view of several
    clusters) when that cluster is in another account than the team's home."""
    org = spec.organization
    name = naming.team_pod_identity_role_name(org.name, team, cluster=spec.cluster_qualifier)
    return naming.iam_role_arn(org.region, org.account_id, name)


@dataclass(frozen=True)
class TeamPlacement:
    """Where a team's environment stands, as plain values or Terraform references: the HyperPod
    cluster whose compute quota it gets, the EKS cluster its access entries go to, its IdP groups'
    Identity Center IDs by role, and its admins' permission set (None: no Studio grant for them)."""

    hyperpod_cluster_arn: str
    eks_cluster_name: str
    group_ids: dict[str, str]
    admins_permission_set_arn: str | None = None

    def keywords(self) -> dict:
        """The placement as `TeamEnvironment`'s keywords."""
        return asdict(self)


def team_stack_inputs(spec: PlatformSpec) -> TeamStackInputs:
    return TeamStackInputs(
        organization=spec.organization,
        network=spec.cluster.network,
        eks_cluster_name=naming.shared_eks_cluster_name(spec.cluster),
        task_governance=spec.cluster.task_governance.enabled,
        identity_center_instance_arn=spec.identity.identity_center.instance_arn,
        container_logs=spec.cluster.cloudwatch_observability,
        spaces=spec.cluster.spaces is not None,
        cluster_qualifier=spec.cluster_qualifier,
    )


def identity_groups(spec: PlatformSpec) -> IdentityGroups:
    """The IdP groups of the spec: a group per team role and the platform admins', named by
    `identity.group_name_pattern`, and which of them the IdP has already."""
    pattern, org = spec.identity.group_name_pattern, spec.organization
    existing = {(team.name, role) for team in spec.teams for role in naming.ROLES if getattr(team.members, role)}
    if org.platform_admins_group:
        existing.add(PLATFORM_ADMINS_KEY)
    return IdentityGroups(
        by_team_role={
            (team.name, role): naming.team_group_name(pattern, org.name, team, role)
            for team in spec.teams
            for role in naming.ROLES
        },
        platform_admins=naming.platform_admins_group(pattern, org),
        existing=frozenset(existing),
    )


def _aws_credentials(spec: PlatformSpec, part: str) -> str:
    """The credentials an AWS stack runs with: `part` is "workload", "Identity Center", "payer" or
    "team" (the workload account's, with Identity Center's resources in its account). With
    `organization.accounts`, each names its account number (docs/deploy.md, "Accounts")."""
    org = spec.organization
    if org.accounts is None:
        return {"Identity Center": "AWS (Identity Center account)", "payer": "AWS (payer account)"}.get(part, "AWS")
    if part == "Identity Center":
        return f"AWS account {org.identity_center_account} (Identity Center)"
    if part == "payer":
        return f"AWS account {org.payer_account} (payer)" if org.payer_account else "AWS (payer account)"
    if part == "team" and org.identity_center_account != org.account_id:
        return f"AWS account {org.account_id} (workload; Identity Center's in {org.identity_center_account})"
    return f"AWS account {org.account_id} (workload)"


def stack_plan(spec: PlatformSpec) -> list[PlannedStack]:
    """Every stack of the spec, in a valid deploy order."""
    stacks, access = _organization_stacks(spec)
    chain = _cluster_chain(spec, access)
    stacks += chain.stacks
    for team in spec.teams:
        stacks += _team_stacks(spec, team, chain, access)
    return [*stacks, *_usage_stacks(spec, chain), _cost_stack(spec)]


def planned_stacks(spec: PlatformSpec | SeveralClusters) -> list[PlannedStack]:
    """Every stack of a spec of one cluster (stack_plan) or of several (several_clusters_stack_plan)."""
    return several_clusters_stack_plan(spec) if isinstance(spec, SeveralClusters) else stack_plan(spec)


def several_clusters_stack_plan(clusters: SeveralClusters) -> list[PlannedStack]:
    """Every stack of a spec with `clusters` (#61), in a valid deploy order: the identity
    provider's, Identity Center's and the cost stack once for the organization; each cluster's
    chain and usage reports from its view, named after the cluster (`<org>-<cluster>-eks`, ...)
    unless it keeps a one-cluster spec's names; a team's stacks on its home cluster with the
    one-cluster names (`<org>-team-<t>`: its home and its place there; `<org>-k8s-<t>`), and on
    each other cluster it is placed on, a placement stack and a Kubernetes stack named after that
    cluster (`<org>-<cluster>-team-<t>`, `<org>-<cluster>-k8s-<t>`), after its home stack."""
    views = clusters.views
    # The organization's stacks: its account, Region and tags, every team (SeveralClusters.organization_view).
    organization = clusters.organization_view
    stacks, access = _organization_stacks(organization)
    chains = {
        c.name: _cluster_chain(views[c.name], access, of=c.name, qualifier=cluster_qualifier(c))
        for c in clusters.spec.clusters
    }
    for chain in chains.values():
        stacks += chain.stacks
    for placed in clusters.spec.teams:
        home = home_cluster(placed.studio.home, placed.placements)
        home_stacks = _team_stacks(views[home], views[home].team(placed.name), chains[home], access)
        stacks += home_stacks
        for name in placed.placements:
            if name != home:
                view = views[name]
                stacks += _team_stacks(view, view.team(placed.name), chains[name], access, home=home_stacks[0].name)
    for name, chain in chains.items():
        stacks += _usage_stacks(views[name], chain)
    stacks.append(_cost_stack(organization))
    return [_where(stack, views, several=len(clusters.spec.clusters) > 1) for stack in stacks]


def _where(stack: PlannedStack, views: Mapping[str, PlatformSpec], *, several: bool) -> PlannedStack:
    """A cluster's stack's credentials with where they reach: an AWS stack's account and Region, a
    Kubernetes stack's EKS cluster."""
    if stack.cluster is None or not several:
        return stack
    view = views[stack.cluster]
    if stack.credentials == "EKS cluster":
        eks = naming.shared_eks_cluster_name(view.cluster)
        return replace(stack, credentials=f"EKS cluster {eks}, {view.organization.region} (cluster {stack.cluster})")
    if not stack.credentials.startswith("AWS"):
        return stack
    org = view.organization
    account = f"AWS account {org.account_id}" if stack.credentials == "AWS" else stack.credentials
    return replace(stack, credentials=f"{account}, {org.region} (cluster {stack.cluster})")


# Why each stack deploys after another: access assigns permission sets to groups the IdP
# provisions; the cluster needs the dependency chart in EKS before its nodes join, and the
# platform admins' permission set for their access entry; a team's stack needs the cluster,
# EKS and the permission sets' roles (access entries); its Kubernetes stack needs the team
# namespace that comes with its quota.


def _organization_stacks(spec: PlatformSpec) -> tuple[list[PlannedStack], str]:
    """The identity provider's stack (if its plugin has one) and Identity Center's; the latter's name."""
    org = spec.organization.name
    plugin = identity_plugin(spec)
    identity, access = naming.identity_stack_name(org), naming.access_stack_name(org)
    stacks: list[PlannedStack] = []
    if plugin.needs_identity_stack:
        stacks.append(
            PlannedStack(identity, "identity", f"identity provider ({plugin.name})", "SAML app, groups, provisioning")
        )
    stacks.append(
        PlannedStack(
            access,
            "access",
            _aws_credentials(spec, "Identity Center"),
            "Identity Center groups, permission sets, account assignments",
            (identity,) if plugin.needs_identity_stack else (),
        )
    )
    return stacks, access


@dataclass(frozen=True)
class _Chain:
    """One cluster's stacks that its teams' stacks deploy after: EKS, the dependencies chart, HyperPod."""

    eks: str
    cluster: str
    stacks: list[PlannedStack]
    #: The cluster's name in a spec of several clusters (None: a one-cluster spec).
    of: str | None = None
    #: What its stacks' names are qualified with (None: a one-cluster spec's names).
    qualifier: str | None = None


def _cluster_chain(spec: PlatformSpec, access: str, *, of: str | None = None, qualifier: str | None = None) -> _Chain:
    org = spec.organization.name
    eks, deps, cluster = (
        naming.eks_stack_name(org, cluster=qualifier),
        naming.hyperpod_dependencies_stack_name(org, cluster=qualifier),
        naming.cluster_stack_name(org, cluster=qualifier),
    )
    credentials = _aws_credentials(spec, "workload")
    stacks = [
        PlannedStack(
            eks,
            "eks",
            credentials,
            "EKS cluster" if spec.cluster.eks.create else "lookup of the existing EKS cluster",
            cluster=of,
        )
    ]
    cluster_after = [eks, access]
    if spec.cluster.installs_dependencies_chart:
        stacks.append(
            PlannedStack(
                deps, "hyperpod-dependencies", "EKS cluster", "HyperPod dependencies Helm chart", (eks,), cluster=of
            )
        )
        cluster_after.append(deps)
    stacks.append(
        PlannedStack(
            cluster,
            "cluster",
            credentials,
            "lookup of the existing HyperPod cluster, task governance"
            if spec.cluster.adopted
            else "HyperPod cluster, lifecycle scripts, task governance",
            tuple(sorted(cluster_after)),
            cluster=of,
        )
    )
    return _Chain(eks, cluster, stacks, of, qualifier)


def _team_stacks(
    spec: PlatformSpec, team: Team, chain: _Chain, access: str, *, home: str | None = None
) -> list[PlannedStack]:
    """A team's AWS and Kubernetes stacks on `chain`'s cluster: its home and its place there, or
    (`home`: the name of its home stack, on another cluster) its place there alone."""
    team_stack, kubernetes_stack = team_stack_names(
        spec.organization.name, team.name, placed_on=None if home is None else chain.of
    )
    after = (access, chain.cluster, chain.eks) if home is None else (access, chain.cluster, chain.eks, home)
    return [
        PlannedStack(
            team_stack,
            "team" if home is None else "team-placement",
            _aws_credentials(spec, "team"),
            "team domain, execution role, compute quota, EKS access entries, budget"
            if home is None
            else "team compute quota, EKS access entries, workload identity on the cluster",
            tuple(sorted(after)),
            team=team.name,
            cluster=chain.of,
        ),
        PlannedStack(
            kubernetes_stack,
            "team-kubernetes",
            "EKS cluster",
            "team RBAC",
            tuple(sorted((chain.eks, team_stack))),
            team=team.name,
            cluster=chain.of,
        ),
    ]


def _usage_stacks(spec: PlatformSpec, chain: _Chain) -> list[PlannedStack]:
    """The usage reports' stacks of `chain`'s cluster, where the spec asks for them."""
    if not spec.cost.usage_reports.enabled:
        return []
    org = spec.organization.name
    # The operator's Pod Identity needs the EKS cluster; the operator runs on HyperPod nodes
    # and reads task governance's queues, and writes to the bucket with the role of
    # <org>-usage-report.
    usage = naming.usage_report_stack_name(org, cluster=chain.qualifier)
    return [
        PlannedStack(
            usage,
            "usage-report",
            _aws_credentials(spec, "workload"),
            "usage report bucket, operator role, Athena database, daily aggregation",
            (chain.eks,),
            cluster=chain.of,
        ),
        PlannedStack(
            naming.usage_operator_stack_name(org, cluster=chain.qualifier),
            "usage-operator",
            "EKS cluster",
            "usage-report operator Helm chart",
            tuple(sorted((chain.cluster, chain.eks, usage))),
            cluster=chain.of,
        ),
    ]


def _cost_stack(spec: PlatformSpec) -> PlannedStack:
    return PlannedStack(
        naming.cost_stack_name(spec.organization.name),
        "cost",
        _aws_credentials(spec, "payer"),
        "cost allocation tags, cost category",
    )


def waves_of(names: list[str], needs: Mapping[str, Collection[str]]) -> list[list[str]]:
    """`names` in waves, each after the waves holding what it needs, in the order given within a
    wave; what `names` does not hold counts as in place already."""
    remaining = list(names)
    waves = []
    while remaining:
        waiting = set(remaining)
        wave = [name for name in remaining if waiting.isdisjoint(needs.get(name, ()))]
        if not wave:
            raise ValueError(f"dependency cycle among {remaining}")
        waves.append(wave)
        placed = set(wave)
        remaining = [name for name in remaining if name not in placed]
    return waves


def deploy_waves(stacks: list[PlannedStack]) -> list[list[PlannedStack]]:
    """The stacks in waves: each wave's stacks deploy in parallel once the earlier waves are done."""
    by_name = {s.name: s for s in stacks}
    return [
        [by_name[name] for name in wave] for wave in waves_of(list(by_name), {s.name: s.depends_on for s in stacks})
    ]
