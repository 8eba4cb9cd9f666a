"""`hyperpod-teams runbook`: the procedure that deploys a spec."""

from __future__ import annotations

from pathlib import Path

from hyperpod_teams.cli.common import (
    SPEC_ARGUMENT,
    check_out_file,
    file_out_option,
    load_platform_or_exit,
    write_output,
)
from hyperpod_teams.cli.group import cli
from hyperpod_teams.spec.clusters import SeveralClusters


@cli.command()
@SPEC_ARGUMENT
@file_out_option
def runbook(spec_path: Path, out_file: Path | None, force: bool) -> None:
    """Write the procedure that deploys SPEC (Markdown): the stacks in deploy order and which run
    in parallel, the manual steps in IAM Identity Center, the IdP and Billing with their exact
    values, how to add a team and how to remove one without losing its data."""
    check_out_file(out_file, force, spec_path)
    spec = load_platform_or_exit(spec_path)
    if isinstance(spec, SeveralClusters):
        from hyperpod_teams.document import to_markdown
        from hyperpod_teams.review.report_clusters import build_clusters_runbook

        write_output(to_markdown(build_clusters_runbook(spec)), out_file)
        return
    from hyperpod_teams.review.runbook import render_runbook

    write_output(render_runbook(spec, spec_path=str(spec_path)), out_file)
