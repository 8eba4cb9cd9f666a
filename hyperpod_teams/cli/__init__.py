"""The `hyperpod-teams` command: validate a team spec, synthesize its Terraform stacks, review,
deploy and charge back. One module per command (`validate`, `init`, `synth`, `stacks`, `schema`,
`report`, `deploy_policy`, `runbook`, `chargeback`), what they share in `common`, the group in
`group` and the entry point in `main`.

Exit codes: 0 success, 2 invalid spec or usage, 1 internal error. `validate`, `schema`, `report`
and `runbook` never import a CDK engine (cdktn or cdktf).
"""

from hyperpod_teams.cli import (  # noqa: F401 - each module registers its command with the group
    chargeback,
    deploy_policy,
    init,
    report,
    runbook,
    schema,
    stacks,
    synth,
    validate,
)
from hyperpod_teams.cli.group import cli
from hyperpod_teams.cli.main import main

__all__ = ["cli", "main"]
