"""The app that the cdktf CLI runs (`cdktf synth`, `cdktf deploy`), as cdktf.json names it.

The spec path comes from the environment variable HYPERPOD_TEAMS_SPEC when set, else from the
cdktf context key `hyperpod-teams:spec` in cdktf.json. The cdktf CLI chooses the output folder.
"""

from __future__ import annotations

import os
import sys

# jsii's Node 20 end-of-life banner would print on every `cdktf synth`; set before jsii loads.
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

from hyperpod_teams import speedups

speedups.enable()  # before jsii starts node; this process runs only the project's own stacks

import cdktf  # noqa: E402

from hyperpod_teams.app import add_platform_stacks  # noqa: E402
from hyperpod_teams.spec import SpecError, load_spec  # noqa: E402
from hyperpod_teams.spec.loading import SPEC_CONTEXT_KEY, SPEC_ENV  # noqa: E402


def main() -> None:
    app = cdktf.App()
    spec_path = os.environ.get(SPEC_ENV) or app.node.try_get_context(SPEC_CONTEXT_KEY)
    if not spec_path:
        sys.exit(f"no spec: set {SPEC_ENV} or the context key {SPEC_CONTEXT_KEY!r} in cdktf.json")
    try:
        spec = load_spec(spec_path)
    except SpecError as error:
        print(error.render(), file=sys.stderr)
        sys.exit(2)
    add_platform_stacks(app, spec)
    app.synth()


if __name__ == "__main__":
    main()
