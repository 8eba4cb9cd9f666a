import sys
from pathlib import Path
from hyperpod_teams.app import build_app

Path(sys.argv[2]).parent.mkdir(parents=True, exist_ok=True)
from hyperpod_teams.spec import load_spec

for spec_path, out in zip(sys.argv[1::2], sys.argv[2::2], strict=True):
    build_app(load_spec(spec_path), outdir=out).synth()
import importlib

from hyperpod_teams import engine

aws = engine.current().provider_package("aws")
importlib.import_module(aws)
print("SUBMODULES", sum(1 for m in sys.modules if m.startswith(f"{aws}.")))
