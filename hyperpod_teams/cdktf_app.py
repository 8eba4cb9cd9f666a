"""The app that the CLI of either engine runs (`cdktn synth`/`cdktn deploy`, or `cdktf ...`), as
cdktf.json names it (both CLIs read that file).

The spec path comes from the environment variable HYPERPOD_TEAMS_SPEC when set, else from the
context key `hyperpod-teams:spec` in cdktf.json. The engine is the one of hyperpod_teams.engine:
`--engine cdktf` after the module's name in cdktf.json's "app" (an app kept on the CDKTF CLI),
else HYPERPOD_TEAMS_ENGINE when set, else cdktn when installed. The CLI chooses the output folder.
"""

from __future__ import annotations

import os
import sys

from hyperpod_teams import engine, speedups

try:
    if sys.argv[1:2] == ["--engine"] and len(sys.argv) > 2:
        engine.use(sys.argv[2])
    engine.current()
except engine.EngineError as error:
    sys.exit(f"hyperpod-teams: {error}")
speedups.enable()  # before jsii starts node; this process runs only the project's own stacks

from hyperpod_teams.app import add_platform_stacks, add_several_clusters_stacks  # noqa: E402
from hyperpod_teams.engine import cdk  # noqa: E402
from hyperpod_teams.spec import PlatformSpec, SpecError, load_platform  # noqa: E402
from hyperpod_teams.spec.loading import SPEC_CONTEXT_KEY, SPEC_ENV  # noqa: E402


def main() -> None:
    app = cdk.App()
    spec_path = os.environ.get(SPEC_ENV) or app.node.try_get_context(SPEC_CONTEXT_KEY)
    if not spec_path:
        sys.exit(f"no spec: set {SPEC_ENV} or the context key {SPEC_CONTEXT_KEY!r} in cdktf.json")
    try:
        spec = load_platform(spec_path)
    except SpecError as error:
        print(error.render(), file=sys.stderr)
        sys.exit(2)
    if isinstance(spec, PlatformSpec):
        add_platform_stacks(app, spec)
    else:
        add_several_clusters_stacks(app, spec)
    app.synth()


if __name__ == "__main__":
    main()
