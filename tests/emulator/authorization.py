"""IAM enforced in the emulator for the team members' sessions: a request signed with the keys of an
assumed role is allowed only when the role's identity policies allow it, as IAM evaluates them
(tests/iam_evaluation.py). moto's own access control is off: it would refuse the deploy's
credentials, which belong to no IAM user; requests signed with them (the stacks' apply) are not
evaluated, as an administrator's would pass.

Which action, resource and context a request stands for is written out per operation, for the
operations the team journeys make (tests/emulator/journeys.py), from the Service Authorization
Reference (the resource type each action takes, its ARN format, the condition keys). A request of
an assumed role for any other operation is refused as not modelled and recorded, so a journey that
reaches an unmodelled call shows it instead of passing unchecked.
"""

from __future__ import annotations

import json
import os
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, unquote
from xml.sax.saxutils import escape

from tests.emulator.iam_actions import NO_PERMISSION, IamActions
from tests.iam_evaluation import allows

Json = dict[str, Any]

#: Operations whose IAM action has no resource type: `*` is their resource (Service Authorization
#: Reference, each service's "Actions defined by ...": no resource type listed).
UNSCOPED = {
    "sagemaker:ListClusters",
    "sagemaker:ListDomains",
    "sagemaker:ListSpaces",
    "sagemaker:ListApps",
    "sagemaker:ListUserProfiles",
    "eks:ListClusters",
    "ec2:DescribeSubnets",
    "ec2:DescribeSecurityGroups",
    "ec2:DescribeVpcs",
    "ec2:DescribeNetworkInterfaces",
    "ec2:DescribeAvailabilityZones",
    "ec2:DescribeInstanceTypes",
}
#: What needs no permission at all (STS user guide: "No permissions are required to perform this operation").
NO_PERMISSION_NEEDED = {"sts:GetCallerIdentity"}
#: The deploying pipeline's role (hyperpod_teams.naming.deploy_role_name).
DEPLOY_ROLE_PREFIX = "hyperpod-teams-deploy-"
#: HYPERPOD_TEAMS_EMULATOR_IAM_AUDIT=1: the pipeline's refusals are recorded but the requests
#: answered, so one run lists every permission the deploy policy lacks. Never set in CI.
AUDIT = os.environ.get("HYPERPOD_TEAMS_EMULATOR_IAM_AUDIT") == "1"


@dataclass
class Decision:
    principal: str  # the assumed-role ARN
    action: str
    resource: str
    allowed: bool
    modelled: bool = True

    def message(self) -> str:
        if not self.modelled:
            return f"the emulator does not model IAM for {self.action} (tests/emulator/authorization.py)"
        return (
            f"User: {self.principal} is not authorized to perform: {self.action} on resource: {self.resource} "
            f"because no identity-based policy allows the {self.action} action"
        )


class Authorization:
    """IAM for assumed-role sessions, over the emulator's state (moto's IAM and STS, the additions)."""

    def __init__(self, additions: Any) -> None:
        self.additions = additions
        #: Every evaluated request of a team member's assumed role, in order: what the journey tier reads.
        self.decisions: list[Decision] = []
        #: The deploying pipeline's requests (its role: naming.deploy_role_name), each evaluated:
        #: how many were allowed, and every refusal.
        self.deploy_allowed = 0
        self.deploy_refused: list[Decision] = []
        #: The account each deploy role's request was made in -> the services it called there.
        self.deploy_services: dict[str, set[str]] = {}
        self.iam_actions = IamActions(additions, additions.input_shapes)

    @property
    def account_id(self) -> str:
        """The account of the request being decided (Additions.account_id)."""
        return self.additions.account_id

    # --- who is asking ------------------------------------------------------------------------

    def assumed_role(self, access_key_id: str) -> Any:
        """The session of an access key: moto keeps it in the STS of the account that called
        AssumeRole, which for a role of another account is not the role's."""
        from moto.sts.models import sts_backends

        for backends in list(sts_backends.values()):
            for partition in backends.values():
                role = partition.get_assumed_role_from_access_key(access_key_id)
                if role is not None:
                    return role
        return None

    def role_policies(self, role_arn: str) -> list[Json]:
        """The role's identity policies: its inline policies and the managed ones attached."""
        iam = self.additions._moto("iam", "global", role_arn.split(":")[4])
        role = iam.get_role_by_arn(role_arn)
        documents = [json.loads(unquote(d)) if isinstance(d, str) else d for d in role.policies.values()]
        for policy in role.managed_policies.values():
            # A managed policy's document is its default version's (IAM: policy versions).
            (document,) = [version.document for version in policy.versions if version.is_default]
            documents.append(json.loads(unquote(document)) if isinstance(document, str) else document)
        return documents

    # --- what is asked ------------------------------------------------------------------------

    def requested(self, request: Any) -> tuple[str, str, Json] | list[tuple[str, str, Json]] | None:
        """(IAM action, resource ARN, request context) of a request (several when one request is
        authorized as more than one action), or None when not modelled."""
        context: Json = {"aws:RequestedRegion": request.region}
        if request.target.startswith("SageMaker."):
            return self._sagemaker_requested(request, context)
        form = parse_qs(request.body.decode()) if request.method == "POST" and not request.target else {}
        query_action = (form.get("Action") or request.query.get("Action") or [""])[0]
        if request.service == "sts" and query_action:
            role = (form.get("RoleArn") or request.query.get("RoleArn") or ["*"])[0]
            return f"sts:{query_action}", role if query_action == "AssumeRole" else "*", context
        if request.service == "iam" and query_action == "GetRole":
            iam = self.additions._moto("iam", "global")
            name = form["RoleName"][0]
            found = [r for r in iam.roles.values() if r.name == name]
            arn = found[0].arn if found else f"arn:aws:iam::{self.account_id}:role/{name}"
            return "iam:GetRole", arn, {}
        if request.service == "ec2" and query_action:
            action = f"ec2:{query_action}"
            return (action, "*", context) if action in UNSCOPED else None
        if request.service == "eks" and request.method == "GET":
            return self._eks_requested(request, context)
        if request.service == "s3":
            return self._s3_requested(request, context)
        return None

    def _s3_requested(self, request: Any, context: Json) -> list[tuple[str, str, Json]] | None:
        """S3 object and bucket requests (path-style, as the CLI sends them to an address), and the
        KMS calls S3 makes with the caller's permissions for a bucket encrypted with a KMS key by
        default (S3 user guide, "Using server-side encryption with AWS KMS keys": the requester
        needs kms:GenerateDataKey to write and kms:Decrypt to read)."""
        parts = request.path.lstrip("/").split("/", 1)
        bucket, key = parts[0], unquote(parts[1]) if len(parts) > 1 else ""
        if not bucket:
            return None
        s3 = "arn:aws:s3:::"
        if not key:
            if request.method == "GET" and not ({"versioning", "policy", "acl", "tagging"} & set(request.query)):
                return [("s3:ListBucket", f"{s3}{bucket}", context)]
            if request.method == "GET" and "location" in request.query:
                return [("s3:GetBucketLocation", f"{s3}{bucket}", context)]
            return None
        action = {"PUT": "s3:PutObject", "GET": "s3:GetObject", "HEAD": "s3:GetObject", "DELETE": "s3:DeleteObject"}
        if request.method not in action or set(request.query) - {"versionId", "partNumber", "x-id"}:
            return None
        asked = [(action[request.method], f"{s3}{bucket}/{key}", context)]
        bucket_key = self._bucket_key(bucket)
        if bucket_key is not None and request.method in ("PUT", "GET"):
            key_arn, tags = bucket_key
            kms_action = "kms:GenerateDataKey" if request.method == "PUT" else "kms:Decrypt"
            via = {"kms:ViaService": f"s3.{request.region}.amazonaws.com"}
            asked.append((kms_action, key_arn, {**context, **via, **_resource_tags(tags)}))
        return asked

    def _bucket_key(self, bucket: str) -> tuple[str, dict] | None:
        """The ARN and tags of the KMS key a bucket encrypts new objects with by default, if any."""
        s3 = self.additions._moto("s3", "aws")
        found = s3.buckets.get(bucket)
        rule = ((found.encryption or {}) if found is not None else {}).get("Rule") or {}
        rule = rule[0] if isinstance(rule, list) else rule
        default = rule.get("ApplyServerSideEncryptionByDefault") or {}
        if default.get("SSEAlgorithm") != "aws:kms" or not default.get("KMSMasterKeyID"):
            return None
        kms = self.additions._moto("kms", found.region_name)
        key_id = kms.any_id_to_key_id(default["KMSMasterKeyID"])
        return kms.keys[key_id].arn, kms.tagger.get_tag_dict_for_resource(key_id)

    def _sagemaker_requested(
        self, request: Any, context: Json
    ) -> tuple[str, str, Json] | list[tuple[str, str, Json]] | None:
        operation = request.target.split(".", 1)[1]
        action = f"sagemaker:{operation}"
        body = request.json() if request.body else {}
        if action in UNSCOPED:
            return action, "*", context
        sagemaker = f"arn:aws:sagemaker:{request.region}:{self.account_id}"
        if operation in ("DescribeCluster", "ListClusterNodes", "DescribeClusterNode"):
            arn, tags = self._cluster(body["ClusterName"])
            return action, arn, {**context, **_resource_tags(tags)}
        if operation == "DescribeDomain":
            arn = f"{sagemaker}:domain/{body['DomainId']}"
            return action, arn, {**context, **_resource_tags(self.additions.tags.get(arn, {}))}
        if operation in ("CreateSpace", "DescribeSpace"):
            arn = f"{sagemaker}:space/{body['DomainId']}/{body['SpaceName']}"
        elif operation in ("CreateApp", "DescribeApp"):
            owner = body.get("SpaceName") or body.get("UserProfileName")
            arn = f"{sagemaker}:app/{body['DomainId']}/{owner}/{body['AppType'].lower()}/{body['AppName']}"
        else:
            return None
        if operation.startswith("Describe"):
            return action, arn, {**context, **_resource_tags(self.additions.tags.get(arn, {}))}
        # A create with tags: the request's tags are its context, and tagging while creating is
        # authorized as sagemaker:AddTags too (SageMaker developer guide, "Provide permissions for
        # tagging SageMaker AI resources"; condition key sagemaker:TaggingAction).
        tags = body.get("Tags", [])
        creating = {
            **context,
            **{f"aws:RequestTag/{t['Key']}": t["Value"] for t in tags},
            "aws:TagKeys": [t["Key"] for t in tags],
        }
        asked = [(action, arn, creating)]
        if tags:
            asked.append(("sagemaker:AddTags", arn, {**creating, "sagemaker:TaggingAction": operation}))
        return asked

    def _eks_requested(self, request: Any, context: Json) -> tuple[str, str, Json] | None:
        parts = [unquote(p) for p in request.path.strip("/").split("/")]
        eks = f"arn:aws:eks:{request.region}:{self.account_id}"
        if parts == ["clusters"]:
            return "eks:ListClusters", "*", context
        if len(parts) == 2 and parts[0] == "clusters":
            return "eks:DescribeCluster", f"{eks}:cluster/{parts[1]}", context
        if len(parts) == 4 and parts[2] == "access-entries":
            entry = self.additions.eks.access_entries.get((parts[1], parts[3]))
            arn = entry["accessEntryArn"] if entry else _access_entry_arn(eks, parts[1], parts[3])
            return "eks:DescribeAccessEntry", arn, context
        if len(parts) == 4 and parts[2] == "addons":
            addon = self.additions.eks.addons.get((parts[1], parts[3]))
            arn = addon["addonArn"] if addon else f"{eks}:addon/{parts[1]}/{parts[3]}/{uuid.uuid4()}"
            return "eks:DescribeAddon", arn, context
        return None

    def _cluster(self, name_or_arn: str) -> tuple[str, list[Json]]:
        """The cluster's ARN and tags; for a cluster that does not exist, an ARN IAM would evaluate."""
        found = self.additions.hyperpod_cluster(name_or_arn)
        if found is None:
            return f"arn:aws:sagemaker:::cluster/{name_or_arn}", []
        arn, model = found
        return arn, model.get("Tags", [])

    # --- the decision -------------------------------------------------------------------------

    def check(self, request: Any, access_key_id: str | None) -> Decision | None:
        """None when the request is not an assumed role's (not evaluated); else the decision."""
        session = self.assumed_role(access_key_id) if access_key_id else None
        if session is None:
            return None
        if session.role_arn.rsplit("/", 1)[-1].startswith(DEPLOY_ROLE_PREFIX):
            return self._check_pipeline(session, request)
        asked = self.requested(request)
        if asked is None:
            name = request.target or f"{request.service} {request.method} {request.path}"
            decision = Decision(session.arn, name, "", allowed=False, modelled=False)
            self.decisions.append(decision)
            return decision
        checked: Decision | None = None
        for action, resource, context in asked if isinstance(asked, list) else [asked]:
            allowed = action in NO_PERMISSION_NEEDED or allows(
                self.role_policies(session.role_arn), action, resource, context
            )
            checked = Decision(session.arn, action, resource, allowed=allowed)
            self.decisions.append(checked)
            if not allowed:
                break
        return checked

    def _check_pipeline(self, session: Any, request: Any) -> Decision:
        """Every request of the deploying pipeline, mapped to its IAM actions by iam_actions.py
        and evaluated against the role's policies; one that no model knows is refused."""
        self.deploy_services.setdefault(self.account_id, set()).add(request.service)
        asked = self.iam_actions.requested(request)
        if asked is None:
            name = request.target or f"{request.service} {request.method} {request.path}"
            decision = Decision(session.arn, name, "", allowed=False, modelled=False)
            self.deploy_refused.append(decision)
            return decision
        policies = self.role_policies(session.role_arn)
        decision = Decision(session.arn, "", "", allowed=True)
        for action, resource, context in asked:
            allowed = action in NO_PERMISSION or allows(policies, action, resource, context)
            decision = Decision(session.arn, action, resource, allowed=allowed)
            if not allowed:
                self.deploy_refused.append(decision)
                if AUDIT:  # a developer's run that lists every refusal at once (docs/testing.md)
                    return Decision(session.arn, action, resource, allowed=True)
                return decision
        self.deploy_allowed += 1
        return decision


def _resource_tags(tags: Any) -> Json:
    pairs = tags.items() if isinstance(tags, dict) else ((t["Key"], t["Value"]) for t in tags)
    return {f"aws:ResourceTag/{key}": value for key, value in pairs}


def _access_entry_arn(eks: str, cluster: str, principal: str) -> str:
    """The ARN IAM evaluates DescribeAccessEntry on for a principal without an entry (Service
    Authorization Reference, Amazon EKS, resource type access-entry; any ID)."""
    account, rest = principal.split(":")[4], principal.split(":", 5)[5]
    kind, name = rest.split("/")[0], rest.split("/")[-1]
    return f"{eks}:access-entry/{cluster}/{kind}/{account}/{name}/{uuid.uuid4().hex[:24]}"


def denial(request: Any, decision: Decision) -> tuple[int, dict[str, str], bytes]:
    """The refusal in the protocol of the service asked (status, headers, body), as AWS answers it."""
    message = decision.message()
    request_id = str(uuid.uuid4())
    if request.service in ("iam", "sts", "ec2", "cloudformation"):
        code = "UnauthorizedOperation" if request.service == "ec2" else "AccessDenied"
        if request.service == "ec2":
            xml = (
                f"<Response><Errors><Error><Code>{code}</Code><Message>{escape(message)}</Message></Error></Errors>"
                f"<RequestID>{request_id}</RequestID></Response>"
            )
        else:
            xml = (
                f"<ErrorResponse><Error><Type>Sender</Type><Code>{code}</Code><Message>{escape(message)}</Message>"
                f"</Error><RequestId>{request_id}</RequestId></ErrorResponse>"
            )
        return 403, {"Content-Type": "text/xml"}, xml.encode()
    if request.service == "s3":
        xml = (
            f'<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>{escape(message)}'
            f"</Message><RequestId>{request_id}</RequestId></Error>"
        )
        return 403, {"Content-Type": "application/xml"}, xml.encode()
    body = json.dumps({"__type": "AccessDeniedException", "message": message}).encode()
    headers = {"Content-Type": "application/x-amz-json-1.1", "X-Amzn-ErrorType": "AccessDeniedException"}
    return (403 if request.service == "eks" else 400), headers, body
