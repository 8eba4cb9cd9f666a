"""Schema stand-in providers: Terraform plugins that serve a provider's published schema of one exact
version, so that Terraform checks every stack against the versions it pins (docs/testing.md).

- `plugin.py`: the plugin (protocol 6, go-plugin handshake);
- `mirror.py`: lays the stand-ins out as a filesystem mirror with a CLI config;
- `schemas/`: the schema files and `SOURCES.md`, where each came from;
- `build_schemas.py`, `import_published.py`, `from_binding.py`, `provider_blocks/`: how they were made.
"""
