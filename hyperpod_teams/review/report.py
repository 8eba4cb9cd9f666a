"""The team-centred review of a spec (`hyperpod-teams report`): for each team, who gets in and with
which role, what it may run and where, what it costs; the plans' changes and alerts; the manual
steps. Its sections are in `report_access`, `report_compute`, `report_chart` and `report_cost`; this
module builds the document and renders it.

Pure layer: no cdktf.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hyperpod_teams.adoption import existing_resources, ways_explained
from hyperpod_teams.document import (
    Alert,
    Code,
    Document,
    Heading,
    Items,
    Paragraph,
    Table,
    md_code,
)
from hyperpod_teams.review.plan_summary import StackPlan, plan_section
from hyperpod_teams.review.report_access import RoleAccess, access_matrix, access_section, journeys_section  # noqa: F401 - the report's names, as ever
from hyperpod_teams.review.report_chart import (  # noqa: F401 - the report's names, as ever
    CHART_TEAMS,
    TEAM_COLOURS,
    UNALLOCATED_COLOUR,
    InstanceTypeShares,
    chart_colours,
    chart_series,
)
from hyperpod_teams.review.report_compute import amount_of, compute_section, compute_shares, what_a_team_runs  # noqa: F401
from hyperpod_teams.review.report_cost import cost_section
from hyperpod_teams.review.report_shown import COMMENT_LIMIT, COMPACT_TEAMS, rendered, teams_shown  # noqa: F401 - the report's names, as ever
from hyperpod_teams.spec.models import PlatformSpec
from hyperpod_teams.stack_plan import identity_plugin

#: A failed plan's output shown in the report: its last lines, at most this many characters.
FAILED_PLAN_TAIL = 2_000


#: Failed plans shown with their output; those after these are named only.
FAILED_PLANS_SHOWN = 10


@dataclass(frozen=True)
class FailedPlan:
    """A stack whose plan failed in the pipeline, with what Terraform said."""

    stack: str
    output: str

    @property
    def tail(self) -> str:
        """The output's last lines as text a reader sees: terminal colour sequences and other control
        characters (which a report would carry raw into a terminal or a page) taken out."""
        lines = _printable(self.output).rstrip().splitlines()[-40:]
        text = "\n".join(lines)
        return text[-FAILED_PLAN_TAIL:]


#: ANSI escape sequences (CSI and OSC, as Terraform's coloured output writes them), then any other
#: control character but tab and line ends.
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b.?")


_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def _printable(text: str) -> str:
    return _CONTROLS.sub("", _ESCAPES.sub("", text.replace("\r\n", "\n")))


def build_report(
    spec: PlatformSpec,
    plans: list[StackPlan] | None = None,
    *,
    chart: bool = False,
    max_teams: int | None = None,
    failed: list[FailedPlan] | None = None,
    new_lock_files: list[str] | None = None,
) -> Document:
    """The report as a document; `chart` adds the capacity chart (HTML only); `max_teams` keeps the
    per-team details to the first teams (a Markdown report that must fit in a comment); `failed`
    lists the plans that failed first, `new_lock_files` the provider lock files to commit."""
    document = Document(f"hyperpod-teams: {spec.organization.name} on {spec.cluster.name}")
    failed_plans_section(document, failed or [], compact=max_teams is not None)
    _overview_section(document, spec)
    if new_lock_files:
        lock_files_section(document, new_lock_files)
    _existing_section(document, spec)
    if plans:
        document.add(*plan_section(plans, spec, max_rows=None if max_teams is None else 50))
    shown, hidden = teams_shown(spec.teams, max_teams)
    access_section(document, spec, shown, hidden)
    journeys_section(document, spec)
    compute_section(document, spec, shown, hidden, max_teams=max_teams, chart=chart)
    cost_section(document, spec, shown, hidden)
    _manual_steps_section(document, spec)
    return document


def lock_files_section(document: Document, new_lock_files: list[str]) -> None:
    document.add(
        Heading("Provider lock files to commit"),
        Paragraph(
            "These stacks' first plans wrote a lock file; commit each to `ci/terraform-locks/` (from the "
            "pipeline's plan artifacts) so that later runs install exactly these providers:"
        ),
        Items([md_code(name) for name in new_lock_files]),
    )


def failed_plans_section(document: Document, failed: list[FailedPlan], *, compact: bool) -> None:
    if not failed:
        return
    count = len(failed)
    document.add(
        Heading(f"{count} plan{'s' if count != 1 else ''} failed"),
        Alert(
            f"No plan for {', '.join(md_code(f.stack) for f in failed)}: what this report says of "
            f"{'these stacks' if count != 1 else 'this stack'} is not checked against a plan."
        ),
    )
    for shown in failed[: 0 if compact else FAILED_PLANS_SHOWN]:
        document.add(Paragraph(md_code(shown.stack)), Code(shown.tail, language="text"))


def _overview_section(document: Document, spec: PlatformSpec) -> None:
    org = spec.organization
    plugin = identity_plugin(spec)
    document.add(
        Paragraph(
            f"Account {md_code(org.account_id)}, region {md_code(org.region)}, identity provider "
            f"{md_code(plugin.name)} federated into "
            f"IAM Identity Center {md_code(spec.identity.identity_center.instance_arn)}; {len(spec.teams)} teams."
        )
    )
    if org.accounts is not None:
        payer = md_code(org.payer_account) if org.payer_account else "the account whose credentials run it"
        document.add(
            Paragraph(
                f"Accounts: the cluster and the teams in {md_code(org.account_id)}; Identity Center administered "
                f"in {md_code(org.identity_center_account)} (the permission sets, their assignments, the domains' "
                f"application assignments); cost allocation in {payer} (the cost category, the tags)."
            )
        )


def _existing_section(document: Document, spec: PlatformSpec) -> None:
    existing = existing_resources(spec)
    if existing:
        document.add(Heading("What exists already"))
        document.add(Paragraph(ways_explained(existing, emphasis="**")))
        document.add(
            Table(
                ["what", "existing", "the stacks", "spec field", "stack"],
                [[e.what, md_code(e.identifier), e.how, md_code(e.field), e.stack] for e in existing],
            )
        )


def _manual_steps_section(document: Document, spec: PlatformSpec) -> None:
    document.add(Heading("Manual steps still needed"))
    if identity_plugin(spec).creates_identity_center_groups:
        groups = [
            "IAM Identity Center: the access stack creates the team roles' groups itself; after its deploy, add "
            "their members there (and provision the users, by SCIM from the IdP or by hand).",
        ]
    else:
        groups = [
            "IAM Identity Center: enable automatic provisioning and give its SCIM endpoint and token to the IdP.",
            "Wait until every team group is provisioned before the access stack deploys.",
        ]
    document.add(
        Items(
            [
                "IAM Identity Center: switch the identity source to the external IdP (SAML metadata both ways).",
                *groups,
                "Billing: the cost allocation tags can be activated only once they appear, up to 24 hours "
                "after tagging.",
            ]
        )
    )
    document.add(
        Paragraph("`hyperpod-teams runbook` gives each step with its exact values and its place in the deploy order.")
    )


def render_report(
    spec: PlatformSpec,
    plans: list[StackPlan] | None = None,
    *,
    format: str = "markdown",
    failed: list[FailedPlan] | None = None,
    new_lock_files: list[str] | None = None,
) -> str:
    """The report; as Markdown, cut to fewer teams per section until it fits a pull-request comment
    (report_shown.rendered). A spec of several clusters: report_clusters.render_clusters_report."""

    def build(*, chart: bool = False, max_teams: int | None = None) -> Document:
        return build_report(spec, plans, chart=chart, max_teams=max_teams, failed=failed, new_lock_files=new_lock_files)

    return rendered(build, format)
