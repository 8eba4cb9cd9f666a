"""`hyperpod-teams stacks`: the spec's stacks in deploy waves, and those a change touches (`--changed-
since`, `--changed-since-ref`).
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from hyperpod_teams.cli.common import (
    SPEC_ARGUMENT,
    engine_option,
    format_option,
    load_platform_or_exit,
    out_option,
    overlap,
    user_error,
)
from hyperpod_teams.cli.group import cli
from hyperpod_teams.cli.synth import synthesize_or_exit
from hyperpod_teams.spec import PlatformSpec, SpecError, load_platform
from hyperpod_teams.spec.clusters import SeveralClusters, organization_of


@cli.command()
@SPEC_ARGUMENT
@click.option(
    "--changed-since",
    "old_out_dir",
    metavar="OLD_OUT_DIR",
    type=click.Path(file_okay=False, path_type=Path),
    help="A previous synth output (e.g. the last deploy's cdktf.out): list only the stacks whose document "
    "changed since, and those that depend on them.",
)
@click.option(
    "--changed-since-ref",
    "git_ref",
    metavar="GIT_REF",
    help="List only the stacks that changed since SPEC as of this git commit or branch (synthesized by this "
    "version of hyperpod-teams), and those that depend on them.",
)
@out_option("Where the change detection synthesizes SPEC (as `synth` does); the pipeline's jobs plan from it.")
@format_option(
    "text",
    "json",
    help_text='json: {"stacks": [...], "waves": [[...], ...], "changed": [...], "removed": [...], "unchanged": N, '
    '"region": "<the spec\'s>"}, for a CI matrix.',
)
@engine_option
def stacks(
    spec_path: Path,
    old_out_dir: Path | None,
    git_ref: str | None,
    out_dir: Path,
    output_format: str,
    engine_name: str | None,
) -> None:
    """List SPEC's stacks in deploy waves; with --changed-since or --changed-since-ref, only those a
    change touches.

    A stack is listed when its synthesized document differs from the old one (or is new), and so is
    every stack that depends on it. Waves: a wave's stacks plan and deploy in parallel, after the
    waves before it. Stacks the old output has and SPEC no longer has are listed as removed: nothing
    plans or destroys them. Without either option nothing is synthesized (milliseconds).

    \b
    In a pipeline (examples/pipelines/):
      hyperpod-teams stacks teams.yaml --changed-since-ref origin/main --format json > stacks.json
    """
    from hyperpod_teams import stack_changes

    if old_out_dir is not None and git_ref is not None:
        raise click.UsageError("give --changed-since or --changed-since-ref, not both")
    if old_out_dir is not None and overlap(out_dir, old_out_dir):
        user_error(
            f"--out {out_dir} would write into the output --changed-since compares against ({old_out_dir}); "
            "give --out another folder, e.g. --out cdktf.new"
        )
    spec = load_platform_or_exit(spec_path)
    if old_out_dir is None and git_ref is None:
        from hyperpod_teams.stack_plan import deploy_waves, planned_stacks

        waves = [[s.name for s in wave] for wave in deploy_waves(planned_stacks(spec))]
        selection = stack_changes.Selection(waves, changed=sorted(n for wave in waves for n in wave))
    else:
        import tempfile

        with tempfile.TemporaryDirectory(prefix="hyperpod-teams-stacks-") as scratch:
            old: dict[str, dict] = {}  # the spec is new since the ref: every stack is
            try:
                if git_ref is not None:
                    old_spec = _spec_at_ref(spec_path, git_ref, Path(scratch))
                    if old_spec is not None:
                        old_out_dir = Path(scratch) / "old.out"
                        synthesize_or_exit(old_spec, old_out_dir, f"{spec_path} as of {git_ref}", engine_name)
                if old_out_dir is not None:
                    old, _ = stack_changes.read_output(old_out_dir)
                synthesize_or_exit(spec, out_dir, str(spec_path), engine_name)
                selection = stack_changes.changed_stacks(old, out_dir)
            except stack_changes.SynthOutputError as error:
                user_error(str(error))
    if output_format == "json":
        # The spec's region too: a pipeline's jobs take their AWS credentials there.
        org = organization_of(spec)
        click.echo(json.dumps({**selection.as_json(), "region": org.organization.region}, indent=2))
    else:
        click.echo(stack_changes.render_text(selection))


def _spec_at_ref(spec_path: Path, git_ref: str, scratch: Path) -> PlatformSpec | SeveralClusters | None:
    """SPEC as of a git commit, or None when the file did not exist there."""
    import subprocess

    folder = spec_path.resolve().parent
    try:
        shown = subprocess.run(
            ["git", "-C", str(folder), "show", f"{git_ref}:./{spec_path.name}"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        user_error(f"--changed-since-ref needs git: {error}")
    if shown.returncode != 0:
        message = shown.stderr.strip()
        if "exists on disk, but not in" in message or "does not exist in" in message:
            return None
        user_error(f"cannot read {spec_path} as of {git_ref!r}: {message or 'git show failed'}")
    old_path = scratch / f"old{spec_path.suffix}"
    old_path.write_text(shown.stdout)
    try:
        return load_platform(old_path)
    except SpecError as error:
        user_error(
            f"{spec_path} as of {git_ref} is not a valid spec, so what changed cannot be told:\n{error.render()}"
        )
