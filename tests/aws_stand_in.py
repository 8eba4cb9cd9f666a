"""A stand-in for the few AWS read APIs that Terraform's import and the stacks' lookups call, on
the loopback address, so that a real `terraform plan` with `import` blocks runs offline.

An import has the provider read the existing object from AWS: no state file can stand in for
that. This answers those reads, and nothing else, from a `World` of existing resources that a
test describes. Each answer has the shape of the response syntax on the API reference page of its
operation (named at each handler); a call it does not know gets an error that names it, so a
plan that needs more fails loudly instead of planning on a guess. It writes nothing: an apply
against it fails. The emulator tier (moto) is the place for that.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote


@dataclass
class World:
    """What exists in the account before the first deploy."""

    #: Cloud Control: (type name, identifier) -> properties (GetResource's ResourceDescription).
    cloud_control: dict[tuple[str, str], dict] = field(default_factory=dict)
    #: SageMaker DescribeDomain answers, by domain ID.
    domains: dict[str, dict] = field(default_factory=dict)
    #: SSO Admin DescribePermissionSet answers (PermissionSet), by ARN, with "InlinePolicy" beside.
    permission_sets: dict[str, dict] = field(default_factory=dict)
    #: SSO Admin ListAccountAssignments entries.
    account_assignments: list[dict] = field(default_factory=list)
    #: Identity store groups: display name -> group ID.
    groups: dict[str, str] = field(default_factory=dict)
    #: EKS DescribeAddon answers (addon), by (cluster, add-on name).
    addons: dict[tuple[str, str], dict] = field(default_factory=dict)
    #: Calls the stand-in does not answer, for the test to show.
    unanswered: list[str] = field(default_factory=list)
    #: Every operation called, in order.
    calls: list[str] = field(default_factory=list)

    def described(self, type_name: str) -> dict:
        """The properties of the one Cloud Control resource of `type_name`, to change in place."""
        (properties,) = [found for (kind, _), found in self.cloud_control.items() if kind == type_name]
        return properties


class NotFound(Exception):
    def __init__(self, error_type: str, message: str) -> None:
        super().__init__(message)
        self.error_type = error_type


class _JsonOperations:
    """The JSON operations the stand-in answers, by X-Amz-Target, over one world."""

    def __init__(self, world: World) -> None:
        self.world = world

    def get_resource(self, body: dict) -> dict:
        # Cloud Control API GetResource: {TypeName, ResourceDescription: {Identifier, Properties}}.
        key = (body["TypeName"], body["Identifier"])
        if key not in self.world.cloud_control:
            raise NotFound("ResourceNotFoundException", f"{key} not found")
        return {
            "TypeName": key[0],
            "ResourceDescription": {"Identifier": key[1], "Properties": json.dumps(self.world.cloud_control[key])},
        }

    def describe_domain(self, body: dict) -> dict:
        # SageMaker DescribeDomain: the domain, or ResourceNotFound.
        if body["DomainId"] not in self.world.domains:
            raise NotFound("ResourceNotFound", f"Domain {body['DomainId']} not found")
        return self.world.domains[body["DomainId"]]

    def list_tags(self, body: dict) -> dict:
        # SageMaker ListTags and SSO Admin ListTagsForResource: {Tags: [...]}.
        return {"Tags": []}

    def describe_permission_set(self, body: dict) -> dict:
        # SSO Admin DescribePermissionSet: {PermissionSet: {...}}.
        found = self.world.permission_sets.get(body["PermissionSetArn"])
        if found is None:
            raise NotFound("ResourceNotFoundException", f"{body['PermissionSetArn']} not found")
        return {"PermissionSet": {k: v for k, v in found.items() if k != "InlinePolicy"}}

    def get_inline_policy(self, body: dict) -> dict:
        # SSO Admin GetInlinePolicyForPermissionSet: {InlinePolicy: "..."} ("" when none).
        found = self.world.permission_sets.get(body["PermissionSetArn"])
        if found is None:
            raise NotFound("ResourceNotFoundException", f"{body['PermissionSetArn']} not found")
        return {"InlinePolicy": found.get("InlinePolicy", "")}

    def list_account_assignments(self, body: dict) -> dict:
        # SSO Admin ListAccountAssignments: one account and permission set's assignments.
        return {
            "AccountAssignments": [
                a
                for a in self.world.account_assignments
                if a["AccountId"] == body["AccountId"] and a["PermissionSetArn"] == body["PermissionSetArn"]
            ]
        }

    def get_group_id(self, body: dict) -> dict:
        # Identity Store GetGroupId by the DisplayName unique attribute.
        name = body["AlternateIdentifier"]["UniqueAttribute"]["AttributeValue"]
        if name not in self.world.groups:
            raise NotFound("ResourceNotFoundException", f"group {name} not found")
        return {"GroupId": self.world.groups[name], "IdentityStoreId": body["IdentityStoreId"]}

    def describe_group(self, body: dict) -> dict:
        # Identity Store DescribeGroup.
        for name, group_id in self.world.groups.items():
            if group_id == body["GroupId"]:
                return {
                    "GroupId": group_id,
                    "DisplayName": name,
                    "ExternalIds": [],
                    "IdentityStoreId": body["IdentityStoreId"],
                }
        raise NotFound("ResourceNotFoundException", f"group {body['GroupId']} not found")

    def table(self) -> dict:
        return {
            "CloudApiService.GetResource": self.get_resource,
            "SageMaker.DescribeDomain": self.describe_domain,
            "SageMaker.ListTags": self.list_tags,
            "SWBExternalService.DescribePermissionSet": self.describe_permission_set,
            "SWBExternalService.GetInlinePolicyForPermissionSet": self.get_inline_policy,
            "SWBExternalService.ListTagsForResource": self.list_tags,
            "SWBExternalService.ListAccountAssignments": self.list_account_assignments,
            "AWSIdentityStore.GetGroupId": self.get_group_id,
            "AWSIdentityStore.DescribeGroup": self.describe_group,
        }


def _handler(world: World) -> type[BaseHTTPRequestHandler]:
    operations = _JsonOperations(world).table()
    addon_path = re.compile(r"^/clusters/([^/]+)/addons/([^/?]+)")

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # quiet
            pass

        def _answer(self, status: int, body: dict, content_type: str = "application/x-amz-json-1.1") -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            if status >= 400:
                self.send_header("X-Amzn-ErrorType", body.get("__type", "UnknownError"))
            self.end_headers()
            self.wfile.write(data)

        def _unanswered(self, what: str) -> None:
            world.unanswered.append(what)
            self._answer(400, {"__type": "UnsupportedOperation", "message": f"the stand-in does not answer {what}"})

        def do_GET(self) -> None:
            match = addon_path.match(self.path)
            if match:
                # EKS DescribeAddon: {addon: {...}}, or 404 ResourceNotFoundException.
                key = (unquote(match[1]), unquote(match[2]))
                world.calls.append(f"eks.DescribeAddon {key}")
                if key not in world.addons:
                    self._answer(
                        404, {"__type": "ResourceNotFoundException", "message": "No addon"}, "application/json"
                    )
                else:
                    self._answer(200, {"addon": world.addons[key]}, "application/json")
                return
            self._unanswered(f"GET {self.path}")

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            raw = self.rfile.read(length).decode()
            target = self.headers.get("X-Amz-Target")
            if target is None:
                action = parse_qs(raw).get("Action", ["?"])[0]
                self._unanswered(f"POST {self.path} Action={action}")
                return
            world.calls.append(target)
            operation = operations.get(target)
            if operation is None:
                self._unanswered(target)
                return
            try:
                self._answer(200, operation(json.loads(raw or "{}")))
            except NotFound as missing:
                self._answer(400, {"__type": missing.error_type, "message": str(missing)})

    return Handler


@contextmanager
def serving(world: World) -> Iterator[str]:
    """The stand-in's endpoint URL while the block runs."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(world))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
