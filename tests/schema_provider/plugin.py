"""A schema stand-in provider: a Terraform plugin (protocol 6) that serves a provider's published
schema and nothing else, so that Terraform core checks a stack against the exact provider version it
pins where no binary of that provider can be installed here.

Terraform itself does the checking: given the schema, `validate` refuses an unknown attribute or
block ("An argument named ... is not expected here"), a missing required argument, a value of the
wrong type, a block nested wrongly, and `plan` evaluates every expression, reference, lifecycle rule
and condition. The provider's own logic is not here: no validators (string lengths, enums,
ConflictsWith), no defaults, no plan modifiers, no API. `plan` returns the proposed new state with
every computed attribute the configuration leaves unset unknown, as a provider does on create;
`ReadDataSource` answers computed attributes with placeholder values of their type.

How it is started: Terraform runs the provider executable (a launcher written by
`tests.schema_provider.mirror`) with go-plugin's environment; this module answers go-plugin's
handshake on stdout (`1|6|tcp|127.0.0.1:<port>|grpc|<server certificate>`, AutoMTLS: Terraform
pins the certificate printed there) and serves the gRPC `tfplugin6.Provider` service until
Terraform kills it.

Protocol messages: PyPI `tfplugin-proto-all` (the `tfplugin6.5` definition compiled for grpcio):
Terraform 1.11 speaks 6.8, a compatible superset; what 6.5 cannot say (write-only attributes,
ephemeral resources) is listed in docs/testing.md.
"""

from __future__ import annotations

import base64
import datetime
import gzip
import json
import os
import sys
import threading
import time
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
import msgpack
from tfplugin_proto import tfplugin6_5_pb2 as pb
from tfplugin_proto import tfplugin6_5_pb2_grpc as pb_grpc

#: go-plugin's magic cookie for Terraform providers (terraform's internal/plugin6/serve.go).
MAGIC_COOKIE_KEY = "TF_PLUGIN_MAGIC_COOKIE"
MAGIC_COOKIE_VALUE = "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2"

#: A data source's computed string attributes read this: valid base64 of ASCII text (a cluster's
#: CA is decoded) and a valid EKS cluster name, as tests/offline_terraform.STUB_OUTPUT.
PLACEHOLDER_STRING = os.environ.get("SCHEMA_PROVIDER_PLACEHOLDER", "b2ZmbGluZS1la3Mx")

#: What a data source reads, where the test says (JSON: type -> attribute -> value), before the
#: placeholders: e.g. the version of an EKS add-on a stack checks.
DATA_ANSWERS: dict[str, dict[str, object]] = json.loads(os.environ.get("SCHEMA_PROVIDER_DATA", "{}"))

#: Where the stand-in records what it applies (JSON lines: type, action). Unset, it refuses to
#: apply; set (the pipeline harness), an apply returns the planned state with placeholders for
#: what the plan left unknown: Terraform then holds a state, nothing more is claimed.
APPLY_LOG = os.environ.get("SCHEMA_PROVIDER_APPLY_LOG", "")

#: cty's msgpack encoding of an unknown value (cty/msgpack: an extension of type 0).
UNKNOWN = msgpack.ExtType(0, b"\x00")

#: tfplugin's NestingMode values (protobuf takes the numbers; its stubs name only the enum type).
NESTING: dict[str, Any] = {"single": 1, "list": 2, "set": 3, "map": 4, "group": 5}


def load_schema(path: Path) -> dict:
    """A provider's schema as `terraform providers schema -json` gives one provider's entry."""
    with gzip.open(path, "rt") as handle:
        return json.load(handle)


# --- the schema as protobuf ------------------------------------------------------------------------


def _attribute(name: str, spec: dict) -> pb.Schema.Attribute:
    attribute = pb.Schema.Attribute(
        name=name,
        required=spec.get("required", False),
        optional=spec.get("optional", False),
        computed=spec.get("computed", False),
        sensitive=spec.get("sensitive", False),
        deprecated=spec.get("deprecated", False),
    )
    if "nested_type" in spec:
        nested = spec["nested_type"]
        attribute.nested_type.CopyFrom(
            pb.Schema.Object(
                attributes=[_attribute(n, a) for n, a in sorted(nested.get("attributes", {}).items())],
                nesting=NESTING[nested["nesting_mode"]],
            )
        )
    else:
        attribute.type = json.dumps(spec["type"]).encode()
    return attribute


def _block(spec: dict) -> pb.Schema.Block:
    return pb.Schema.Block(
        attributes=[_attribute(n, a) for n, a in sorted(spec.get("attributes", {}).items())],
        block_types=[
            pb.Schema.NestedBlock(
                type_name=name,
                block=_block(nested.get("block", {})),
                nesting=NESTING[nested["nesting_mode"]],
                min_items=nested.get("min_items", 0),
                max_items=nested.get("max_items", 0),
            )
            for name, nested in sorted(spec.get("block_types", {}).items())
        ],
        deprecated=spec.get("deprecated", False),
    )


def _schema(spec: dict) -> pb.Schema:
    return pb.Schema(version=spec.get("version", 0), block=_block(spec.get("block", {})))


def _function(spec: dict) -> pb.Function:
    def parameter(p: dict) -> pb.Function.Parameter:
        return pb.Function.Parameter(
            name=p.get("name", ""),
            type=json.dumps(p["type"]).encode(),
            allow_null_value=p.get("is_nullable", False),
        )

    function = pb.Function(
        parameters=[parameter(p) for p in spec.get("parameters", [])],
        summary=spec.get("summary", ""),
        description=spec.get("description", ""),
    )
    function.__getattribute__("return").type = json.dumps(spec["return_type"]).encode()
    if "variadic_parameter" in spec:
        function.variadic_parameter.CopyFrom(parameter(spec["variadic_parameter"]))
    return function


def schema_response(schema: dict) -> pb.GetProviderSchema.Response:
    return pb.GetProviderSchema.Response(
        provider=_schema(schema.get("provider", {})),
        resource_schemas={name: _schema(s) for name, s in schema.get("resource_schemas", {}).items()},
        data_source_schemas={name: _schema(s) for name, s in schema.get("data_source_schemas", {}).items()},
        functions={name: _function(f) for name, f in schema.get("functions", {}).items()},
        server_capabilities=pb.ServerCapabilities(plan_destroy=False, get_provider_schema_optional=False),
    )


# --- values ----------------------------------------------------------------------------------------


def decode(value: pb.DynamicValue):
    if value.msgpack:
        return msgpack.unpackb(value.msgpack, raw=False, strict_map_key=False)
    if value.json:
        return json.loads(value.json)
    return None


def encode(value) -> pb.DynamicValue:
    return pb.DynamicValue(msgpack=msgpack.packb(value, use_bin_type=True))


def _elements(nesting: str, value) -> list:
    """The objects inside a nested block's or nested attribute's value."""
    if value is None or isinstance(value, msgpack.ExtType):
        return []
    if nesting in ("single", "group"):
        return [value]
    if nesting == "map":
        return list(value.values())
    return list(value)


def _nested_blocks(block: dict):
    for name, nested in block.get("block_types", {}).items():
        yield name, nested["nesting_mode"], nested.get("block", {})
    for name, attribute in block.get("attributes", {}).items():
        if "nested_type" in attribute:
            nested = attribute["nested_type"]
            yield name, nested["nesting_mode"], {"attributes": nested.get("attributes", {})}


def unknown_computed(block: dict, proposed: dict) -> None:
    """Plan a create: every computed attribute the configuration left null becomes unknown, as a
    provider's plan leaves it to apply (Terraform's proposed new state has them null)."""
    for name, attribute in block.get("attributes", {}).items():
        if attribute.get("computed") and proposed.get(name) is None:
            proposed[name] = UNKNOWN
    for name, nesting, nested in _nested_blocks(block):
        for element in _elements(nesting, proposed.get(name)):
            if isinstance(element, dict):
                unknown_computed(nested, element)


def placeholder(type_spec):
    """A known value of a cty type, for a data source's computed attribute."""
    if type_spec == "string":
        return PLACEHOLDER_STRING
    if type_spec == "number":
        return 0
    if type_spec == "bool":
        return False
    if type_spec == "dynamic":
        return ['"string"', PLACEHOLDER_STRING]  # dynamic values travel as [type, value]
    kind, element = type_spec
    if kind in ("list", "set"):
        return [placeholder(element)]
    if kind == "map":
        return {}
    if kind == "object":
        return {name: placeholder(t) for name, t in element.items()}
    if kind == "tuple":
        return [placeholder(t) for t in element]
    raise ValueError(f"unknown cty type {type_spec!r}")


def fill_computed(block: dict, value: dict) -> None:
    """Read a data source: every computed attribute the configuration left null gets a placeholder."""
    for name, attribute in block.get("attributes", {}).items():
        if attribute.get("computed") and value.get(name) is None and "type" in attribute:
            value[name] = placeholder(attribute["type"])
    for name, nesting, nested in _nested_blocks(block):
        for element in _elements(nesting, value.get(name)):
            if isinstance(element, dict):
                fill_computed(nested, element)


def fill_unknown(block: dict, value: dict) -> None:
    """Apply (where APPLY_LOG allows it): every attribute the plan left unknown gets a placeholder."""
    for name, attribute in block.get("attributes", {}).items():
        if value.get(name) == UNKNOWN:
            value[name] = placeholder(attribute["type"]) if "type" in attribute else None
    for name, nesting, nested in _nested_blocks(block):
        for element in _elements(nesting, value.get(name)):
            if isinstance(element, dict):
                fill_unknown(nested, element)


def cloud_control_properties(planned: dict) -> str:
    """What Cloud Control describes after a create, as far as a stand-in can tell: the desired state
    with the type's read-only identifiers (`<Type>Id`, `<Type>Arn`) as placeholders."""
    kind = str(planned.get("type_name", "")).rsplit("::", 1)[-1]
    desired = json.loads(planned.get("desired_state") or "{}") if isinstance(planned.get("desired_state"), str) else {}
    arn = f"arn:aws:sagemaker:us-west-2:111122223333:{kind.lower()}/{PLACEHOLDER_STRING.lower()}"
    return json.dumps({**desired, f"{kind}Id": PLACEHOLDER_STRING.lower(), f"{kind}Arn": arn})


def conform(block: dict, value: dict | None) -> dict:
    """An object with every attribute and block of the schema, for state read from JSON."""
    value = dict(value or {})
    for name in block.get("attributes", {}):
        value.setdefault(name, None)
    for name, nested in block.get("block_types", {}).items():
        mode = nested["nesting_mode"]
        current = value.get(name)
        if mode in ("list", "set"):
            value[name] = [conform(nested.get("block", {}), e) for e in current or []]
        elif mode == "map":
            value[name] = {k: conform(nested.get("block", {}), e) for k, e in (current or {}).items()}
        else:
            value[name] = conform(nested.get("block", {}), current) if current is not None else None
    return value


def _error(summary: str, detail: str = "") -> pb.Diagnostic:
    return pb.Diagnostic(severity=pb.Diagnostic.ERROR, summary=summary, detail=detail)


class SchemaProvider(pb_grpc.ProviderServicer):
    def __init__(self, name: str, schema_path: Path, response: pb.GetProviderSchema.Response) -> None:
        self.name = name
        self.schema_path = schema_path
        self.response = response
        self._schema: dict | None = None

    @property
    def schema(self) -> dict:
        """The published schema as JSON, read when a plan or a read first needs it: most of the
        times Terraform starts a provider it only asks for the schema, which the cache answers."""
        if self._schema is None:
            self._schema = load_schema(self.schema_path)
        return self._schema

    def _block(self, kind: str, type_name: str) -> dict:
        return self.schema.get(kind, {}).get(type_name, {}).get("block", {})

    def GetMetadata(self, request, context):
        return pb.GetMetadata.Response(
            server_capabilities=self.response.server_capabilities,
            resources=[pb.GetMetadata.ResourceMetadata(type_name=n) for n in self.response.resource_schemas],
            data_sources=[pb.GetMetadata.DataSourceMetadata(type_name=n) for n in self.response.data_source_schemas],
            functions=[pb.GetMetadata.FunctionMetadata(name=n) for n in self.response.functions],
        )

    def GetProviderSchema(self, request, context):
        return self.response

    def GetFunctions(self, request, context):
        return pb.GetFunctions.Response(functions=self.response.functions)

    def ValidateProviderConfig(self, request, context):
        return pb.ValidateProviderConfig.Response()

    def ValidateResourceConfig(self, request, context):
        return pb.ValidateResourceConfig.Response()

    def ValidateDataResourceConfig(self, request, context):
        return pb.ValidateDataResourceConfig.Response()

    def ConfigureProvider(self, request, context):
        return pb.ConfigureProvider.Response()

    def UpgradeResourceState(self, request, context):
        state = json.loads(request.raw_state.json) if request.raw_state.json else None
        block = self._block("resource_schemas", request.type_name)
        return pb.UpgradeResourceState.Response(upgraded_state=encode(conform(block, state)))

    def ReadResource(self, request, context):
        return pb.ReadResource.Response(new_state=request.current_state, private=request.private)

    def PlanResourceChange(self, request, context):
        proposed = decode(request.proposed_new_state)
        prior = decode(request.prior_state)
        if proposed is not None and prior is None:
            unknown_computed(self._block("resource_schemas", request.type_name), proposed)
        return pb.PlanResourceChange.Response(planned_state=encode(proposed), planned_private=request.prior_private)

    def ApplyResourceChange(self, request, context):
        if not APPLY_LOG:
            return pb.ApplyResourceChange.Response(
                diagnostics=[_error(f"{self.name} is a schema stand-in", "It plans; it cannot apply.")]
            )
        planned, prior = decode(request.planned_state), decode(request.prior_state)
        action = "delete" if planned is None else "create" if prior is None else "update"
        if planned is not None:
            if request.type_name == "aws_cloudcontrolapi_resource" and planned.get("properties") == UNKNOWN:
                planned["properties"] = cloud_control_properties(planned)
            for attribute, answer in DATA_ANSWERS.get(request.type_name, {}).items():
                if planned.get(attribute) == UNKNOWN:  # what a test says the object holds, as for data sources
                    planned[attribute] = answer
            fill_unknown(self._block("resource_schemas", request.type_name), planned)
        with open(APPLY_LOG, "a") as log:
            log.write(json.dumps({"type": request.type_name, "action": action}) + "\n")
        return pb.ApplyResourceChange.Response(new_state=encode(planned), private=request.planned_private)

    def ImportResourceState(self, request, context):
        block = self._block("resource_schemas", request.type_name)
        state = conform(block, {"id": request.id} if "id" in block.get("attributes", {}) else {})
        return pb.ImportResourceState.Response(
            imported_resources=[
                pb.ImportResourceState.ImportedResource(type_name=request.type_name, state=encode(state))
            ]
        )

    def ReadDataSource(self, request, context):
        value = decode(request.config)
        for attribute, answer in DATA_ANSWERS.get(request.type_name, {}).items():
            if value.get(attribute) is None:
                value[attribute] = answer
        fill_computed(self._block("data_source_schemas", request.type_name), value)
        return pb.ReadDataSource.Response(state=encode(value))

    def StopProvider(self, request, context):
        return pb.StopProvider.Response()


# --- go-plugin -------------------------------------------------------------------------------------


def _server_certificate() -> tuple[bytes, bytes, str]:
    """A self-signed certificate for go-plugin's AutoMTLS: Terraform trusts exactly the certificate
    the handshake line carries (base64 DER). Made once per SCHEMA_PROVIDER_CACHE and kept there
    beside the schemas (a third of a start's imports was the cryptography package that makes it)."""
    cache_dir = os.environ.get("SCHEMA_PROVIDER_CACHE")
    kept = Path(cache_dir) / "server-certificate.json" if cache_dir else None
    if kept and kept.exists():
        found = json.loads(kept.read_text())
        return found["key"].encode(), found["certificate"].encode(), found["der"]
    key_pem, certificate_pem, der = _new_server_certificate()
    if kept:
        partial = kept.with_suffix(f".{os.getpid()}.partial")
        partial.write_text(json.dumps({"key": key_pem.decode(), "certificate": certificate_pem.decode(), "der": der}))
        partial.replace(kept)
    return key_pem, certificate_pem, der


def _new_server_certificate() -> tuple[bytes, bytes, str]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "HashiCorp"),
            x509.NameAttribute(NameOID.COMMON_NAME, "localhost"),
        ]
    )
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
        .add_extension(x509.KeyUsage(True, False, True, True, False, True, False, False, False), critical=True)
        .add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH, ExtendedKeyUsageOID.SERVER_AUTH]), critical=False
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    der = certificate.public_bytes(serialization.Encoding.DER)
    return key_pem, certificate.public_bytes(serialization.Encoding.PEM), base64.b64encode(der).decode().rstrip("=")


def _cached_response(schema_path: Path) -> pb.GetProviderSchema.Response:
    """The schema as protobuf, built once per schema file and kept in SCHEMA_PROVIDER_CACHE:
    building it from the JSON takes about 0.14 s for the AWS provider, parsing it back under 0.01 s,
    and Terraform starts a provider several times per command."""
    cache_dir = os.environ.get("SCHEMA_PROVIDER_CACHE")
    cache = Path(cache_dir) / f"{schema_path.name}.{schema_path.stat().st_mtime_ns}.pb" if cache_dir else None
    if cache and cache.exists():
        return pb.GetProviderSchema.Response.FromString(cache.read_bytes())
    response = schema_response(load_schema(schema_path))
    if cache:
        partial = cache.with_suffix(f".{os.getpid()}.partial")
        partial.write_bytes(response.SerializeToString())
        partial.replace(cache)
    return response


def _controller() -> grpc.GenericRpcHandler:
    """go-plugin's `plugin.GRPCController` service (its grpc_controller.proto: `Shutdown(Empty)
    returns (Empty)`), written without generated code: an empty message is zero bytes. Terraform
    calls it when done with the provider and otherwise waits two seconds before killing it."""

    def shutdown(request: bytes, context) -> bytes:
        threading.Timer(0.01, os._exit, args=(0,)).start()
        return b""

    handler = grpc.unary_unary_rpc_method_handler(
        shutdown, request_deserializer=lambda data: data, response_serializer=lambda data: data
    )
    return grpc.method_handlers_generic_handler("plugin.GRPCController", {"Shutdown": handler})


def serve(name: str, schema_path: Path) -> None:
    if os.environ.get(MAGIC_COOKIE_KEY) != MAGIC_COOKIE_VALUE:
        sys.exit(
            "This is a schema stand-in for a Terraform provider; Terraform starts it. "
            f"Not meant to be run directly (see {__name__})."
        )
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    pb_grpc.add_ProviderServicer_to_server(SchemaProvider(name, schema_path, _cached_response(schema_path)), server)
    server.add_generic_rpc_handlers((_controller(),))
    key_pem, certificate_pem, certificate_b64 = _server_certificate()
    port = server.add_secure_port("127.0.0.1:0", grpc.ssl_server_credentials([(key_pem, certificate_pem)]))
    server.start()
    print(f"1|6|tcp|127.0.0.1:{port}|grpc|{certificate_b64}", flush=True)
    # Terraform ends a provider with SIGKILL once done; stop on our own if it went away first.
    parent = os.getppid()
    while os.getppid() == parent:
        time.sleep(1)
    server.stop(0)


if __name__ == "__main__":
    serve(sys.argv[1], Path(sys.argv[2]))
