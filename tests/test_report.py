"""The team-centred report: access matrix, compute, cost attribution, and the plan summary on real
plans made offline by terraform against the real AWS provider. Pure except the plan fixtures."""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
from decimal import Decimal
from typing import Any

import pytest

from hyperpod_teams import naming
from hyperpod_teams.review.plan_summary import StackPlan, changes, read_plan
from hyperpod_teams.review.report import compute_shares, render_report
from hyperpod_teams.spec import load_spec
from tests.conftest import EXAMPLE_SPECS, QUICKSTART


@pytest.fixture(scope="module")
def quickstart():
    return load_spec(QUICKSTART)


@pytest.mark.parametrize("path", EXAMPLE_SPECS, ids=lambda p: p.parent.name)
def test_the_report_names_every_team_role_with_its_whole_access_chain(path):
    spec = load_spec(path)
    text = render_report(spec)
    org = spec.organization.name
    for team in spec.teams:
        # The team's own section: one column per role, one row per link of the chain.
        section = text[text.index(f"`{team.name}`)\n" if team.display_name else f"### Team `{team.name}`") :]
        section = section[: section.index("\n\n", section.index("| may, in Kubernetes |"))]
        assert section.splitlines()[2].startswith("|  | scientists | admins |"), section
        for role_index, role in enumerate(naming.ROLES):
            for label, part in (
                ("IdP group", naming.team_group_name(spec.identity.group_name_pattern, org, team, role)),
                ("permission set", naming.team_permission_set_name(org, team, role)),
                ("Kubernetes group", naming.team_kubernetes_group(team.name, role)),
                ("namespace", naming.team_namespace(team.name)),
            ):
                row = next(line for line in section.splitlines() if line.startswith(f"| {label} |"))
                assert row.rstrip(" |").split(" | ")[1 + role_index] == f"`{part}`", (label, role, row)


def test_the_compute_table_shows_capacity_every_guarantee_and_what_is_left(quickstart):
    text = render_report(quickstart)
    assert "| team | `ml.p5.48xlarge` | `ml.c5.4xlarge` |" in text
    assert "| nlp | 4 | 2 |" in text and "| vision | 3 | 0 |" in text and "| research | 0 | 2 |" in text
    assert "| **unallocated** | 1 | 0 |" in text and "| **capacity** | 8 | 4 |" in text
    assert "| nlp | LendAndBorrow | 50 % | 60 | yes |" in text
    assert "| vision | Lend | – | 40 | never |" in text
    assert "`inference-priority` (90), `training-priority` (70), `experimentation-priority` (30)" in text


def test_compute_shares_add_up_per_instance_type(quickstart):
    shares = {s.instance_type: s for s in compute_shares(quickstart)}
    assert shares["ml.p5.48xlarge"].guaranteed == {"nlp": 4, "vision": 3}
    assert shares["ml.p5.48xlarge"].unallocated == 1 and shares["ml.c5.4xlarge"].unallocated == 0


def test_the_cost_table_shows_each_teams_tags_category_and_budget(quickstart):
    text = render_report(quickstart)
    nlp = next(line for line in text.splitlines() if line.startswith("| nlp | `hyperpod-teams:organization=acme`"))
    assert (
        "`hyperpod-teams:cost-center=CC-1001`" in nlp
        and "25000 USD" in nlp
        and "80 %, 100 % → `nlp-leads@example.com`" in nlp
    )
    vision = next(
        line for line in text.splitlines() if line.startswith("| vision | `hyperpod-teams:organization=acme`")
    )
    assert "18000 USD" in vision and "finance@example.com" in vision
    research = next(
        line for line in text.splitlines() if line.startswith("| research | `hyperpod-teams:organization=acme`")
    )
    # research guarantees no accelerated capacity: no share of the shared cluster, no budget
    assert research.endswith("| none | – |")
    assert "| none: its quota (ml.c5.4xlarge) holds no accelerators" in research
    # Each share says why: the accelerators each team guarantees (the quickstart's 32 and 24 of 56).
    assert (
        "57.14 % (32 of 56 accelerators guaranteed)" in nlp and "42.86 % (24 of 56 accelerators guaranteed)" in vision
    )
    assert "cost category `acme-hyperpod-team`" in text and "`unattributed`" in text


def test_the_html_report_is_one_self_contained_page_with_the_capacity_chart(quickstart):
    page = render_report(quickstart, format="html")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    image = re.search(r'<img[^>]* alt="[^"]+" src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]{1000,})">', page)
    assert image, "no embedded chart"
    chart = base64.b64decode(image.group(1)).decode()
    for team in ("nlp", "vision", "research", "unallocated"):
        assert f">{team}<" in chart  # the legend
    assert not re.search(r'(src|href)="(https?:)?//', page + chart), "the page must not load anything"
    assert "<script" not in page + chart
    assert render_report(quickstart, format="html") == page  # the same spec gives the same bytes
    assert '<td data-label="team">nlp</td>' in page and "<code>hyperpod-ns-vision</code>" in page


# --- plan summary on real offline plans ------------------------------------------------------


@pytest.fixture(scope="module")
def team_plans(quickstart_stacks, tmp_path_factory) -> dict[str, Any]:
    """Two real plans of `acme-team-nlp`: the first (create only), and one against a state in which
    the domain sits in another VPC, so Terraform must replace it."""
    from tests.offline_terraform import offline_plan_config, stub_remote_states, terraform_or_skip, write_stack

    tmp = tmp_path_factory.mktemp("plans")
    terraform = terraform_or_skip(tmp)
    stack = offline_plan_config(quickstart_stacks["acme-team-nlp"])
    for body in stack["resource"]["aws_sagemaker_domain"].values():
        body.pop("lifecycle")  # prevent_destroy would stop the plan; the report must still warn loudly
    directory = write_stack(tmp, "acme-team-nlp", stack)
    stub_remote_states(directory, stack)

    def plan(name: str, *args: str) -> dict:
        found = terraform.plan(directory, *args, name=name)
        assert isinstance(found, dict), found
        return found

    first = plan("first")
    (domain,) = [r for r in first["planned_values"]["root_module"]["resources"] if r["type"] == "aws_sagemaker_domain"]
    attributes = {
        **domain["values"],
        "id": "d-offline00000",
        "arn": "arn:aws:sagemaker:us-west-2:111122223333:domain/d-offline00000",
        "vpc_id": "vpc-0999999999999999a",
    }
    state = {
        "version": 4,
        "terraform_version": "1.11.0",
        "serial": 1,
        "lineage": "offline-report-test",
        "outputs": {},
        "resources": [
            {
                "mode": "managed",
                "type": "aws_sagemaker_domain",
                "name": domain["name"],
                "provider": 'provider["registry.terraform.io/hashicorp/aws"]',
                "instances": [
                    {
                        "schema_version": domain.get("schema_version", 0),
                        "attributes": attributes,
                        "sensitive_attributes": [],
                    }
                ],
            }
        ],
    }
    (directory / "terraform.tfstate").write_text(json.dumps(state))
    replaced = plan("replaced", "-refresh=false")  # nothing to read from AWS: the state is the truth
    (directory / "replaced.json").write_text(json.dumps(replaced))
    return {"first": first, "replaced": replaced, "replaced_path": str(directory / "replaced.json")}


@pytest.mark.terraform
def test_a_first_plan_only_creates_and_the_summary_says_nothing_goes(team_plans, quickstart):
    found = changes([StackPlan("acme-team-nlp", team_plans["first"])], quickstart)
    assert found and {c.action for c in found} == {"create"}
    text = render_report(quickstart, [StackPlan("acme-team-nlp", team_plans["first"])])
    assert "Nothing is deleted or replaced." in text and "[!WARNING]" not in text


@pytest.mark.terraform
def test_a_replaced_domain_comes_first_with_its_cause_and_a_loud_warning(team_plans, quickstart):
    found = changes([StackPlan("acme-team-nlp", team_plans["replaced"])], quickstart)
    first = found[0]
    assert first.action == "replace" and first.address.startswith("aws_sagemaker_domain.")
    # The stand-in state has the domain but not its key, so the key (known only after apply) forces too.
    assert "vpc_id" in first.forced_by and set(first.forced_by) <= {"vpc_id", "kms_key_id"}
    assert first.team == "nlp"
    assert first.protected and first.protected.startswith("SageMaker AI domain")
    text = render_report(quickstart, [StackPlan("acme-team-nlp", team_plans["replaced"])])
    warning = next(line for line in text.splitlines() if line.startswith("> **"))
    assert "acme-team-nlp" in warning and "REPLACED" in warning and "vpc_id" in warning
    assert text.index("Deletions and replacements") < text.index("Updates and creations")
    assert f"| nlp | acme-team-nlp | 0 | 1 | 0 | {sum(c.action == 'update' for c in found)} |" in text


@pytest.mark.terraform
def test_the_stack_of_a_plan_file_comes_from_its_folder(team_plans, quickstart):
    known = {naming.team_stack_name("acme", "nlp")}
    assert read_plan(team_plans["replaced_path"], known).stack == "acme-team-nlp"
    assert read_plan(f"acme-team-nlp={team_plans['replaced_path']}", set()).stack == "acme-team-nlp"


def test_a_file_that_is_not_a_plan_is_an_error_that_says_how_to_make_one(tmp_path):
    (tmp_path / "x.json").write_text('{"format_version": "1.0"}')
    result = subprocess.run(
        [sys.executable, "-m", "hyperpod_teams", "report", str(QUICKSTART), "--plan", str(tmp_path / "x.json")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2 and "terraform show -json" in result.stderr and "Traceback" not in result.stderr


def test_report_writes_to_a_file_with_out(tmp_path):
    out = tmp_path / "report.md"
    result = subprocess.run(
        [sys.executable, "-m", "hyperpod_teams", "report", str(QUICKSTART), "--out", str(out)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert out.read_text().startswith("# hyperpod-teams: acme on ml-shared")


def test_the_chart_names_the_largest_teams_and_groups_the_rest_without_losing_a_node():
    from hyperpod_teams.review.report import CHART_TEAMS, InstanceTypeShares, chart_series

    teams = [f"t{i:02d}" for i in range(30)]
    shares = [InstanceTypeShares("ml.p5.48xlarge", 100, {t: Decimal(1 + i % 3) for i, t in enumerate(teams)})]
    series = chart_series(shares, teams)
    labels = [label for label, _ in series]
    assert len(labels) == CHART_TEAMS + 2 and labels[-2:] == [f"{30 - CHART_TEAMS} other teams", "unallocated"]
    named = [counts[0] for _, counts in series[:CHART_TEAMS]]
    assert named == sorted(named, reverse=True) and named[0] == 3  # the largest guarantees come first
    assert sum(counts[0] for _, counts in series) == 100  # every node is in exactly one segment


@pytest.mark.parametrize(
    ("resource_type", "body", "kind"),
    [
        ("aws_sagemaker_domain", {}, "SageMaker AI domain"),
        ("aws_eks_cluster", {}, "EKS cluster"),
        ("aws_cloudcontrolapi_resource", {"type_name": "AWS::SageMaker::Cluster"}, "HyperPod cluster"),
        ("aws_s3_bucket", {}, "lifecycle scripts bucket"),
        # Task governance deletes a team's namespace and queue with its quota (#43).
        ("aws_cloudcontrolapi_resource", {"type_name": "AWS::SageMaker::ComputeQuota"}, "compute quota"),
        ("aws_cloudcontrolapi_resource", {"type_name": "AWS::SageMaker::ClusterSchedulerConfig"}, "scheduler config"),
        ("aws_kms_key", {}, "KMS key"),
        ("kubernetes_namespace_v1", {}, "Kubernetes namespace"),
        ("aws_iam_role", {}, None),
    ],
)
def test_what_must_never_go_by_accident_is_recognized(resource_type, body, kind):
    from hyperpod_teams.review.plan_summary import protected_kind

    address = (
        f"{resource_type}.lifecycle-scripts_bucket_1" if resource_type == "aws_s3_bucket" else f"{resource_type}.x"
    )
    change = {
        "type": resource_type,
        "address": address,
        "change": {"actions": ["delete"], "before": body, "after": None},
    }
    found = protected_kind(change)
    if kind is None:
        assert found is None
    else:
        assert found is not None and found.startswith(kind)


def test_every_segment_of_the_chart_has_a_colour_of_its_own():
    from hyperpod_teams.review.report import CHART_TEAMS, InstanceTypeShares, chart_colours, chart_series

    for count in (3, CHART_TEAMS, CHART_TEAMS + 1, 40):
        teams = [f"t{i:02d}" for i in range(count)]
        series = chart_series([InstanceTypeShares("ml.p5.48xlarge", 200, dict.fromkeys(teams, Decimal(1)))], teams)
        colours = chart_colours(series)
        assert len(set(colours)) == len(colours) == len(series), (count, colours)


# --- plans that failed in the pipeline ---------------------------------------------------------------


def test_a_failed_plan_is_named_before_anything_else_with_the_end_of_terraforms_output(quickstart):
    from hyperpod_teams.review.report import FailedPlan

    output = "\n".join(f"line {i}" for i in range(500)) + "\nError: Failed to install provider\n"
    text = render_report(quickstart, [], failed=[FailedPlan("acme-k8s-nlp", output)])
    head = text[: text.index("Account ")]
    assert "1 plan failed" in head and "`acme-k8s-nlp`" in head
    assert "Error: Failed to install provider" in head and "line 10\n" not in head  # the end, not all


def test_many_failed_plans_still_fit_one_comment(quickstart):
    from hyperpod_teams.review.report import COMMENT_LIMIT, FailedPlan

    failed = [FailedPlan(f"acme-team-t{i:03d}", "x" * 10_000 + "\nError: boom") for i in range(300)]
    text = render_report(quickstart, [], failed=failed)
    assert len(text) <= COMMENT_LIMIT
    assert all(f"`acme-team-t{i:03d}`" in text for i in range(300))  # every one named


def test_the_report_command_takes_failed_plans_and_new_lock_files(tmp_path):
    failed = tmp_path / "acme-identity.failed"
    failed.write_text("Error: Invalid value for variable\n")
    lock = tmp_path / "acme-cost.terraform.lock.hcl"
    lock.write_text("# lock\n")
    done = subprocess.run(
        [sys.executable, "-m", "hyperpod_teams", "report", str(QUICKSTART), "--failed-plan", str(failed),
         "--new-lock-file", str(lock)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "`acme-identity`" in done.stdout and "Invalid value for variable" in done.stdout
    assert "acme-cost.terraform.lock.hcl" in done.stdout
    missing = subprocess.run(
        [sys.executable, "-m", "hyperpod_teams", "report", str(QUICKSTART), "--failed-plan", str(tmp_path / "none")],
        capture_output=True, text=True,
    )  # fmt: skip
    assert missing.returncode == 2 and "--failed-plan" in missing.stderr and "Traceback" not in missing.stderr


def test_each_phone_cell_label_reads_as_its_header_once_an_html_parser_decodes_it():
    """The phone layout labels each cell with its column's header (data-label, shown by CSS): escaped
    twice, a phone showed `teams&#x27; quota`. The labels as an HTML parser (the browser's view) reads
    them are the headers' text."""
    from html.parser import HTMLParser

    from hyperpod_teams.document import Document, Table, to_html

    headers = ["teams' quota", "`code` <b>", "a & b"]
    document = Document("t")
    document.add(Table(headers, [["1", "2", "3"]]))
    labels: list[str] = []

    class Labels(HTMLParser):
        def handle_starttag(self, tag, attrs):
            labels.extend(value for name, value in attrs if name == "data-label")

    Labels().feed(to_html(document))
    assert labels == ["teams' quota", "code <b>", "a & b"]


def test_the_charts_first_eight_teams_each_get_a_hue_of_their_own():
    """Neighbouring teams were light and dark of one hue (the first two: two blues). The first eight
    colours now differ in hue by 15 degrees at least (HSV, as colorsys computes it)."""
    import colorsys

    from hyperpod_teams.review.report import TEAM_COLOURS

    def hue(colour: str) -> float:
        red, green, blue = (int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
        return colorsys.rgb_to_hsv(red, green, blue)[0] * 360

    hues = [hue(c) for c in TEAM_COLOURS[:8]]
    gaps = [min(abs(a - b), 360 - abs(a - b)) for i, a in enumerate(hues) for b in hues[i + 1 :]]
    assert min(gaps) >= 15, [round(h) for h in hues]
    assert len(set(TEAM_COLOURS)) == len(TEAM_COLOURS)
