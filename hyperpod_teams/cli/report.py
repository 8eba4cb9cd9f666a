"""`hyperpod-teams report`: the team-centred review of a spec, with its plans."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from hyperpod_teams.cli.common import (
    EXIT_INVALID_SPEC,
    SPEC_ARGUMENT,
    check_out_file,
    file_out_option,
    format_option,
    load_platform_or_exit,
    stderr,
    write_output,
)
from hyperpod_teams.cli.group import cli
from hyperpod_teams.input_files import NotAFile, TooLarge, read_at_most
from hyperpod_teams.spec.clusters import SeveralClusters


@cli.command()
@SPEC_ARGUMENT
@format_option(
    "markdown",
    "html",
    help_text="Markdown renders as a pull-request comment; HTML is one self-contained page with a capacity chart.",
)
@file_out_option
@click.option(
    "--plan",
    "plans",
    multiple=True,
    metavar="[STACK=]PLAN_JSON",
    help="A stack's plan as `terraform show -json` writes it; repeat for several stacks. The stack is "
    "STACK, else the plan's folder or file name (cdktf.out/stacks/<stack>/plan.json).",
)
@click.option(
    "--failed-plan",
    "failed_plans",
    multiple=True,
    metavar="[STACK=]OUTPUT_FILE",
    help="A stack whose plan failed, with Terraform's output (the stack: STACK, else the file's name "
    "without its suffix, plans/acme-team-nlp.failed); listed first with the output's last lines.",
)
@click.option(
    "--new-lock-file",
    "new_lock_files",
    multiple=True,
    metavar="FILE",
    help="A provider lock file a first plan wrote, to commit (listed by name).",
)
def report(
    spec_path: Path,
    output_format: str,
    out_file: Path | None,
    force: bool,
    plans: tuple[str, ...],
    failed_plans: tuple[str, ...],
    new_lock_files: tuple[str, ...],
) -> None:
    """Write the team-centred review of SPEC: who gets in and may do what, each team's compute,
    where its spend goes; with --plan, the changes by stack and team, deletions first, and a
    warning for any SageMaker domain, HyperPod or EKS cluster or lifecycle bucket that would go.

    \b
    Example, after `cdktn synth` and a plan per stack:
      terraform -chdir=cdktf.out/stacks/acme-team-nlp show -json plan.tfplan > cdktf.out/stacks/acme-team-nlp/plan.json
      hyperpod-teams report teams.yaml --plan cdktf.out/stacks/acme-team-nlp/plan.json > report.md
    """
    check_out_file(out_file, force, spec_path, *(Path(p.rpartition("=")[2]) for p in (*plans, *failed_plans)))
    platform = load_platform_or_exit(spec_path)
    from hyperpod_teams.review.plan_summary import read_plan
    from hyperpod_teams.review.report import FailedPlan, render_report
    from hyperpod_teams.stack_plan import planned_stacks

    known = {stack.name for stack in planned_stacks(platform)}
    read = []
    for argument in plans:
        try:
            read.append(read_plan(argument, known))
        except (OSError, ValueError) as error:  # json.JSONDecodeError is a ValueError
            stderr.print(f"error: --plan {argument}: {error}", markup=False)
            sys.exit(EXIT_INVALID_SPEC)
    failed = []
    for argument in failed_plans:
        stack, _, file_name = argument.rpartition("=")
        path = Path(file_name)
        try:
            output = read_at_most(path, 10_000_000).decode("utf-8", errors="replace")
        except (OSError, NotAFile, TooLarge) as error:
            stderr.print(f"error: --failed-plan {argument}: {error}", markup=False)
            sys.exit(EXIT_INVALID_SPEC)
        failed.append(FailedPlan(stack or path.stem, output))
    lock_files = [Path(f).name for f in new_lock_files]
    if isinstance(platform, SeveralClusters):
        from hyperpod_teams.review.report_clusters import render_clusters_report

        text = render_clusters_report(platform, read, format=output_format, failed=failed, new_lock_files=lock_files)
    else:
        text = render_report(platform, read, format=output_format, failed=failed, new_lock_files=lock_files)
    write_output(text, out_file)
