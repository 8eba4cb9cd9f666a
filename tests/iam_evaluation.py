"""A small evaluator of IAM identity policies, for the grants the stacks write: does a policy
allow an action on a resource, in a request context?

It follows IAM's policy evaluation logic as the IAM User Guide states it for identity-based
policies: an explicit Deny wins, else an Allow whose Action, Resource and every Condition match,
else the implicit deny. Action and Resource patterns use `*` (any run of characters, `/` and `:`
included) and `?` (one character); actions match case-insensitively. Condition operators: the
ones the stacks use (StringEquals, StringLike, ArnEquals, ArnLike, their ForAnyValue: and ForAllValues:
forms, and Null); a key the
request context does not have fails its condition, as IAM's does, but under `...IfExists`. Any other
operator fails, so nothing is allowed by an operator this evaluator does not know.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping


def _pattern(text: str, *, ignore_case: bool = False) -> re.Pattern:
    regex = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in text)
    return re.compile(f"^{regex}$", (re.IGNORECASE if ignore_case else 0) | re.DOTALL)


def _listed(value) -> list:
    return value if isinstance(value, list) else [value]


def _matches_any(patterns: Iterable[str], value: str, *, ignore_case: bool = False) -> bool:
    return any(_pattern(p, ignore_case=ignore_case).match(value) for p in patterns)


def _condition_holds(operator: str, key: str, expected, context: Mapping[str, object]) -> bool:
    set_operator, _, base = operator.rpartition(":")
    if base == "Null":
        # IAM User Guide, "Condition operator to check existence of condition keys": "true" holds
        # when the key is absent from the request, "false" when it is present.
        return (key not in context) == (str(expected).lower() == "true")
    if base.endswith("IfExists"):
        # "...IfExists": holds when the request has no such key, else as the operator without it.
        if key not in context:
            return True
        base = base.removesuffix("IfExists")
    if key not in context:
        return False
    given = _listed(context[key])
    expected = [str(e) for e in _listed(expected)]
    if base in ("StringEquals", "ArnEquals"):
        test = lambda value: str(value) in expected  # noqa: E731
    elif base in ("StringLike", "ArnLike"):
        test = lambda value: _matches_any(expected, str(value))  # noqa: E731
    else:
        return False
    if set_operator == "ForAnyValue":
        return any(test(value) for value in given)
    if set_operator == "ForAllValues":
        return all(test(value) for value in given)
    return len(given) == 1 and test(given[0])


def _statement_matches(statement: dict, action: str, resource: str, context: Mapping[str, object]) -> bool:
    if "NotAction" in statement or "NotResource" in statement:
        return False  # not written by the stacks; never read as an allow
    if not _matches_any(_listed(statement["Action"]), action, ignore_case=True):
        return False
    if not _matches_any(_listed(statement["Resource"]), resource):
        return False
    return all(
        _condition_holds(operator, key, expected, context)
        for operator, keys in statement.get("Condition", {}).items()
        for key, expected in keys.items()
    )


def allows(policies: Iterable[dict], action: str, resource: str, context: Mapping[str, object] | None = None) -> bool:
    """Whether the policies, together, allow `action` on `resource` in `context`."""
    context = context or {}
    statements = [s for policy in policies for s in policy["Statement"]]
    if any(s["Effect"] == "Deny" and _statement_matches(s, action, resource, context) for s in statements):
        return False
    return any(s["Effect"] == "Allow" and _statement_matches(s, action, resource, context) for s in statements)


def _principal_matches(named: Mapping[str, object], caller: Mapping[str, str]) -> bool:
    """Whether a statement's Principal names the caller (`caller`: {"Service": ...} or {"AWS": the
    caller's role ARN}). IAM User Guide, "AWS JSON policy elements: Principal": an account's root
    ARN (or its ID) names the account, whose own policies then decide which of its principals may
    ask; a role's ARN names that role."""
    for kind, value in caller.items():
        for principal in _listed(named.get(kind, [])):
            if kind == "Service" and principal == value:
                return True
            if kind == "AWS":
                account = value.split(":")[4]
                if principal in (value, account, f"arn:{value.split(':')[1]}:iam::{account}:root"):
                    return True
    return False


def trusts(
    trust_policy: dict, caller: Mapping[str, str], action: str, context: Mapping[str, object] | None = None
) -> bool:
    """Whether a role's trust policy lets `caller` (a service, or a role of an account) do `action`
    (sts:AssumeRole, sts:TagSession) on the role in `context` (the caller's aws:PrincipalArn is
    added for an AWS principal, as IAM sets it)."""
    context = dict(context or {})
    if "AWS" in caller:
        context.setdefault("aws:PrincipalArn", caller["AWS"])
    statements = [
        {**s, "Resource": "*"} for s in trust_policy["Statement"] if _principal_matches(s.get("Principal", {}), caller)
    ]
    return allows([{"Statement": statements}], action, "role", context)
