"""Faster encoding of the requests Python sends to the jsii kernel, in the synth process only.

Why: every construct, attribute read and method call of a synth is one request to the jsii
kernel in node, about 70 per team. jsii's Python runtime walks each request's arguments three
times before a byte is sent: once to wrap maps, structs and references
(`_make_reference_for_native`), once more through cattrs to turn them into plain data, and once
to encode that as JSON, calling back into Python for every object reference; it also reads each
struct field through a property that builds `typing.Optional[...]` each time, works out the
overrides of a class again for every instance, and parses each answer through a cattrs union
dispatch. On a 100-team synth that was a third of Python's time.

`install()` replaces those steps, for the request kinds a synth sends (create, get, invoke,
static invoke), with one walk that produces the plain data directly: the same JSON, byte for byte
(a test encodes every request of a real synth both ways and compares), so the kernel sees no
difference. Values of any other kind (a Python object the kernel must wrap, a date, ...) take
jsii's own path.

It also stops Python and node from taking turns on creates, two thirds of a synth's requests:
each waited for the other, so one of the two cores idled. The answer to a create is the new
object's reference, `<fqn>@<n>`, which the kernel's numbering foretells (`_DeferredAnswers`), so
Python sends a create and goes on building while node works; the answers are read, and each is
checked against the one foretold, before the next request whose answer Python needs. Calls of the
few methods in `RETURNS_NOTHING` (a stack's `addDependency`, three per team) go the same way:
their answer is always empty. The one visible difference: an error node raises while it creates
an object or runs such a call reaches Python at that next request, with a note naming the class
or the method, instead of at the line that made it.

It installs only when jsii's internals have the shape this was written against (jsii 1.x, these
request classes with these fields); otherwise, or with HYPERPOD_TEAMS_FULL_BINDINGS_IMPORT set,
jsii runs as it is. The `synth` command and the cdktf app install it; importing the library
changes nothing.
"""

from __future__ import annotations

import collections
import enum
import json
import os
import re
from collections.abc import Callable
from typing import Any

from hyperpod_teams.speedups.python_bindings import FULL_IMPORT_ENV, JSII_GENERATED_PACKAGES

#: The request classes this module encodes, with the fields jsii gives them (in that order).
EXPECTED_FIELDS = {
    "CreateRequest": ("fqn", "args", "overrides", "interfaces"),
    "GetRequest": ("objref", "property"),
    "InvokeRequest": ("objref", "method", "args"),
    "StaticInvokeRequest": ("fqn", "method", "args"),
    "Override": ("method", "property", "cookie"),
    "ObjRef": ("ref", "interfaces"),
    "CreateResponse": ("ref", "interfaces"),
    "GetResponse": ("value",),
    "InvokeResponse": ("result",),
}
#: What this module uses or replaces in jsii's kernel module and its process provider.
JSII_KERNEL_NAMES = ("_make_reference_for_native", "_get_overides")
JSII_PROCESS_NAMES = (
    "_NodeProcess",
    "_unstructure_ref",
    "jdefault",
    "_stack_traces_enabled",
    "capture_stack_trace",
    "_ProcessResponse",
    "_OkayResponse",
    "_CallbackResponse",
    "ErrorType",
    "JavaScriptError",
    "JSIIError",
    "ohook",
)
#: Methods (class of the kernel's object, method) that return nothing and hand Python no object:
#: the kernel's answer to a call is always empty, so Python need not wait for it.
RETURNS_NOTHING = frozenset({("cdktn.TerraformStack", "addDependency"), ("cdktf.TerraformStack", "addDependency")})

_PLAIN = frozenset({str, int, float, bool, type(None)})
_originals: dict[str, Any] = {}


def install() -> bool:
    """Encode the synth's kernel requests directly; True when installed (now or before)."""
    if _originals:
        return True
    if os.environ.get(FULL_IMPORT_ENV) or not _jsii_has_expected_shape():
        return False
    import jsii._kernel as kernel_module
    from jsii._kernel import types
    from jsii._kernel.providers import process

    _originals.update(
        make_reference=kernel_module._make_reference_for_native,
        overrides=kernel_module._get_overides,
        send=process._NodeProcess.send,
    )
    global _encoder, _decoder
    _encoder = json.JSONEncoder(default=process.jdefault)  # as jsii's json.dumps(..., default=)
    _decoder = json.JSONDecoder(object_hook=process.ohook)  # as jsii's json.loads(..., object_hook=)
    _builders.update(_request_builders())
    _deferred.CreateResponse = types.CreateResponse
    _deferred.InvokeResponse = types.InvokeResponse
    _deferred.callbacks_possible = _objects_with_overrides_exist()
    # Assigned through setattr: these replace jsii's own functions (see _originals).
    setattr(kernel_module, "_make_reference_for_native", _wire_value)  # noqa: B010
    setattr(kernel_module, "_get_overides", _cached_overrides)  # noqa: B010
    setattr(process._NodeProcess, "send", _send)  # noqa: B010
    return True


def uninstall() -> None:
    """Put jsii's own functions back (for tests)."""
    if not _originals:
        return
    import jsii._kernel as kernel_module
    from jsii._kernel.providers import process

    global _deferred
    try:
        if _deferred.pending:
            _deferred.answer_all(_deferred.node_process)
    finally:
        _deferred = _DeferredAnswers()
        setattr(kernel_module, "_make_reference_for_native", _originals["make_reference"])  # noqa: B010
        setattr(kernel_module, "_get_overides", _originals["overrides"])  # noqa: B010
        setattr(process._NodeProcess, "send", _originals["send"])  # noqa: B010
        _originals.clear()
        _overrides.clear()
        _builders.clear()


def _objects_with_overrides_exist() -> bool:
    """Whether the kernel already holds an object Python overrides (it may call it back)."""
    from jsii import _reference_map

    one_of_each_class = {type(instance): instance for instance in list(_reference_map._refs._refs.values())}
    return any(
        _originals["overrides"](cls, instance)  # depends on the class alone
        for cls, instance in one_of_each_class.items()
        if not cls.__module__.startswith(JSII_GENERATED_PACKAGES)
    )


def _jsii_has_expected_shape() -> bool:
    try:
        import attr
        import jsii
        import jsii._kernel as kernel_module
        from jsii._kernel import types
        from jsii._kernel.providers import process
    except ImportError:
        return False
    if not str(getattr(jsii, "__version__", "")).startswith("1."):
        return False
    for name, fields in EXPECTED_FIELDS.items():
        cls = getattr(types, name, None)
        if cls is None or not attr.has(cls) or tuple(f.name for f in attr.fields(cls)) != fields:
            return False
    from jsii import _reference_map

    return (
        isinstance(getattr(getattr(_reference_map, "_refs", None), "_refs", None), dict)
        and all(hasattr(kernel_module, name) for name in JSII_KERNEL_NAMES)
        and all(hasattr(process, name) for name in JSII_PROCESS_NAMES)
        and all(hasattr(process._NodeProcess, name) for name in ("send", "_next_message"))
    )


# --- arguments: one walk from Python values to the kernel's wire form ---------------------------

#: Per Python class: how its instances go on the wire ("object", "struct", "enum" or "other"),
#: with a struct's (python name, jsii name) pairs and whether it keeps them in `_values`.
_kinds: dict[type, tuple[str, tuple[tuple[str, str], ...], bool]] = {}


def _kind(cls: type) -> tuple[str, tuple[tuple[str, str], ...], bool]:
    kind = _kinds.get(cls)
    if kind is None:
        if getattr(cls, "__jsii_type__", None) is None:
            kind = ("other", (), False)
        elif issubclass(cls, enum.Enum):
            kind = ("enum", (), False)
        elif (mapping := getattr(cls, "__jsii_name_mapping__", None)) is not None:
            generated = cls.__module__.startswith(JSII_GENERATED_PACKAGES)
            kind = ("struct", tuple(mapping.items()), generated)
        else:
            kind = ("object", (), False)
        _kinds[cls] = kind
    return kind


def _wire_value(kernel: Any, value: Any) -> Any:
    """What jsii's `_make_reference_for_native` and then its cattrs step make of `value`."""
    cls = type(value)
    if cls in _PLAIN:
        return value
    if cls is dict:
        return {"$jsii.map": {key: _wire_value(kernel, item) for key, item in value.items()}}
    if cls is list:
        return [_wire_value(kernel, item) for item in value]
    kind, mapping, generated = _kind(cls)
    if kind == "object":
        ref = getattr(value, "__jsii_ref__", None)
        if ref is not None:  # what jsii's JSON default makes of a kernel object
            return _jsii_process_module()._unstructure_ref(ref)
    elif kind == "struct":
        data = {}
        values = getattr(value, "_values", None) if generated else None
        for python_name, jsii_name in mapping:
            if values is not None and (python_name not in values or values[python_name] is not None):
                # The generated property returns exactly this; only a required field set to None
                # (which its property refuses) goes through the property below.
                item = values.get(python_name)
            else:
                item = getattr(value, python_name)
            data[jsii_name] = _wire_value(kernel, item)
        return {"$jsii.struct": {"fqn": value.__jsii_type__, "data": data}}
    elif kind == "enum":
        return {"$jsii.enum": f"{value.__jsii_type__}/{value.value}"}
    # Anything else (a Python object the kernel must wrap, a date, a dict subclass...): jsii's
    # own two steps.
    native = _originals["make_reference"](kernel, value)
    return kernel.provider._process._serializer.unstructure(native)


_overrides: dict[tuple[type, type], list] = {}


def _cached_overrides(klass: type, obj: Any) -> list:
    """jsii's overrides of a class, worked out once per (jsii class, Python class)."""
    key = (klass, type(obj))
    found = _overrides.get(key)
    if found is None:
        found = _overrides[key] = _originals["overrides"](klass, obj)
    return list(found)


# --- requests and responses ---------------------------------------------------------------------


def _jsii_process_module():
    from jsii._kernel.providers import process

    return process


def _request_builders() -> dict[type, Callable[[Any], dict]]:
    from jsii._kernel import types

    ref = _jsii_process_module()._unstructure_ref

    def overrides(request: Any) -> list:
        return [{"method": o.method, "property": o.property, "cookie": o.cookie} for o in request.overrides]

    # Arguments arrive already in wire form (`_wire_value`): jsii's Kernel built them.
    return {
        types.CreateRequest: lambda r: {
            "fqn": r.fqn,
            "args": r.args,
            "overrides": overrides(r),
            "interfaces": r.interfaces,
            "api": "create",
        },
        types.GetRequest: lambda r: {"objref": ref(r.objref), "property": r.property, "api": "get"},
        types.InvokeRequest: lambda r: {"objref": ref(r.objref), "method": r.method, "args": r.args, "api": "invoke"},
        types.StaticInvokeRequest: lambda r: {"fqn": r.fqn, "method": r.method, "args": r.args, "api": "sinvoke"},
    }


_builders: dict[type, Callable[[Any], dict]] = {}
# Built by install(), from jsii's own hooks.
_encoder: json.JSONEncoder = json.JSONEncoder()
_decoder: json.JSONDecoder = json.JSONDecoder()


def request_line(request: Any) -> bytes | None:
    """The line jsii would send for `request`, or None for a kind this module leaves to jsii."""
    build = _builders.get(type(request))
    if build is None:
        return None
    process = _jsii_process_module()
    message = build(request)
    if process._stack_traces_enabled():
        trace = process.capture_stack_trace()
        if trace:
            message["$jsii.stacktrace"] = trace
    return _encoder.encode(message).encode("utf8") + b"\n"


def _send(self: Any, request: Any, response_type: type) -> Any:
    """jsii's `_NodeProcess.send`: this module's encoding, and the answer to a create or to a
    call that returns nothing not waited for when it is known before it comes (`_DeferredAnswers`)."""
    line = request_line(request)
    if line is None:
        _deferred.answer_all(self)
        _deferred.next_id = None  # jsii reads this answer itself: the next create waits, and tells
        return _originals["send"](self, request, response_type)
    deferred = False
    if response_type is _deferred.CreateResponse:
        if request.overrides:
            _deferred.callbacks_possible = True
        deferred = _deferred.can_defer()
    elif response_type is _deferred.InvokeResponse:
        deferred = _returns_nothing(request) and _deferred.can_defer()
    if not deferred:
        _deferred.answer_all(self)
    self._process.stdin.write(line)
    self._process.stdin.flush()
    if deferred:
        return _deferred.defer(self, request, response_type)
    message = _deferred.read(self)
    try:
        answer = _response(self, message, response_type)
    except BaseException:
        _deferred.next_id = None  # a failed call may have numbered objects it never showed
        raise
    if response_type is _deferred.CreateResponse and type(answer) is response_type:
        _deferred.created(answer)
    return answer


def _returns_nothing(request: Any) -> bool:
    """Whether `request` calls one of the RETURNS_NOTHING methods on an object."""
    objref = getattr(request, "objref", None)  # a static method's request has none
    return objref is not None and (objref.ref.rpartition("@")[0], request.method) in RETURNS_NOTHING


class _DeferredAnswers:
    """Requests sent without waiting for their answer, which is known before it comes: creates,
    whose answer the kernel's numbering foretells, and calls of methods that return nothing
    (`RETURNS_NOTHING`). The answers are read, and each checked against the one expected, before
    the next request that waits.

    The kernel names each object it registers `<fqn>@<n>`, n counting up from 10000, and
    registers objects only when it creates one or when it hands one to Python (in an answer or a
    callback), so every number it uses shows in a message Python reads. While no object the kernel
    holds has Python overrides, a create cannot call back into Python, so its answer is known
    before it comes: Python goes on building while node creates, instead of each waiting for the
    other. The first create after install(), after a failure, or after a request jsii answers
    itself, waits: its answer tells the numbering again. (A call that returns nothing numbers no
    object; it is deferred only when creates are, for the same reason: no callback can come.)
    """

    #: Requests in flight at most. Their answers (a few KiB even if all fail) stay far below a
    #: pipe's buffer, so node never waits to write while Python waits to write to node.
    LIMIT = 16
    BYREF = re.compile(rb'"\$jsii\.byref":"[^"]*@(\d+)"')

    def __init__(self) -> None:
        self.pending: collections.deque = collections.deque()
        self.next_id: int | None = None  # the number the kernel gives next, when known
        self.callbacks_possible = False  # once an object has Python overrides, nothing is deferred
        self.CreateResponse: type | None = None
        self.InvokeResponse: type | None = None
        self.node_process: Any = None
        self.deferred = 0  # requests sent without waiting, since install()

    def can_defer(self) -> bool:
        return self.next_id is not None and not self.callbacks_possible

    def defer(self, node_process: Any, request: Any, response_type: type) -> Any:
        if response_type is self.CreateResponse:
            assert self.next_id is not None  # can_defer() said so
            expected = self.CreateResponse(ref=f"{request.fqn}@{self.next_id}")
            self.next_id += 1
        else:
            expected = response_type()  # a call that returns nothing: an empty answer
        self.deferred += 1
        self.pending.append((expected, request, response_type))
        self.node_process = node_process
        if len(self.pending) >= self.LIMIT:
            self.answer_all(node_process)
        return expected

    def read(self, node_process: Any) -> Any:
        """The next message from the kernel, noting the object numbers it shows."""
        line = node_process._process.stdout.readline()
        if self.next_id is not None and b"$jsii.byref" in line:
            self.next_id = max([self.next_id, *(int(n) + 1 for n in self.BYREF.findall(line))])
        # As json.loads of these bytes decodes them (the kernel's JSON is UTF-8, without a BOM).
        return _decoder.decode(line.decode("utf-8", "surrogatepass"))

    def created(self, answer: Any) -> None:
        """A create that was waited for: its object has the newest number."""
        number = answer.ref.rpartition("@")[2]
        self.next_id = int(number) + 1 if number.isdigit() else None

    def answer_all(self, node_process: Any) -> None:
        """Read every deferred answer; raise the first failure once all are read."""
        failure: tuple[Exception, Any] | None = None
        while self.pending:
            expected, request, response_type = self.pending.popleft()
            message = self.read(node_process)
            try:
                answer = _response(node_process, message, response_type)
            except Exception as error:
                self.next_id = None
                failure = failure or (error, request)
                continue
            if answer != expected:  # the requests sent since named objects that do not exist
                self.pending.clear()
                self.next_id = None
                raise FastPathMismatch(
                    f"the jsii kernel answered {answer!r} to {_described(request)}, not {expected!r}: "
                    f"set {FULL_IMPORT_ENV}=1 to run jsii as it is, and report this"
                )
        if failure:
            first_error, first_request = failure
            first_error.add_note(
                f"(raised by node for {_described(first_request)}; reported at the next call that waits)"
            )
            raise first_error


class FastPathMismatch(RuntimeError):
    """The kernel answered other than this module foretold (a jsii that numbers objects in
    another way): this process's jsii state can no longer be trusted. The `synth` command and the
    cdktf app then synthesize again, in a fresh process, the ordinary way."""


def _described(request: Any) -> str:
    """What a deferred request asked for, as the messages about its answer name it."""
    if hasattr(request, "fqn"):
        return f"the creation of a {request.fqn}"
    return f"the call of {request.method}() on {request.objref.ref}"


_deferred = _DeferredAnswers()


def _response(node_process: Any, message: Any, response_type: type) -> Any:
    from jsii._kernel import types

    process = _jsii_process_module()
    serializer = node_process._serializer
    if type(message) is dict and len(message) == 1 and "ok" in message:
        ok = message["ok"]
        # What the cattrs hooks jsii registers make of these answers, without the union dispatch.
        if response_type is types.CreateResponse and type(ok) is types.ObjRef:
            return types.CreateResponse(ref=ok.ref)
        if response_type is types.GetResponse and type(ok) is dict and ok.keys() <= {"value"}:
            return types.GetResponse(**ok)
        if response_type is types.InvokeResponse and type(ok) is dict and ok.keys() <= {"result"}:
            return types.InvokeResponse(**ok)
        return serializer.structure(ok, response_type)
    # Callbacks and errors: as jsii's own send handles them.
    response = serializer.structure(message, process._ProcessResponse)
    if isinstance(response, process._OkayResponse):
        return serializer.structure(response.ok, response_type)
    if isinstance(response, process._CallbackResponse):
        return response.callback
    if response.name == process.ErrorType.JSII_FAULT.value:
        raise process.JSIIError(response.error) from process.JavaScriptError(response.stack)
    raise RuntimeError(response.error) from process.JavaScriptError(response.stack)
