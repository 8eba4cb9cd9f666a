"""What the Helm releases of the stacks share: a chart read from a local clone must be there."""

from __future__ import annotations

import json

from hyperpod_teams.engine import cdk


def hcl_string_content(text: str) -> str:
    """`text` as the inside of an HCL quoted string: JSON's escapes, and `${` / `%{` doubled so
    that nothing in it is read as a template."""
    return json.dumps(text)[1:-1].replace("${", "$${").replace("%{", "%%{")


def chart_is_cloned(chart_dir: str, error_message: str) -> cdk.Precondition:
    """Stop the plan with `error_message` (the clone command) unless `chart_dir`, relative to the
    stack's folder, holds a Helm chart.

    A lifecycle condition must refer to something of the configuration, or Terraform refuses the
    whole stack at `init` ("Invalid precondition expression"): the path is read from `path.module`,
    which in a root module is the folder Terraform runs in, the one the chart path is relative to.
    The expression is written out whole: cdktf would escape `${path.module}` inside `Fn.fileexists`.
    """
    chart_file = hcl_string_content(f"{chart_dir.rstrip('/')}/Chart.yaml")
    return cdk.Precondition(
        condition='${fileexists("${path.module}/' + chart_file + '")}',
        error_message=error_message,
    )
