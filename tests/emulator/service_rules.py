"""What AWS checks of a request beyond its input shape (input_shapes.py), for every request
whoever answers it: policy documents and their sizes, reserved tag keys and tag counts. The
additions' handlers check what depends on their own state (existence, uniqueness, dependents).
Each rule names its source; each refusal has AWS's error code and, where AWS's words are
published or quoted, its words.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tests.emulator.input_shapes import VALIDATION_ERRORS, Incoming, Reading, Refusal

#: IAM quotas (IAM user guide, "IAM and AWS STS quotas": characters, white space not counted).
MANAGED_POLICY_SIZE = 6144  # "Managed policy size"
ROLE_INLINE_POLICIES_SIZE = 10240  # "Role policy size" (all inline policies of a role)
TRUST_POLICY_SIZE = 2048  # "Role trust policy length" (default; raisable to 4096)
#: Tags per resource (Tagging AWS resources, "Tag naming limits and requirements": 50), and the
#: reserved prefix ("The aws: prefix is reserved for AWS use ... You can't edit or delete tag keys
#: or values with this prefix").
TAGS_PER_RESOURCE = 50
RESERVED_TAG_PREFIX = "aws:"
#: Request members that carry a resource's tags, as the models name them.
TAG_MEMBERS = ("Tags", "tags", "ResourceTags")


def _size(document: str) -> int:
    return len(re.sub(r"\s", "", document))


class ServiceRules:
    def __init__(self, additions: Any) -> None:
        self.additions = additions

    def check(self, request: Incoming, reading: Reading) -> Refusal | None:
        """The refusal of a request that fits its input shape (input_shapes.read), or None."""
        params = reading.params
        if not isinstance(params, dict):
            return None
        rule = RULES.get(f"{request.service}:{reading.operation.name}")
        return (rule(self, params) if rule else None) or self._tags(request, params)

    # --- tags ---------------------------------------------------------------------------------

    def _tags(self, request: Incoming, params: dict) -> Refusal | None:
        for member in TAG_MEMBERS:
            tags = params.get(member)
            if isinstance(tags, list):
                keys = [t.get("Key") or t.get("key") for t in tags if isinstance(t, dict)]
            elif isinstance(tags, dict):
                keys = list(tags)
            else:
                continue
            error = VALIDATION_ERRORS.get(request.service, "ValidationException")
            reserved = [k for k in keys if isinstance(k, str) and k.lower().startswith(RESERVED_TAG_PREFIX)]
            if reserved:
                return Refusal(error, f"Tag keys starting with 'aws:' are reserved for AWS use: {', '.join(reserved)}")
            if len(keys) > TAGS_PER_RESOURCE:
                return Refusal(error, f"The number of tags ({len(keys)}) exceeds the limit of {TAGS_PER_RESOURCE}")
        return None

    # --- IAM ----------------------------------------------------------------------------------

    def _iam_policy(self, document: str | None, *, trust: bool = False) -> Refusal | None:
        """IAM's checks of a policy document, with moto's validator of IAM's grammar (Version,
        Statement, Effect, Action/NotAction, Resource, Condition; IAM user guide, "IAM JSON policy
        grammar"): MalformedPolicyDocument with its message, e.g. "Syntax errors in policy."."""
        from moto.iam.exceptions import MalformedPolicyDocument
        from moto.iam.policy_validation import IAMPolicyDocumentValidator, IAMTrustPolicyDocumentValidator

        if document is None:
            return None
        validator = IAMTrustPolicyDocumentValidator if trust else IAMPolicyDocumentValidator
        try:
            validator(document).validate()
        except MalformedPolicyDocument as error:
            return Refusal("MalformedPolicyDocument", error.message or "Syntax errors in policy.")
        return None

    def iam_create_policy(self, params: dict) -> Refusal | None:
        document = params.get("PolicyDocument")
        if document is not None and _size(document) > MANAGED_POLICY_SIZE:
            return Refusal("LimitExceeded", f"Cannot exceed quota for PolicySize: {MANAGED_POLICY_SIZE}", 409)
        return self._iam_policy(document)

    def iam_put_role_policy(self, params: dict) -> Refusal | None:
        document = params.get("PolicyDocument")
        refused = self._iam_policy(document)
        if refused or document is None:
            return refused
        iam = self.additions._moto("iam", "global")
        role = next((r for r in iam.roles.values() if r.name == params.get("RoleName")), None)
        others = {} if role is None else {k: v for k, v in role.policies.items() if k != params.get("PolicyName")}
        total = _size(document) + sum(_size(v if isinstance(v, str) else json.dumps(v)) for v in others.values())
        if total > ROLE_INLINE_POLICIES_SIZE:
            return Refusal(
                "LimitExceeded",
                f"Maximum policy size of {ROLE_INLINE_POLICIES_SIZE} bytes exceeded for role {params.get('RoleName')}",
                409,
            )
        return None

    def iam_trust_policy(self, params: dict) -> Refusal | None:
        document = params.get("AssumeRolePolicyDocument") or params.get("PolicyDocument")
        if document is not None and _size(document) > TRUST_POLICY_SIZE:
            return Refusal("LimitExceeded", f"Cannot exceed quota for ACLSizePerRole: {TRUST_POLICY_SIZE}", 409)
        return self._iam_policy(document, trust=True)

    # --- IAM Identity Center ------------------------------------------------------------------

    def sso_inline_policy(self, params: dict) -> Refusal | None:
        """PutInlinePolicyToPermissionSet: the policy is an IAM policy (IAM Identity Center API
        reference: "The inline policy to attach to a PermissionSet"); Identity Center refuses one
        IAM would refuse, with ValidationException."""
        refused = self._iam_policy(params.get("InlinePolicy"))
        return Refusal("ValidationException", f"The inline policy is not valid: {refused.message}") if refused else None


RULES = {
    "iam:CreatePolicy": ServiceRules.iam_create_policy,
    "iam:CreatePolicyVersion": ServiceRules.iam_create_policy,
    "iam:PutRolePolicy": ServiceRules.iam_put_role_policy,
    "iam:CreateRole": ServiceRules.iam_trust_policy,
    "iam:UpdateAssumeRolePolicy": ServiceRules.iam_trust_policy,
    "sso:PutInlinePolicyToPermissionSet": ServiceRules.sso_inline_policy,
}
