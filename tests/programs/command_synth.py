import sys
from hyperpod_teams.speedups import jsii_requests, python_bindings
from hyperpod_teams.spec import load_spec
from hyperpod_teams.synth import synthesize

for spec_path, out in zip(sys.argv[1::2], sys.argv[2::2], strict=True):
    synthesize(load_spec(spec_path), out)
from hyperpod_teams import engine

print("ENGINE", engine.chosen())
print("UNCHECKED", python_bindings.argument_type_checks_skipped())
print("DIRECT REQUESTS", bool(jsii_requests._originals))
print("DEFERRED ANSWERS", jsii_requests._deferred.deferred)
