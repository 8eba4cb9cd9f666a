"""`<org>-access`: IAM Identity Center groups, permission sets and account assignments (Identity
Center account).

It is the one place that resolves the IdP groups, as provisioned into Identity Center, to their
group IDs (or creates them there, for a plugin that asks); team stacks receive the IDs by
cross-stack reference.
"""

from __future__ import annotations

from collections.abc import Iterable

from constructs import Construct

from hyperpod_teams import naming, policies
from hyperpod_teams.constructs.identity_center import IdentityCenterGroup, PermissionSet
from hyperpod_teams.engine import cdk
from hyperpod_teams.plugins import PLATFORM_ADMINS_KEY, IdentityBuild, group_key_id
from hyperpod_teams.policies.several_clusters import (
    several_clusters_permission_set_policy,
    several_clusters_platform_admins_policy,
)
from hyperpod_teams.spec.clusters import SeveralClusters
from hyperpod_teams.spec.models import PlatformSpec, Team
from hyperpod_teams.stacks.base import PlatformStack


class AccessStack(PlatformStack):
    def __init__(
        self,
        scope: Construct,
        stack_name: str,
        *,
        spec: PlatformSpec,
        groups: IdentityBuild,
        create_groups: bool = False,
        existing_groups: frozenset[tuple[str, str]] = frozenset(),
        clusters: SeveralClusters | None = None,
    ) -> None:
        """`create_groups`: create the groups in Identity Center instead of looking them up,
        except `existing_groups` (the spec names groups that exist already). `clusters`: the spec of
        several clusters `spec` is the organization's view of (SeveralClusters.organization_view):
        each permission set then grants on every cluster it serves (policies/several_clusters.py)
        and is assigned in every account of them."""
        super().__init__(scope, stack_name, spec=spec)
        self.add_aws_provider(tags=self.organization_tags(), account=spec.organization.identity_center_account)
        org = spec.organization
        store = spec.identity.identity_center.identity_store_id
        eks_cluster_name = naming.shared_eks_cluster_name(spec.cluster)
        #: (team, role), or PLATFORM_ADMINS_KEY -> Identity Center group ID of that group.
        self.group_ids: dict[tuple[str, str], str] = {}
        #: Same keys -> the permission set of that group.
        self.permission_sets: dict[tuple[str, str], PermissionSet] = {}
        teams: dict[str, Team] = {team.name: team for team in spec.teams}
        for key, display_name in groups.all_display_names().items():
            team_name, role = key
            if key == PLATFORM_ADMINS_KEY:
                purpose = "Platform admins of the shared HyperPod cluster"
                tags = self.organization_tags()
                permission_set_name = naming.platform_admins_permission_set_name(org.name)
                policy = policies.platform_admins_permission_set_policy(
                    org=org.name, account_id=org.account_id, region=org.region, eks_cluster_name=eks_cluster_name
                )
                accounts = []
                if clusters:
                    policy = several_clusters_platform_admins_policy(clusters.views)
                    accounts = _accounts(clusters.views.values(), first=org.account_id)
            else:
                team = teams[team_name]
                purpose = f"The {role} of team {team.name}"
                tags = naming.team_resource_tags(org, team)
                permission_set_name = naming.team_permission_set_name(org.name, team, role)
                policy = policies.permission_set_policy_of(spec, team, role)
                accounts = []
                if clusters:
                    home = clusters.home(team.name)
                    policy = several_clusters_permission_set_policy(clusters.views, home, team.name, role)
                    accounts = _accounts(
                        (clusters.views[name] for name in clusters.placements(team.name)),
                        first=clusters.views[home].organization.account_id,
                    )
            group = IdentityCenterGroup(
                self,
                f"group-{group_key_id(key)}",
                identity_store_id=store,
                display_name=display_name,
                create=create_groups and key not in existing_groups,
                description=f"{purpose} (hyperpod-teams)",
            )
            self.group_ids[key] = group.group_id
            self.permission_sets[key] = PermissionSet(
                self,
                f"permission-set-{group_key_id(key)}",
                spec=spec,
                name=permission_set_name,
                description=f"{purpose} (hyperpod-teams, {org.name})",
                policy=policy,
                group_id=group.group_id,
                tags=tags,
                existing=None if key == PLATFORM_ADMINS_KEY else teams[team_name].existing_permission_set(role),
                accounts=accounts,
            )
        # Which identity provider the groups came from: a plan that changes it is a switch of the
        # identity source on a running platform, which the plan review alerts on (plan_summary).
        cdk.TerraformOutput(
            self,
            naming.IDENTITY_PROVIDER_OUTPUT,
            value=spec.identity.provider,
            description="The identity provider the groups come from (a change is an identity-source switch)",
        )


def _accounts(views: Iterable[PlatformSpec], *, first: str) -> list[str]:
    """The accounts of the clusters `views` are the views of, each once, `first` first where it is
    one (its assignment keeps the address a one-cluster spec gave it: a spec that grew moves none)."""
    accounts = list(dict.fromkeys(view.organization.account_id for view in views))
    return sorted(accounts, key=lambda account: account != first)
