"""Moved to the package `hyperpod_teams.chargeback` (the statement and its outputs); importable
here for programs written against 0.2.0."""

from hyperpod_teams.chargeback import *  # noqa: F403 - its 0.2.0 names
