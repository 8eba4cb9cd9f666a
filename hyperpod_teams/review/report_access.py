"""The report's access section: who gets in, with which role, through which IAM statements and
Kubernetes rights; the dashboards each team reads; each role's steps with hyp and Studio and what
allows them.

Pure layer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hyperpod_teams import addons, journeys, naming, policies, rbac
from hyperpod_teams.document import Document, Heading, Paragraph, Table, md_code, md_text
from hyperpod_teams.review.report_compute import what_a_team_runs
from hyperpod_teams.review.report_shown import hidden_note
from hyperpod_teams.spec.models import PlatformSpec, Team
from hyperpod_teams.stack_plan import identity_groups, identity_plugin


def _sid_phrase(sid: str) -> str:
    """`SeeTheTeamsStudio` -> `see the team's studio`."""
    words = re.findall(r"[A-Z][a-z]*|[a-z]+|\d+", sid)
    text = " ".join(w.lower() for w in words)
    return text.replace("teams", "team's").replace("eks", "EKS").replace("hyper pod", "HyperPod")


def _kubernetes_phrase(rules: tuple[rbac.Rule, ...]) -> str:
    writes = sorted({r for rule in rules if set(rule.verbs) - set(rbac.READ) for r in rule.resources})
    reads = sorted({r for rule in rules if not set(rule.verbs) - set(rbac.READ) for r in rule.resources})
    return f"change {', '.join(writes)}; read {', '.join(reads)}"


@dataclass(frozen=True)
class RoleAccess:
    """One row of the access matrix: the chain from IdP group to the team's places."""

    team: str
    role: str
    idp_group: str
    permission_set: str
    eks_principal: str
    kubernetes_group: str
    namespace: str
    domain: str | None
    aws_may: list[str]
    kubernetes_may: str


def access_matrix(spec: PlatformSpec) -> list[RoleAccess]:
    org = spec.organization
    groups = identity_groups(spec)
    rows = []
    for team in spec.teams:
        for role in naming.ROLES:
            permission_set = naming.team_permission_set_name(org.name, team, role)
            policy = policies.permission_set_policy_of(spec, team, role)
            rows.append(
                RoleAccess(
                    team=team.name,
                    role=role,
                    idp_group=groups.by_team_role[(team.name, role)],
                    permission_set=permission_set,
                    eks_principal=f"{naming.sso_role_name_prefix(permission_set)}…",
                    kubernetes_group=naming.team_kubernetes_group(team.name, role),
                    namespace=naming.team_namespace(team.name),
                    domain=(team.studio.existing_domain_id or naming.team_domain_name(org.name, team.name))
                    if team.studio.enabled
                    else None,
                    aws_may=[_sid_phrase(s["Sid"]) for s in policy["Statement"]],
                    kubernetes_may=_kubernetes_phrase(
                        rbac.role_rules(
                            role, inference=spec.cluster.inference is not None, spaces=spec.cluster.spaces is not None
                        )
                    ),
                )
            )
    return rows


def roles_header(roles: list[RoleAccess]) -> list[str]:
    return [role.role for role in roles]


def access_section(document: Document, spec: PlatformSpec, shown: list[Team], hidden: list[Team]) -> None:
    """Each team role's chain from the IdP group to the namespace."""
    document.add(Heading("Access, team by team"))
    document.add(
        Paragraph(
            "For each team role, the chain from top to bottom: the "
            + (
                "group the access stack creates in Identity Center"
                if identity_plugin(spec).creates_identity_center_groups
                else "IdP group, provisioned into Identity Center,"
            )
            + " gets the permission set; Identity Center's role for it (`AWSReservedSSO_<set>_<hash>`) has an EKS "
            "access entry mapping it to the Kubernetes group, which the team's RBAC binds in the team namespace only."
        )
    )
    by_team: dict[str, list[RoleAccess]] = {}
    for row in access_matrix(spec):
        by_team.setdefault(row.team, []).append(row)
    for team in shown:
        roles = by_team[team.name]
        title = f"{md_text(team.title)} ({md_code(team.name)})" if team.display_name else md_code(team.name)
        document.add(Heading(f"Team {title}", level=3))
        document.add(
            Table(
                ["", *roles_header(roles)],
                [
                    ["IdP group", *[md_code(r.idp_group) for r in roles]],
                    ["permission set", *[md_code(r.permission_set) for r in roles]],
                    ["EKS principal", *[md_code(r.eks_principal) for r in roles]],
                    ["Kubernetes group", *[md_code(r.kubernetes_group) for r in roles]],
                    ["namespace", *[md_code(r.namespace) for r in roles]],
                    ["SageMaker domain", *[md_code(r.domain) if r.domain else "none (studio off)" for r in roles]],
                    ["may, in AWS", *["; ".join(r.aws_may) for r in roles]],
                    ["may, in Kubernetes", *[r.kubernetes_may for r in roles]],
                ],
            )
        )
        document.add(Paragraph(f"Runs: {what_a_team_runs(spec, team)}." + _dashboards(spec)))
    if hidden:
        document.add(Paragraph(hidden_note(hidden, "chains")))


def _dashboards(spec: PlatformSpec) -> str:
    observability = spec.cluster.observability
    if observability is None:
        return ""
    grafana = observability.grafana and spec.organization.region in addons.GRAFANA_REGIONS
    where = "the Grafana workspace (viewer, from the access portal) and " if grafana else ""
    return f" Watches: {where}`hyp get-monitoring`, every team's series alike (docs/team-journeys.md)."


def journeys_section(document: Document, spec: PlatformSpec) -> None:
    org = spec.organization
    document.add(Heading("How a team member gets in"))
    document.add(
        Paragraph(
            f"The steps of each role's journeys (HyperPod CLI {journeys.HYP_RELEASE} and Studio), the calls "
            "they make and what allows them; every step is refused against another team's resources "
            "(docs/team-journeys.md)."
        )
    )
    document.add(
        Table(
            ["journey", "step", "calls", "allowed by"],
            [
                [
                    s.journey,
                    md_code(s.step) if s.journey == "hyp" else md_text(s.step),
                    ", ".join(md_code(c) for c in s.calls),
                    s.allowed_by,
                ]
                for s in journeys.steps_of(spec.cluster)
            ],
        )
    )
    platform_set = naming.platform_admins_permission_set_name(org.name)
    document.add(
        Paragraph(
            f"Platform admins: IdP group {md_code(identity_groups(spec).platform_admins)} → permission set "
            f"{md_code(platform_set)} → EKS access entry with `AmazonEKSClusterAdminPolicy` on the whole cluster."
        )
    )
