"""The synth process's own encoding of jsii kernel requests: the same bytes jsii would send."""

from __future__ import annotations

import collections
import json

import pytest

from hyperpod_teams.spec import load_spec
from hyperpod_teams.speedups import jsii_requests
from tests.conftest import EXAMPLE_SPECS, synthesize_stacks


@pytest.fixture
def fresh_install():
    """jsii as it is before the test and after it, whatever an earlier test installed."""
    was_installed = bool(jsii_requests._originals)
    jsii_requests.uninstall()
    yield
    jsii_requests.uninstall()
    if was_installed:
        jsii_requests.install()


@pytest.fixture
def deferring_install(fresh_install, monkeypatch):
    """The fast path installed in a process whose kernel holds no object Python overrides. Such an
    object (the okta example's elements, providers/okta/terraform.py, synthesized by an earlier test
    in this process) turns deferral off, as it must: jsii may call it back. These tests are about
    deferral itself, so they start where it is on."""
    monkeypatch.setattr(jsii_requests, "_objects_with_overrides_exist", lambda: False)
    yield


def test_every_request_of_every_example_synth_encodes_as_jsii_would(tmp_path, fresh_install, monkeypatch):
    """Each argument, request line and answer of real synths, both ways: jsii's and this module's."""
    import jsii._kernel as kernel_module
    from jsii._kernel.providers import process
    from jsii._runtime import kernel

    assert jsii_requests.install()
    jsii_make_reference = jsii_requests._originals["make_reference"]
    wire_value, request_line, response = jsii_requests._wire_value, jsii_requests.request_line, jsii_requests._response
    serializer = kernel.provider._process._serializer  # type: ignore[attr-defined]  # jsii's pinned internals
    checked: collections.Counter = collections.Counter()

    def both_ways_value(kernel, value):
        ours = wire_value(kernel, value)
        theirs = serializer.unstructure(jsii_make_reference(kernel, value))
        assert json.dumps(ours, default=process.jdefault) == json.dumps(theirs, default=process.jdefault)
        checked["arguments"] += 1
        return ours

    def both_ways_line(request):
        ours = request_line(request)
        if ours is not None:
            theirs = json.dumps(serializer.unstructure(request), default=process.jdefault).encode() + b"\n"
            assert ours == theirs, type(request).__name__
            checked[type(request).__name__] += 1
        return ours

    def both_ways_response(node_process, message, response_type):
        ours = response(node_process, message, response_type)
        answer = serializer.structure(message, process._ProcessResponse)
        if isinstance(answer, process._OkayResponse):
            theirs = serializer.structure(answer.ok, response_type)
            assert type(ours) is type(theirs) and ours == theirs
            checked[response_type.__name__] += 1
        return ours

    with monkeypatch.context() as patch:  # undone before the fixture uninstalls
        patch.setattr(kernel_module, "_make_reference_for_native", both_ways_value)
        patch.setattr(jsii_requests, "request_line", both_ways_line)
        patch.setattr(jsii_requests, "_response", both_ways_response)
        for path in EXAMPLE_SPECS:
            synthesize_stacks(load_spec(path), tmp_path / path.parent.name)

    for kind in (
        "arguments",
        "CreateRequest",
        "GetRequest",
        "InvokeRequest",
        "StaticInvokeRequest",
        "CreateResponse",
        "GetResponse",
        "InvokeResponse",
    ):
        assert checked[kind] > 0, f"no {kind} was compared"
    assert checked["CreateRequest"] > 500


def test_jsii_of_another_shape_is_left_as_it_is(fresh_install, monkeypatch):
    import jsii._kernel as kernel_module
    from jsii._kernel.providers import process

    before = (kernel_module._make_reference_for_native, kernel_module._get_overides, process._NodeProcess.send)
    monkeypatch.setitem(jsii_requests.EXPECTED_FIELDS, "CreateRequest", ("fqn", "args", "overrides"))
    assert jsii_requests.install() is False
    assert (kernel_module._make_reference_for_native, kernel_module._get_overides, process._NodeProcess.send) == before


def test_the_full_import_variable_keeps_jsii_as_it_is(fresh_install, monkeypatch):
    from jsii._kernel.providers import process

    send = process._NodeProcess.send
    monkeypatch.setenv(jsii_requests.FULL_IMPORT_ENV, "1")
    assert jsii_requests.install() is False
    assert process._NodeProcess.send is send


def test_a_kernel_error_reaches_python_as_jsii_raises_it(fresh_install):
    """An answer that is not `ok` goes the way jsii's own send takes it: the kernel's message."""
    from hyperpod_teams.engine import cdk

    assert jsii_requests.install()
    app = cdk.App(outdir="/nonexistent-hyperpod-teams-test")
    with pytest.raises(RuntimeError, match="No child with id: 'missing'"):
        app.node.find_child("missing")
    assert app.node.id == ""


def test_a_create_node_refuses_is_raised_at_the_next_call_that_waits_naming_the_class(deferring_install):
    from hyperpod_teams.engine import cdk

    assert jsii_requests.install()
    app = cdk.App(outdir="/nonexistent-hyperpod-teams-test")
    stack = cdk.TerraformStack(app, "stack")
    cdk.TerraformStack(app, "stack")  # node refuses it; Python does not wait to hear so
    with pytest.raises(RuntimeError, match="There is already a Construct with name 'stack'") as raised:
        _ = stack.node.id
    assert any(f"{cdk.__name__}.TerraformStack" in note for note in raised.value.__notes__)
    assert stack.node.id == "stack"  # every answer was read: Python and the kernel are in step


def test_a_dependency_node_refuses_is_raised_at_the_next_call_that_waits_naming_the_method(deferring_install):
    from hyperpod_teams.engine import cdk

    assert jsii_requests.install()
    app = cdk.App(outdir="/nonexistent-hyperpod-teams-test")
    first, second = cdk.TerraformStack(app, "first"), cdk.TerraformStack(app, "second")
    deferred = jsii_requests._deferred.deferred
    second.add_dependency(first)
    first.add_dependency(second)  # a cycle: node refuses it; Python does not wait to hear so
    assert jsii_requests._deferred.deferred == deferred + 2
    with pytest.raises(RuntimeError, match="circular dependency") as raised:
        _ = first.node.id
    assert any(
        "addDependency()" in note and f"{cdk.__name__}.TerraformStack@" in note for note in raised.value.__notes__
    )
    assert [d.node.id for d in second.dependencies] == ["first"] and first.dependencies == []


def test_a_reference_the_kernel_did_not_give_stops_before_anything_uses_it(deferring_install):
    from hyperpod_teams.engine import cdk

    assert jsii_requests.install()
    app = cdk.App(outdir="/nonexistent-hyperpod-teams-test")  # its answer tells the numbering
    assert jsii_requests._deferred.next_id is not None
    jsii_requests._deferred.next_id += 7  # as if the kernel numbered objects another way
    cdk.TerraformStack(app, "stack")
    with pytest.raises(RuntimeError, match=jsii_requests.FULL_IMPORT_ENV):
        _ = app.node.children


def _watched_construct_class(calls: list):
    """A construct whose `node` Python overrides: node calls back for it when a child is created."""
    import builtins

    from constructs import Construct

    class Watched(Construct):
        @builtins.property
        def node(self):
            calls.append("node")
            return super().node

    return Watched


def test_an_object_python_overrides_is_called_back_while_its_child_is_created(fresh_install):
    from constructs import Construct

    from hyperpod_teams.engine import cdk

    calls: list = []
    assert jsii_requests.install()
    stack = cdk.TerraformStack(cdk.App(outdir="/nonexistent-hyperpod-teams-test"), "stack")
    watched = _watched_construct_class(calls)(stack, "watched")
    child = Construct(watched, "child")
    assert calls  # the kernel asked Python for `node` while it created the child
    assert child.node.path == "stack/watched/child"


def test_an_overriding_object_made_before_install_is_called_back_too(fresh_install):
    from constructs import Construct

    from hyperpod_teams.engine import cdk

    calls: list = []
    stack = cdk.TerraformStack(cdk.App(outdir="/nonexistent-hyperpod-teams-test"), "stack")
    watched = _watched_construct_class(calls)(stack, "watched")  # jsii as it is
    assert jsii_requests.install()
    Construct(stack, "first")  # its answer tells the kernel's numbering
    child = Construct(watched, "child")
    assert calls
    assert child.node.path == "stack/watched/child"
