"""Built-in identity-provider plugins, one folder each; registered through entry points
(group `hyperpod_teams.identity_providers`) exactly like third-party plugins."""
