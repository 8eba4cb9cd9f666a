"""What every section of the runbook uses: the engine's CLI, the commands that deploy a stack, and the
runbook being written.

Pure layer.
"""

from __future__ import annotations

import contextvars
import re
import shlex
from dataclasses import dataclass

from hyperpod_teams import naming
from hyperpod_teams.adoption import Existing, existing_resources
from hyperpod_teams.plugins import IdentityProviderPlugin
from hyperpod_teams.spec.loading import SPEC_ENV
from hyperpod_teams.spec.models import PlatformSpec
from hyperpod_teams.stack_plan import PlannedStack, identity_groups, identity_plugin, stack_plan

#: The engine CLI of the runbook being written (build_runbook sets it).
RUNBOOK_CLI: contextvars.ContextVar[str] = contextvars.ContextVar("engine_cli", default="cdktn")


def engine_cli(spec: PlatformSpec) -> str:
    """The CLI that deploys `spec`'s stacks: `cdktn`, or `cdktf` for an identity-provider plugin
    that registered bindings of the CDKTF engine only (hyperpod_teams.bindings.register; none of the
    built-in ones since Okta builds on both)."""
    from hyperpod_teams import bindings

    identity_plugin(spec)  # loaded: its bindings registered, with their engines
    return "cdktf" if bindings.ENGINES.get(spec.identity.provider) == ("cdktf",) else "cdktn"


def engine_command(spec_path: str, command: str) -> str:
    """An engine CLI command on the user's spec: the CLI runs the app (cdktf.json's `app`), which
    reads the spec from HYPERPOD_TEAMS_SPEC before cdktf.json's context key (this repository's
    names the quickstart)."""
    return f"{SPEC_ENV}={shlex.quote(spec_path)} {RUNBOOK_CLI.get()} {command}"


def naming_the_spec(step: str, spec_path: str) -> str:
    """A plugin's step with its engine CLI commands naming the spec, as the runbook's own do."""
    prefix = f"{SPEC_ENV}={shlex.quote(spec_path)} "
    return re.sub(r"(?<![\w=-])cdkt[fn] (deploy|diff|output|destroy)\b", lambda m: prefix + m[0], step)


def deploy_command(spec_path: str, *stacks: str) -> str:
    """The deploy command of a step. The stacks of earlier steps are deployed already, which
    cdktf cannot know: it would refuse a stack whose dependencies the command does not name."""
    parallel = f" --parallelism {min(len(stacks), 10)}" if len(stacks) > 1 else ""
    return engine_command(
        spec_path, f"deploy {' '.join(stacks)}{parallel} --ignore-missing-stack-dependencies --auto-approve"
    )


@dataclass(frozen=True)
class Runbook:
    """What the runbook's sections share: the spec, where it is, its stacks and their names."""

    spec: PlatformSpec
    spec_path: str
    plugin: IdentityProviderPlugin
    stacks: list[PlannedStack]
    identity: str | None
    access: str
    cost_stack: str
    groups: dict
    existing: list[Existing]

    @classmethod
    def of(cls, spec: PlatformSpec, spec_path: str) -> Runbook:
        org = spec.organization.name
        plugin = identity_plugin(spec)
        return cls(
            spec,
            spec_path,
            plugin,
            stack_plan(spec),
            naming.identity_stack_name(org) if plugin.needs_identity_stack else None,
            naming.access_stack_name(org),
            naming.cost_stack_name(org),
            identity_groups(spec).all(),
            existing_resources(spec),
        )
