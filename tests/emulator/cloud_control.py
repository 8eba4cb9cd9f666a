"""A local Cloud Control API for the three HyperPod types (moto has none), after the Cloud
Control API reference: CreateResource, GetResource, UpdateResource (an RFC 6902 JSON patch),
DeleteResource and GetResourceRequestStatus, and CloudFormation's DescribeType, from which
`aws_cloudcontrolapi_resource` reads the type's schema.

What it copies from AWS:
- every desired state is checked against the type's registry schema (registry.py, cfn-lint's
  bundled copy): unknown properties, types, enums, patterns (`\\p{..}` included), lengths,
  ranges and required properties; a read-only property in a desired state is refused. Cloud
  Control answers these with an operation FAILED, `ErrorCode: InvalidRequest`, "Model validation
  failed (...)";
- an UpdateResource whose patch touches a create-only property is refused at once with
  `NotUpdatableException`, as Cloud Control refuses it;
- a scheduler config or compute quota must name an existing HyperPod cluster, and a cluster has
  at most one scheduler config (SageMaker's CreateClusterSchedulerConfig: ConflictException);
- identifiers and read-only properties are filled as AWS fills them (ARNs with a 12-character
  ID, `InService` / `Created` status), and GetResource answers the stored model with them.
Operations complete at once: every request's status is SUCCESS or FAILED when first asked.
"""

from __future__ import annotations

import copy
import json
import secrets
import time
import uuid
from collections.abc import Callable
from typing import Any, Protocol

import jsonpatch

from tests.emulator import registry

Json = dict[str, Any]


class CloudControlError(Exception):
    def __init__(self, error_type: str, message: str) -> None:
        super().__init__(message)
        self.error_type = error_type


def _region_of(arn: str) -> str | None:
    """The Region an ARN names (`arn:partition:service:region:account:...`), None for no ARN."""
    parts = arn.split(":")
    return parts[3] if len(parts) > 5 and parts[0] == "arn" else None


def _paths(schema: Json, key: str) -> list[list[str]]:
    return [pointer.removeprefix("/properties/").split("/") for pointer in schema.get(key, [])]


def _touches(patch_path: list[str], create_only: list[str]) -> bool:
    """A patch path touches a create-only path when one is a prefix of the other (`*` is any
    array index): changing /VpcConfig/Subnets/1 changes /VpcConfig."""
    for ours, theirs in zip(patch_path, create_only, strict=False):
        if theirs != "*" and ours != theirs:
            return False
    return True


def _strip(model: Any, path: list[str]) -> None:
    """Remove the property at `path` (`*`: every array item) from `model`."""
    head, rest = path[0], path[1:]
    if head == "*":
        for item in model if isinstance(model, list) else []:
            if rest:
                _strip(item, rest)
    elif isinstance(model, dict) and head in model:
        if rest:
            _strip(model[head], rest)
        else:
            del model[head]


def _has(model: Any, path: list[str]) -> bool:
    if not path:
        return True
    head, rest = path[0], path[1:]
    if head == "*":
        return isinstance(model, list) and any(_has(item, rest) for item in model)
    return isinstance(model, dict) and head in model and _has(model[head], rest)


#: What SageMaker says when a node's lifecycle scripts are missing or fail: the cluster goes
#: `Failed` with this `FailureMessage` (quoted in awslabs/awsome-distributed-ai#188 and #632).
LIFECYCLE_FAILURE = (
    'Instance {instance} failed to provision with the following error: "Lifecycle scripts did not run '
    "successfully. Ensure the scripts exist in provided S3 path, are accessible, and run without errors. "
    'Please see CloudWatch logs for lifecycle script execution details." Note that multiple instances may be impacted.'
)
#: Instance-group properties UpdateCluster cannot change for an existing group (SageMaker API
#: reference, UpdateCluster / ClusterInstanceGroupSpecification: the group is replaced by name,
#: its type and role are fixed at creation; a new type needs a new group).
FIXED_GROUP_PROPERTIES = ("InstanceType", "ExecutionRole")


class World(Protocol):
    """What exists outside Cloud Control, as SageMaker checks it when it creates a cluster."""

    def missing_for_cluster(self, model: Json, region: str) -> str | None: ...

    def lifecycle_scripts_missing(self, group: Json) -> bool: ...


class Failure(Exception):
    """A request Cloud Control accepts and whose operation then fails: its handler error code
    (Cloud Control API reference, ProgressEvent `ErrorCode`) and status message."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _fixed_group_changes(type_name: str, before: Json, after: Json) -> str | None:
    """An update that changes a property an existing instance group keeps for life."""
    if type_name != "AWS::SageMaker::Cluster":
        return None
    was = {group["InstanceGroupName"]: group for group in before.get("InstanceGroups", [])}
    for group in after.get("InstanceGroups", []):
        old = was.get(group["InstanceGroupName"])
        if old is None:
            continue
        for name in FIXED_GROUP_PROPERTIES:
            if old.get(name) != group.get(name):
                raise Failure(
                    "InvalidRequest",
                    f"{name} of instance group {group['InstanceGroupName']} cannot be updated "
                    f"(from {old.get(name)} to {group.get(name)}): add a new instance group instead. "
                    "(Service: SageMaker, Status Code: 400, Error Code: ValidationException)",
                )
    return None


class CloudControl:
    def __init__(self, *, account_id: str, world: World | None = None) -> None:
        self._account_id = account_id
        #: The rest of the account (the emulator's IAM, EKS, EC2 and S3); None: not checked.
        self.world = world
        #: (type name, identifier) -> the stored model (with read-only properties).
        self.resources: dict[tuple[str, str], Json] = {}
        self.requests: dict[str, Json] = {}
        #: Instance groups an update deleted, with the nodes they had (`_groups_by_name`).
        self.terminated: list[Json] = []

    @property
    def account_id(self) -> str:
        """The account of the request answered: the world's (the emulator's caller) when there is one."""
        return getattr(self.world, "account_id", None) or self._account_id

    def operations(self) -> dict[str, Callable]:
        return {
            "CreateResource": self.create_resource,
            "GetResource": self.get_resource,
            "UpdateResource": self.update_resource,
            "DeleteResource": self.delete_resource,
            "GetResourceRequestStatus": self.get_resource_request_status,
        }

    def exists(self, type_name: str, identifier: str) -> bool:
        return (type_name, identifier) in self.resources

    # --- checks --------------------------------------------------------------------------

    @staticmethod
    def _schema(type_name: str) -> Json:
        if type_name not in registry.TYPES:
            raise CloudControlError("TypeNotFoundException", f"The type {type_name} cannot be found")
        return registry.schema(type_name)

    def _invalid(self, type_name: str, model: Json) -> str | None:
        """Why `model` is not a valid desired state of `type_name`, or None."""
        schema = self._schema(type_name)
        for path in _paths(schema, "readOnlyProperties"):
            if _has(model, path):
                return f"Model validation failed (#: read-only property [{'/'.join(path)}] is not permitted)"
        errors = sorted(registry.validator(type_name).iter_errors(model), key=lambda e: list(e.absolute_path))
        if errors:
            error = errors[0]
            where = "/".join(str(p) for p in error.absolute_path)
            return f"Model validation failed (#/{where}: {error.message})"
        return None

    def _references(self, type_name: str, model: Json, region: str, identifier: str | None = None) -> str | None:
        """What SageMaker refuses beyond the schema: a missing cluster (one of another Region is
        missing in this one: Cloud Control and SageMaker resources are regional, and the ARN names
        its Region), a second scheduler config."""
        if type_name == "AWS::SageMaker::Cluster":
            return self._cluster_references(model, region, identifier)
        cluster = model.get("ClusterArn", "")
        if not self.exists("AWS::SageMaker::Cluster", cluster) or _region_of(cluster) != region:
            return f"Cluster {cluster} not found (ResourceNotFound)"
        for (other_type, other_id), other in self.resources.items():
            if other_type != type_name or other_id == identifier:
                continue
            if type_name == "AWS::SageMaker::ClusterSchedulerConfig" and other["ClusterArn"] == cluster:
                return f"Cluster {cluster} has a cluster policy already: {other_id} (ConflictException)"
            if type_name == "AWS::SageMaker::ComputeQuota" and other["ClusterArn"] == cluster:
                if other["ComputeQuotaTarget"]["TeamName"] == model["ComputeQuotaTarget"]["TeamName"]:
                    return f"Team {model['ComputeQuotaTarget']['TeamName']} has a compute quota already"
        return None

    def _cluster_references(self, model: Json, region: str, identifier: str | None) -> str | None:
        """A cluster's name is unique in its account and Region (SageMaker CreateCluster:
        ResourceInUse, "Resource already exists" - a cluster a failed create left behind counts),
        and what it names must exist (world.missing_for_cluster)."""
        for (other_type, other_id), other in self.resources.items():
            if (
                other_type == "AWS::SageMaker::Cluster"
                and other_id != identifier
                and other.get("ClusterName") == model.get("ClusterName")
                and _region_of(other_id) == region
            ):
                raise Failure(
                    "AlreadyExists",
                    f"Resource of type 'AWS::SageMaker::Cluster' with identifier '{model.get('ClusterName')}' "
                    f"already exists. (Service: SageMaker, Status Code: 400, Error Code: ResourceInUse: Cluster "
                    f"{other_id} already exists)",
                )
        return self.world.missing_for_cluster(model, region) if self.world is not None else None

    def _lifecycle_failed(self, stored: Json, groups: list[Json]) -> str | None:
        """The cluster's `Failed` status when a group's lifecycle scripts are not where it says."""
        if self.world is None:
            return None
        for group in groups:
            if self.world.lifecycle_scripts_missing(group):
                message = LIFECYCLE_FAILURE.format(instance="i-" + secrets.token_hex(8)[:17])
                stored["ClusterStatus"] = "Failed"
                stored["FailureMessage"] = message
                group["CurrentCount"] = 0
                return message
        return None

    # --- requests --------------------------------------------------------------------------

    def _event(
        self, type_name: str, operation: str, identifier: str | None, failure: str | None, code: str = "InvalidRequest"
    ) -> Json:
        token = str(uuid.uuid4())
        event = {
            "TypeName": type_name,
            "RequestToken": token,
            "Operation": operation,
            "OperationStatus": "FAILED" if failure else "SUCCESS",
            "EventTime": time.time(),
        }
        if identifier:
            event["Identifier"] = identifier
        if failure:
            event.update(ErrorCode=code, StatusMessage=failure)
        self.requests[token] = event
        # Cloud Control answers a mutation IN_PROGRESS; its end is read with GetResourceRequestStatus.
        return {"ProgressEvent": dict(event, OperationStatus="IN_PROGRESS")}

    def _new_identity(self, type_name: str, region: str) -> tuple[str, Json]:
        resource_id = secrets.token_hex(6)  # 12 lowercase hexadecimal characters
        prefix = f"arn:aws:sagemaker:{region}:{self.account_id}"
        created = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
        if type_name == "AWS::SageMaker::Cluster":
            arn = f"{prefix}:cluster/{resource_id}"
            return arn, {"ClusterArn": arn, "ClusterStatus": "InService", "CreationTime": created}
        kind, key = {
            "AWS::SageMaker::ClusterSchedulerConfig": ("cluster-scheduler-config", "ClusterSchedulerConfig"),
            "AWS::SageMaker::ComputeQuota": ("compute-quota", "ComputeQuota"),
        }[type_name]
        arn = f"{prefix}:{kind}/{resource_id}"
        return arn, {
            f"{key}Arn": arn,
            f"{key}Id": resource_id,
            f"{key}Version": 1,
            "Status": "Created",
            "CreationTime": created,
        }

    @staticmethod
    def _fill_counts(type_name: str, model: Json) -> None:
        if type_name == "AWS::SageMaker::Cluster":
            for group in model.get("InstanceGroups", []):
                group["CurrentCount"] = group.get("InstanceCount", 0)

    def create_resource(self, request: Any) -> Json:
        body = request.json()
        type_name = body["TypeName"]
        model = json.loads(body["DesiredState"])
        try:
            failure = self._invalid(type_name, model) or self._references(type_name, model, request.region)
        except Failure as refused:
            return self._event(type_name, "CREATE", None, str(refused), refused.code)
        if failure:
            return self._event(type_name, "CREATE", None, failure)
        identifier, read_only = self._new_identity(type_name, request.region)
        stored = {**copy.deepcopy(model), **read_only}
        self._fill_counts(type_name, stored)
        self.resources[(type_name, identifier)] = stored
        if type_name == "AWS::SageMaker::Cluster":
            # SageMaker creates the cluster, then its nodes run the lifecycle scripts; a cluster
            # whose scripts are missing stays, Failed, and Cloud Control's create does not stabilize.
            failed = self._lifecycle_failed(stored, stored.get("InstanceGroups", []))
            if failed:
                return self._event(
                    type_name, "CREATE", identifier, f"Cluster {identifier} is Failed: {failed}", "NotStabilized"
                )
        return self._event(type_name, "CREATE", identifier, None)

    def _stored(self, body: Json, region: str) -> Json:
        """The resource an identifier names in the request's Region (a resource of another Region
        is not found there)."""
        self._schema(body["TypeName"])
        key = (body["TypeName"], self._primary(body["TypeName"], body["Identifier"]))
        if key not in self.resources or _region_of(key[1]) not in (region, None):
            raise CloudControlError(
                "ResourceNotFoundException", f"Resource of type '{key[0]}' with identifier '{key[1]}' was not found."
            )
        return self.resources[key]

    def _primary(self, type_name: str, identifier: str) -> str:
        """The primary identifier an identifier names. A secondary identifier comes as JSON of its
        properties (Cloud Control user guide, "Identifying resources": `{"ClusterName": "..."}`);
        any other string is the primary identifier itself (a bare cluster name finds nothing)."""
        if not identifier.startswith("{"):
            return identifier
        wanted = json.loads(identifier)
        for (stored_type, primary), model in self.resources.items():
            if stored_type == type_name and all(model.get(k) == v for k, v in wanted.items()):
                return primary
        return identifier

    def get_resource(self, request: Any) -> Json:
        body = request.json()
        stored = self._stored(body, request.region)
        primary = self._primary(body["TypeName"], body["Identifier"])
        return {
            "TypeName": body["TypeName"],
            "ResourceDescription": {"Identifier": primary, "Properties": json.dumps(stored)},
        }

    def update_resource(self, request: Any) -> Json:
        body = request.json()
        type_name = body["TypeName"]
        stored = self._stored(body, request.region)
        schema = self._schema(type_name)
        patch = json.loads(body["PatchDocument"])
        create_only = _paths(schema, "createOnlyProperties")
        for operation in patch:
            path = operation["path"].lstrip("/").split("/")
            if any(_touches(path, fixed) for fixed in create_only):
                raise CloudControlError(
                    "NotUpdatableException",
                    f"Invalid patch update: createOnlyProperties [{operation['path']}] cannot be updated",
                )
        model = copy.deepcopy(stored)
        for path in _paths(schema, "readOnlyProperties"):
            _strip(model, path)
        try:
            model = jsonpatch.apply_patch(model, patch)
        except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException) as error:
            raise CloudControlError("ValidationException", f"Invalid patch document: {error}") from error
        try:
            failure = (
                self._invalid(type_name, model)
                or self._references(type_name, model, request.region, body["Identifier"])
                or _fixed_group_changes(type_name, stored, model)
            )
        except Failure as refused:
            return self._event(type_name, "UPDATE", body["Identifier"], str(refused), refused.code)
        if not failure:
            read_only = {
                k: v
                for k, v in stored.items()
                if k not in model and f"/properties/{k}" in schema.get("readOnlyProperties", [])
            }
            version_key = type_name.rsplit("::", 1)[1] + "Version"
            if version_key in read_only:
                read_only[version_key] += 1
            updated = {**model, **read_only}
            self._fill_counts(type_name, updated)
            if type_name == "AWS::SageMaker::Cluster":
                self._groups_by_name(body["Identifier"], stored, updated)
            self.resources[(type_name, body["Identifier"])] = updated
            if type_name == "AWS::SageMaker::Cluster":
                known = {g["InstanceGroupName"] for g in stored.get("InstanceGroups", [])}
                added = [g for g in updated.get("InstanceGroups", []) if g["InstanceGroupName"] not in known]
                failed = self._lifecycle_failed(updated, added)
                if failed:
                    failure = f"Cluster {body['Identifier']} is Failed: {failed}"
                    return self._event(type_name, "UPDATE", body["Identifier"], failure, "NotStabilized")
        return self._event(type_name, "UPDATE", body["Identifier"], failure)

    def _groups_by_name(self, identifier: str, before: Json, after: Json) -> None:
        """SageMaker knows an instance group by its name (UpdateCluster: a group the request no
        longer lists is deleted, `InstanceGroupsToDelete`): a group that left has its nodes
        terminated (kept in `terminated`), and a group of a new name, a renamed one too, starts
        from no node, its nodes provisioned afresh. (AWS then reaches InstanceCount; the emulator
        leaves a new group's CurrentCount at 0 so that a test sees which groups started anew.)"""
        was = {group["InstanceGroupName"]: group for group in before.get("InstanceGroups", [])}
        names = set()
        for group in after.get("InstanceGroups", []):
            names.add(group["InstanceGroupName"])
            if group["InstanceGroupName"] not in was:
                group["CurrentCount"] = 0
        for name, group in was.items():
            if name not in names:
                self.terminated.append({"cluster": identifier, "group": name, "nodes": group.get("CurrentCount", 0)})

    def delete_resource(self, request: Any) -> Json:
        body = request.json()
        self._stored(body, request.region)
        type_name = body["TypeName"]
        if type_name == "AWS::SageMaker::Cluster":
            users = [
                i
                for (t, i), m in self.resources.items()
                if m.get("ClusterArn") == body["Identifier"] and t != type_name
            ]
            if users:
                return self._event(
                    type_name,
                    "DELETE",
                    body["Identifier"],
                    f"Cluster has task governance resources still: {users} (ConflictException)",
                )
        del self.resources[(type_name, body["Identifier"])]
        return self._event(type_name, "DELETE", body["Identifier"], None)

    def get_resource_request_status(self, request: Any) -> Json:
        token = request.json()["RequestToken"]
        if token not in self.requests:
            raise CloudControlError("RequestTokenNotFoundException", f"Request token {token} not found")
        return {"ProgressEvent": self.requests[token]}

    # --- CloudFormation DescribeType --------------------------------------------------------

    @staticmethod
    def describe_type_xml(type_name: str) -> str:
        """CloudFormation DescribeType (query protocol, XML): the type's schema."""
        from xml.sax.saxutils import escape

        schema = json.dumps(registry.schema(type_name))
        return (
            '<DescribeTypeResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/">'
            "<DescribeTypeResult>"
            f"<Arn>arn:aws:cloudformation:us-east-1::type/resource/{type_name.replace('::', '-')}</Arn>"
            f"<Type>RESOURCE</Type><TypeName>{type_name}</TypeName>"
            f"<Schema>{escape(schema)}</Schema>"
            "<ProvisioningType>FULLY_MUTABLE</ProvisioningType><Visibility>PUBLIC</Visibility>"
            "<DeprecatedStatus>LIVE</DeprecatedStatus><IsDefaultVersion>true</IsDefaultVersion>"
            "</DescribeTypeResult>"
            f"<ResponseMetadata><RequestId>{uuid.uuid4()}</RequestId></ResponseMetadata>"
            "</DescribeTypeResponse>"
        )
