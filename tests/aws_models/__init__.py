"""Snapshots of AWS's own models the pure layer validates with, and how they are rebuilt."""
