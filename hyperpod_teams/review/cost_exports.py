"""Moved to the package `hyperpod_teams.chargeback` (its readers of the cost exports); importable
here for programs written against 0.2.0."""

from hyperpod_teams.chargeback import *  # noqa: F403 - its 0.2.0 names
