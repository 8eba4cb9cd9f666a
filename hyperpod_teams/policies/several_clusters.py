"""One policy over several clusters (#61): a permission set is one, and Identity Center provisions
it into every account it is assigned in, so its policy grants on every cluster it serves. Each
cluster's view (spec.clusters.SeveralClusters.views) gives the one-cluster policy of that cluster;
the statements of the same Sid and actions join where they are one grant, and the others follow
with the cluster's name in their Sid.

Pure layer: no cdktf.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import count
from typing import TYPE_CHECKING

from hyperpod_teams import naming
from hyperpod_teams.policies.platform_admins import platform_admins_permission_set_policy
from hyperpod_teams.policies.team_roles import permission_set_policy_of

if TYPE_CHECKING:  # pragma: no cover
    from hyperpod_teams.spec.models import PlatformSpec

#: The statements of a team role's policy that belong to its home (its Studio domain, its images,
#: its budget), not to a cluster it is placed on.
HOME_SIDS = frozenset({"SeeTheTeamsStudio", "SignInToTheRegistry", "ReadTheTeamsImages", "SeeTheTeamsBudget"})

#: IAM Identity Center quotas (docs.aws.amazon.com/singlesignon/latest/userguide/limits.html):
#: "Maximum size of non-whitespace characters in the inline policy per permission set is 10,240
#: bytes" (32,768 bytes in all: botocore's sso-admin model, PermissionSetPolicyDocument).
PERMISSION_SET_POLICY_MAX = 10_240

#: Condition operators under which a key's values are alternatives: one statement with the values
#: of two is the two statements (IAM User Guide, "Creating a condition with multiple keys or values").
ALTERNATIVE_VALUES = ("StringEquals", "StringLike", "ArnEquals", "ArnLike")


def several_clusters_permission_set_policy(views: Mapping[str, PlatformSpec], home: str, team: str, role: str) -> dict:
    """The inline policy of a team role's permission set, `views` the one-cluster views of the
    clusters and `home` the team's home cluster: its home cluster's (`permission_set_policy_of`),
    and from each other cluster's view that holds the team, what it grants there besides the
    home's statements (HOME_SIDS): its quota, the HyperPod and EKS clusters, hyp's reads, its
    endpoints and container logs."""
    policy = permission_set_policy_of(views[home], views[home].team(team), role)
    others = {
        cluster: [
            s for s in permission_set_policy_of(view, view.team(team), role)["Statement"] if s["Sid"] not in HOME_SIDS
        ]
        for cluster, view in views.items()
        if cluster != home and any(t.name == team for t in view.teams)
    }
    return joined(policy, others)


def several_clusters_platform_admins_policy(views: Mapping[str, PlatformSpec]) -> dict:
    """The inline policy of the platform admins' permission set: each cluster's
    (`platform_admins_permission_set_policy` of its view), joined."""
    policies = {
        cluster: platform_admins_permission_set_policy(
            org=view.organization.name,
            account_id=view.organization.account_id,
            region=view.organization.region,
            eks_cluster_name=naming.shared_eks_cluster_name(view.cluster),
        )
        for cluster, view in views.items()
    }
    first, *rest = policies
    return joined(policies[first], {cluster: policies[cluster]["Statement"] for cluster in rest})


def joined(policy: dict, others: Mapping[str, Iterable[dict]]) -> dict:
    """`policy` with the statements of other clusters (cluster -> statements) joined in: a
    statement of the same Sid and actions as one held joins it where the two are one grant (the
    same conditions: the resources of both; the same resources: the values of the one condition key
    they differ in); otherwise it follows as a statement of its own, its Sid ending with the
    cluster's name (`...OnInfer`)."""
    statements: list[dict] = [dict(s) for s in policy["Statement"]]
    for cluster, added in others.items():
        for statement in added:
            _add_statement(statements, statement, cluster)
    return {**policy, "Statement": statements}


def _add_statement(statements: list[dict], statement: dict, cluster: str) -> None:
    for held in statements:
        if (
            held["Sid"] != statement["Sid"]
            or held.get("Action") != statement.get("Action")
            or held["Effect"] != statement["Effect"]
            or "Resource" not in held
            or "Resource" not in statement
        ):
            continue
        if held.get("Condition") == statement.get("Condition"):
            if held["Resource"] != statement["Resource"]:  # "*" and "*": the same grant already
                resources = _listed(held["Resource"])
                held["Resource"] = [*resources, *(r for r in _listed(statement["Resource"]) if r not in resources)]
            return
        condition = _one_condition(held.get("Condition"), statement.get("Condition"))
        if held["Resource"] == statement["Resource"] and condition is not None:
            held["Condition"] = condition
            return
    # A Sid is letters and digits, and IAM refuses two statements of one Sid: the cluster's name
    # capitalized part by part, numbered where two names give one (`gpu-1` and `gpu1`: OnGpu1, OnGpu12).
    sid = f"{statement['Sid']}On{''.join(part.capitalize() for part in cluster.split('-'))}"
    taken = {held["Sid"] for held in statements}
    unique = next(f"{sid}{n}" if n > 1 else sid for n in count(1) if (f"{sid}{n}" if n > 1 else sid) not in taken)
    statements.append({**statement, "Sid": unique})


def _one_condition(first: dict | None, second: dict | None) -> dict | None:
    """The two conditions as one, where they differ only in the values of one key under an
    operator of alternatives (ALTERNATIVE_VALUES); None where they cannot be one."""
    if not first or not second or first.keys() != second.keys():
        return None
    differing = [
        (operator, key)
        for operator in first
        for key in first[operator].keys() | second[operator].keys()
        if first[operator].get(key) != second[operator].get(key)
    ]
    if len(differing) != 1:
        return None
    operator, key = differing[0]
    if operator not in ALTERNATIVE_VALUES or key not in first[operator] or key not in second[operator]:
        return None
    values = [*_listed(first[operator][key]), *_listed(second[operator][key])]
    return {**first, operator: {**first[operator], key: list(dict.fromkeys(values))}}


def _listed(value: object) -> list:
    return value if isinstance(value, list) else [value]
