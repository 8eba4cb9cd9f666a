"""The `hyperpod-teams` command group and `--version`."""

from __future__ import annotations

import click

from hyperpod_teams.cli.common import installed_version, package_version
from hyperpod_teams.engine import ENGINES


def _version_message() -> str:
    """`--version`: this package, each engine with the provider versions its bindings pin (or
    that it is not installed), and jsii, all read from the installed distributions (no engine
    loaded)."""
    lines = [f"hyperpod-teams {package_version()}"]
    for engine in ENGINES.values():
        version = installed_version(engine.name)
        default = " (default)" if engine.name == "cdktn" else ""
        if version is None:
            lines.append(f"engine {engine.name}{default}: not installed ({engine.install})")
            continue
        providers = ", ".join(f"{name} {pin}" for name, pin in engine.provider_versions)
        lines.append(f"engine {engine.name} {version}{default}: providers {providers}")
    lines.append(f"jsii {installed_version('jsii') or 'not installed'}")
    return "\n".join(lines)


def _print_version(ctx: click.Context) -> None:
    click.echo(_version_message())
    ctx.exit()


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=lambda ctx, _param, value: _print_version(ctx) if value and not ctx.resilient_parsing else None,
    help="Show the version, the engines with the provider versions they pin, and jsii; then exit.",
)
def cli() -> None:
    """Compile a team spec into Terraform stacks for a SageMaker HyperPod EKS cluster that several
    ML teams share.

    A spec (YAML or JSON: docs/spec-reference.md; `hyperpod-teams schema` prints its JSON Schema)
    names the organization, the identity provider, the cluster and its instance groups, and each
    team's quota, studio and budget. From it come one Terraform stack per unit of credentials:
    <org>-identity (the IdP), <org>-access (IAM Identity Center), <org>-eks, <org>-hyperpod-deps
    and <org>-cluster (EKS, HyperPod), <org>-team-<team> and <org>-k8s-<team> per team, <org>-cost
    (payer account), and with cost.usage_reports <org>-usage-report and <org>-usage-operator
    (HyperPod's usage reporting).

    \b
    Typical use:
      hyperpod-teams validate teams.yaml
      hyperpod-teams synth teams.yaml --out cdktf.out
      hyperpod-teams runbook teams.yaml --out RUNBOOK.md     # deploy order and manual steps
      cd cdktf.out/stacks/acme-cluster && terraform init && terraform plan
      hyperpod-teams report teams.yaml --plan cdktf.out/stacks/acme-cluster/plan.json
      hyperpod-teams chargeback teams.yaml --usage summary-report.csv --cost 182450.17
    """
