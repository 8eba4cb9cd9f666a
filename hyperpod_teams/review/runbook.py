"""The procedure that deploys a spec (`hyperpod-teams runbook`, Markdown): the stacks in order with the
credentials each needs, the manual steps between them, and the day-2 changes. Its sections are in
`runbook_deploy`, `runbook_work` and `runbook_day2`; what they share in `runbook_base`.

Pure layer: no cdktf.
"""

from __future__ import annotations

from hyperpod_teams.document import Document, Heading, Items
from hyperpod_teams.review.runbook_base import RUNBOOK_CLI, Runbook, engine_cli
from hyperpod_teams.review.runbook_day2 import (  # noqa: F401 - the runbook's names, as ever
    COST_CATEGORY_PROVIDER_BUG,
    KEPT_ON_REMOVAL,
    add_a_team_section,
    cost_category_repair_command,
    cost_category_repair_section,
    keep_out_of_state_command,
    kept_on_removal,
    remove_a_team_section,
)
from hyperpod_teams.review.runbook_deploy import (
    after_first_deployment,
    cluster_and_team_steps,
    deploy_order_section,
    identity_steps,
    intro_section,
)
from hyperpod_teams.review.runbook_work import add_ons_section, submit_a_job_section
from hyperpod_teams.spec.models import PlatformSpec


def build_runbook(spec: PlatformSpec, *, spec_path: str = "teams.yaml") -> Document:
    token = RUNBOOK_CLI.set(engine_cli(spec))
    try:
        return _build_runbook(spec, spec_path)
    finally:
        RUNBOOK_CLI.reset(token)


def _build_runbook(spec: PlatformSpec, spec_path: str) -> Document:
    r = Runbook.of(spec, spec_path)
    document = Document(f"Runbook: {spec.organization.name} on {spec.cluster.name}")
    intro_section(document, r)
    deploy_order_section(document, r)
    document.add(Heading("First deployment"))
    document.add(Items(identity_steps(r) + cluster_and_team_steps(r), ordered=True))
    after_first_deployment(document, r)
    submit_a_job_section(document, r)
    add_ons_section(document, r)
    add_a_team_section(document, r)
    remove_a_team_section(document, r)
    document.add(*cost_category_repair_section(spec))
    return document


def render_runbook(spec: PlatformSpec, *, spec_path: str = "teams.yaml") -> str:
    from hyperpod_teams.document import to_markdown

    return to_markdown(build_runbook(spec, spec_path=spec_path))
