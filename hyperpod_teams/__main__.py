"""`python -m hyperpod_teams` is the `hyperpod-teams` command."""

from hyperpod_teams.cli import main

main()
