"""Which IAM action and resource each request stands for, for any operation botocore's models
know: the action is `<service prefix>:<operation>` (Service Authorization Reference: each service's
"Actions defined by ..." table), except where the reference names it otherwise (S3's bucket
configuration actions, Budgets' ModifyBudget/ViewBudget, the Cloud Control API's `cloudformation:`
prefix), and the resource the ARN the request names where the reference gives the action a
resource type the request identifies (IAM roles and policies, S3 buckets and objects, KMS keys and
aliases, SSM parameters, EKS clusters, access entries, add-ons and pod identity associations,
budgets); `*` elsewhere. A request that passes a role (iam:PassRole: a HyperPod instance group's
execution role through Cloud Control, a domain's, the EKS cluster's, a pod identity association's)
is authorized as that too, with `iam:PassedToService`.

Used by authorization.py for every request of an assumed-role session the journeys' own
mapping does not cover: the deploying pipeline's role above all.
"""

from __future__ import annotations

import json
from typing import Any

from tests.emulator.input_shapes import Incoming, InputShapes

Json = dict[str, Any]

#: The EC2 operations on security groups the stacks make (the teams' Studio groups), modelled with
#: their resources; other EC2 operations are authorized on `*` (their describes have no resource type).
EC2_SECURITY_GROUP_OPERATIONS = {
    "CreateSecurityGroup",
    "DeleteSecurityGroup",
    "AuthorizeSecurityGroupEgress",
    "AuthorizeSecurityGroupIngress",
    "RevokeSecurityGroupEgress",
    "RevokeSecurityGroupIngress",
    "ModifySecurityGroupRules",
    "UpdateSecurityGroupRuleDescriptionsEgress",
    "UpdateSecurityGroupRuleDescriptionsIngress",
    "CreateTags",
    "DeleteTags",
}
#: Service prefix in IAM by signing name, where they differ.
PREFIXES = {"cloudcontrolapi": "cloudformation", "sso": "sso", "identitystore": "identitystore"}
#: S3 operations whose IAM action has another name (Service Authorization Reference, Amazon S3).
S3_ACTIONS = {
    "HeadBucket": "ListBucket",
    "ListObjects": "ListBucket",
    "ListObjectsV2": "ListBucket",
    "ListObjectVersions": "ListBucketVersions",
    "HeadObject": "GetObject",
    "GetBucketEncryption": "GetEncryptionConfiguration",
    "PutBucketEncryption": "PutEncryptionConfiguration",
    "DeleteBucketEncryption": "PutEncryptionConfiguration",
    "GetBucketLifecycleConfiguration": "GetLifecycleConfiguration",
    "PutBucketLifecycleConfiguration": "PutLifecycleConfiguration",
    "DeleteBucketLifecycle": "PutLifecycleConfiguration",
    "GetPublicAccessBlock": "GetBucketPublicAccessBlock",
    "PutPublicAccessBlock": "PutBucketPublicAccessBlock",
    "DeletePublicAccessBlock": "PutBucketPublicAccessBlock",
    "GetBucketReplication": "GetReplicationConfiguration",
    "GetBucketAccelerateConfiguration": "GetAccelerateConfiguration",
    "GetBucketCors": "GetBucketCORS",
    "GetObjectLockConfiguration": "GetBucketObjectLockConfiguration",
    "DeleteObjects": "DeleteObject",
    "CopyObject": "PutObject",
    "GetBucketOwnershipControls": "GetBucketOwnershipControls",
    "DeleteBucketOwnershipControls": "PutBucketOwnershipControls",
    "DeleteBucketTagging": "PutBucketTagging",
}
#: Budgets: every change is budgets:ModifyBudget, every read budgets:ViewBudget (AWS Budgets user
#: guide, "Actions for AWS Budgets").
BUDGETS_READS = ("Describe",)
#: Operations that need no permission (STS: GetCallerIdentity).
NO_PERMISSION = {"sts:GetCallerIdentity"}


def action_name(signing_name: str, operation: str) -> str:
    prefix = PREFIXES.get(signing_name, signing_name)
    if signing_name == "s3":
        return f"s3:{S3_ACTIONS.get(operation, operation)}"
    if signing_name == "budgets" and "Tag" not in operation:
        return "budgets:ViewBudget" if operation.startswith(BUDGETS_READS) else "budgets:ModifyBudget"
    if signing_name == "lambda":
        operation = operation.rstrip("0123456789")  # CreateFunction20150331 and the like
    return f"{prefix}:{operation}"


class IamActions:
    def __init__(self, additions: Any, shapes: InputShapes) -> None:
        self.additions = additions
        self.shapes = shapes

    @property
    def account_id(self) -> str:
        """The account of the request being decided (Additions.account_id)."""
        return self.additions.account_id

    def requested(self, request: Any) -> list[tuple[str, str, Json]] | None:
        """[(action, resource, context)] of a request, or None when no model knows its operation."""
        incoming = Incoming(
            service=request.service,
            method=request.method,
            path=request.path,
            query=request.query,
            body=request.body,
            target=request.target,
        )
        reading = self.shapes.read(incoming)
        if reading is None:
            return None
        operation = reading.operation
        params = reading.params if isinstance(reading.params, dict) else {}
        context: Json = {"aws:RequestedRegion": request.region}
        if request.service == "iam" and params.get("PolicyArn") and params.get("RoleName"):
            # Attach/DetachRolePolicy: authorized on the role, the policy in iam:PolicyARN.
            context["iam:PolicyARN"] = params["PolicyArn"]
        if request.service == "iam" and params.get("RoleName"):
            context.update(self._permissions_boundary(operation.name, params))
        if request.service == "ec2" and operation.name in EC2_SECURITY_GROUP_OPERATIONS:
            return self._ec2_security_group_asks(request.region, operation.name, params, context)
        action = action_name(request.service, operation.name)
        resource = self._resource(request, operation.name, params)
        if request.service == "kms":
            context.update(self._kms_tags(request.region, operation.name, params, resource))
        asked = [(action, resource, context)]
        for role, service in self._passed_roles(request, operation.name, params):
            asked.append(("iam:PassRole", role, {**context, "iam:PassedToService": service}))
        return asked

    # --- resources ------------------------------------------------------------------------------

    def _resource(self, request: Any, operation: str, params: Json) -> str:
        named = params.get("ResourceArn") or params.get("ResourceARN") or params.get("resourceArn")
        by_service = {
            "iam": lambda: self._iam_resource(operation, params),
            "s3": lambda: _s3_resource(request.path),
            "kms": lambda: self._kms_resource(request.region, operation, params),
            "eks": lambda: self._eks_resource(request, params),
        }
        if request.service in by_service:
            return by_service[request.service]()
        if named:
            return named
        return _named_resource(request.service, f"{request.region}:{self.account_id}", params) or "*"

    def _iam_resource(self, operation: str, params: Json) -> str:
        iam = f"arn:aws:iam::{self.account_id}"
        if params.get("PolicyArn") and not params.get("RoleName"):
            return params["PolicyArn"]
        if operation == "CreatePolicy":
            return f"{iam}:policy{params.get('Path') or '/'}{params.get('PolicyName')}"
        if params.get("RoleName"):
            if operation == "CreateRole":
                return f"{iam}:role{params.get('Path') or '/'}{params['RoleName']}"
            found = [r for r in self.additions._moto("iam", "global").roles.values() if r.name == params["RoleName"]]
            return found[0].arn if found else f"{iam}:role/{params['RoleName']}"
        return "*"

    def _kms_resource(self, region: str, operation: str, params: Json) -> str:
        kms = f"arn:aws:kms:{region}:{self.account_id}"
        if operation in ("CreateAlias", "DeleteAlias", "UpdateAlias"):
            return f"{kms}:{params.get('AliasName', '')}"
        key = params.get("KeyId") or params.get("TargetKeyId")
        if not key:
            return "*"
        if key.startswith("arn:"):
            return key
        try:
            backend = self.additions._moto("kms", region)
            return backend.keys[backend.any_id_to_key_id(key)].arn
        except Exception:
            return f"{kms}:key/{key}"

    def _ec2_security_group_asks(self, region: str, operation: str, params: Json, context: Json) -> list:
        """Security groups and their rules (Service Authorization Reference, Amazon EC2): a new group is
        authorized on `security-group/*` with the tags it is created with (aws:RequestTag) and on its
        VPC; any other action on the group it names, with that group's tags (aws:ResourceTag); tags
        given at creation (TagSpecifications) are ec2:CreateTags too, with ec2:CreateAction."""
        ec2 = f"arn:aws:ec2:{region}:{self.account_id}"
        # EC2's query members read under their wire names (input_shapes): TagSpecification, Tag, key, value.
        specs = params.get("TagSpecification") or []
        requested = {f"aws:RequestTag/{t['key']}": t.get("value", "") for spec in specs for t in spec.get("Tag") or []}
        asks: list = []
        if operation == "CreateSecurityGroup":
            asks.append((f"ec2:{operation}", f"{ec2}:security-group/*", {**context, **requested}))
            asks.append((f"ec2:{operation}", f"{ec2}:vpc/{params.get('VpcId', '*')}", {**context, **requested}))
            if requested:
                asks.append(
                    (
                        "ec2:CreateTags",
                        f"{ec2}:security-group/*",
                        {**context, **requested, "ec2:CreateAction": operation},
                    )
                )
            return asks
        if operation in ("CreateTags", "DeleteTags"):
            tags = {f"aws:RequestTag/{t['key']}": t.get("value", "") for t in params.get("Tag") or []}
            for resource_id in params.get("ResourceId") or []:
                kind = "security-group-rule" if resource_id.startswith("sgr-") else "security-group"
                asks.append(
                    (
                        f"ec2:{operation}",
                        f"{ec2}:{kind}/{resource_id}",
                        {**context, **tags, **self._ec2_tags(region, resource_id)},
                    )
                )
            return asks
        group = params.get("GroupId") or params.get("groupId") or ""
        asks.append((f"ec2:{operation}", f"{ec2}:security-group/{group}", {**context, **self._ec2_tags(region, group)}))
        if requested:
            asks.append(
                (
                    "ec2:CreateTags",
                    f"{ec2}:security-group-rule/*",
                    {**context, **requested, "ec2:CreateAction": operation},
                )
            )
        return asks

    def _ec2_tags(self, region: str, resource_id: str) -> Json:
        backend = self.additions._moto("ec2", region)
        tags = backend.tags.get(resource_id, {}) if resource_id else {}
        return {f"aws:ResourceTag/{k}": v for k, v in tags.items()}

    def _permissions_boundary(self, operation: str, params: Json) -> Json:
        """iam:PermissionsBoundary (Service Authorization Reference, IAM condition keys): the boundary a
        CreateRole or PutRolePermissionsBoundary sets, else the role's own for the actions that
        change it (Put/DeleteRolePolicy, Attach/DetachRolePolicy); absent when it has none."""
        if operation in ("CreateRole", "PutRolePermissionsBoundary"):
            boundary = params.get("PermissionsBoundary")
            return {"iam:PermissionsBoundary": boundary} if boundary else {}
        if operation not in ("PutRolePolicy", "DeleteRolePolicy", "AttachRolePolicy", "DetachRolePolicy"):
            return {}
        found = [r for r in self.additions._moto("iam", "global").roles.values() if r.name == params["RoleName"]]
        boundary = getattr(found[0], "permissions_boundary_arn", None) if found else None
        return {"iam:PermissionsBoundary": boundary} if boundary else {}

    def _kms_tags(self, region: str, operation: str, params: Json, resource: str) -> Json:
        """aws:RequestTag of a CreateKey or TagResource (KMS's Tags: TagKey/TagValue) and aws:ResourceTag
        of the key a request names (KMS developer guide, "Controlling access to keys with tags")."""
        context = {f"aws:RequestTag/{t['TagKey']}": t["TagValue"] for t in params.get("Tags") or []}
        if ":key/" in resource:
            backend = self.additions._moto("kms", region)
            try:
                key_id = backend.any_id_to_key_id(resource.rsplit("/", 1)[-1])
                tags = backend.tagger.get_tag_dict_for_resource(key_id)
            except Exception:
                tags = {}
            context.update({f"aws:ResourceTag/{k}": v for k, v in tags.items()})
        return context

    def _eks_resource(self, request: Any, params: Json) -> str:
        """EKS's resource types (Service Authorization Reference, Amazon EKS): cluster, access-entry,
        addon, podidentityassociation, each under its cluster; the ARN of a tagged resource."""
        from urllib.parse import unquote

        eks = f"arn:aws:eks:{request.region}:{self.account_id}"
        parts = [unquote(p) for p in request.path.strip("/").split("/")]
        if parts[0] == "tags" and len(parts) > 1:
            return "/".join(parts[1:])
        if parts[0] != "clusters":
            return "*"
        if len(parts) == 1:
            return "*"  # CreateCluster and ListClusters take no resource type
        cluster = parts[1]
        kinds = {
            "access-entries": "access-entry",
            "addons": "addon",
            "pod-identity-associations": "podidentityassociation",
        }
        if len(parts) == 2 or parts[2] not in kinds:
            return f"{eks}:cluster/{cluster}"
        return f"{eks}:{kinds[parts[2]]}/{cluster}/{'/'.join(parts[3:]) or '*'}"

    # --- roles passed ---------------------------------------------------------------------------

    def _passed_roles(self, request: Any, operation: str, params: Json) -> list[tuple[str, str]]:
        """Roles a request hands to a service (iam:PassRole), with the service."""
        if request.service == "cloudcontrolapi" and operation in ("CreateResource", "UpdateResource"):
            if params.get("TypeName") != "AWS::SageMaker::Cluster":
                return []
            if operation == "CreateResource":
                model = json.loads(params.get("DesiredState") or "{}")
            else:
                model = self._patched_cluster(request, params)
            return [
                (g["ExecutionRole"], "sagemaker.amazonaws.com")
                for g in model.get("InstanceGroups", [])
                if g.get("ExecutionRole")
            ]
        if request.service == "sagemaker" and operation in ("CreateDomain", "UpdateDomain"):
            role = (params.get("DefaultUserSettings") or {}).get("ExecutionRole")
            return [(role, "sagemaker.amazonaws.com")] if role else []
        if request.service == "eks":
            if operation == "CreateCluster" and params.get("roleArn"):
                return [(params["roleArn"], "eks.amazonaws.com")]
            if operation in ("CreatePodIdentityAssociation", "UpdatePodIdentityAssociation") and params.get("roleArn"):
                return [(params["roleArn"], "pods.eks.amazonaws.com")]
            if operation in ("CreateAddon", "UpdateAddon") and params.get("serviceAccountRoleArn"):
                return [(params["serviceAccountRoleArn"], "eks.amazonaws.com")]
        return []

    def _patched_cluster(self, request: Any, params: Json) -> Json:
        """The cluster an UpdateResource patch leaves (its groups' roles are passed again)."""
        import jsonpatch

        stored = self.additions.cloud_control.resources.get(("AWS::SageMaker::Cluster", params.get("Identifier")))
        if stored is None:
            return {}
        try:
            return jsonpatch.apply_patch(stored, json.loads(params.get("PatchDocument") or "[]"))
        except Exception:
            return {}


def _s3_resource(path: str) -> str:
    """A path-style request's bucket or object ARN."""
    parts = path.lstrip("/").split("/", 1)
    if not parts[0]:
        return "*"
    return f"arn:aws:s3:::{parts[0]}" + (f"/{parts[1]}" if len(parts) > 1 and parts[1] else "")


def _budget(at: str, params: Json) -> str | None:
    budget = (
        params.get("BudgetName")
        or (params.get("Budget") or {}).get("BudgetName")
        or (params.get("NewBudget") or {}).get("BudgetName")
    )
    return f"arn:aws:budgets::{at.split(':')[1]}:budget/{budget}" if budget else None


def _ssm(at: str, params: Json) -> str | None:
    if params.get("ResourceType") == "Parameter" and params.get("ResourceId"):
        return f"arn:aws:ssm:{at}:parameter/{params['ResourceId'].lstrip('/')}"
    name = params.get("Name") or params.get("Path") or (params.get("Names") or [None])[0]
    return f"arn:aws:ssm:{at}:parameter/{name.lstrip('/')}" if name and not params.get("ResourceType") else None


def _lambda(at: str, params: Json) -> str | None:
    name = params.get("FunctionName")
    if not name:
        return None
    return name if name.startswith("arn:") else f"arn:aws:lambda:{at}:function:{name}"


def _logs(at: str, params: Json) -> str | None:
    return f"arn:aws:logs:{at}:log-group:{params['logGroupName']}" if params.get("logGroupName") else None


def _events(at: str, params: Json) -> str | None:
    rule = params.get("Name") or params.get("Rule")
    return f"arn:aws:events:{at}:rule/{rule}" if rule else None


def _sqs(at: str, params: Json) -> str | None:
    name = params.get("QueueName") or (params.get("QueueUrl") or "").rstrip("/").rsplit("/", 1)[-1]
    return f"arn:aws:sqs:{at}:{name}" if name else None


def _glue(at: str, params: Json) -> str | None:
    """Glue's database and table resource types; a table's action names its database too."""
    database = params.get("DatabaseName") or (params.get("DatabaseInput") or {}).get("Name")
    table = params.get("TableName") or (params.get("TableInput") or {}).get("Name")
    if params.get("DatabaseName") and not table:
        table = params.get("Name")
    if database and table:
        return f"arn:aws:glue:{at}:table/{database}/{table}"
    if database or params.get("Name"):
        return f"arn:aws:glue:{at}:database/{database or params['Name']}"
    return f"arn:aws:glue:{at}:catalog"


def _athena(at: str, params: Json) -> str | None:
    group = params.get("WorkGroup") or params.get("Name")
    return f"arn:aws:athena:{at}:workgroup/{group}" if group else None


#: The resource a request names, by service (Service Authorization Reference, each service's
#: "Resource types defined by ..." table).
NAMED_RESOURCES = {
    "budgets": _budget,
    "ssm": _ssm,
    "lambda": _lambda,
    "logs": _logs,
    "events": _events,
    "sqs": _sqs,
    "glue": _glue,
    "athena": _athena,
}


def _named_resource(service: str, at: str, params: Json) -> str | None:
    found = NAMED_RESOURCES.get(service)
    return found(at, params) if found else None
