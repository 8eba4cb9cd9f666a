"""`python -m hyperpod_teams.cli`, as before the CLI became a package (and `python -m hyperpod_teams`)."""

from hyperpod_teams.cli.main import main

main()
