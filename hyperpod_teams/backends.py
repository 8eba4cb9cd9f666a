"""Where each stack keeps its state: the spec's `backend` applied to one stack."""

from __future__ import annotations

from hyperpod_teams import naming
from hyperpod_teams.engine import cdk
from hyperpod_teams.spec.models import LocalBackend, PlatformSpec, RemoteBackend, S3Backend


def local_state_path(stack_name: str) -> str:
    """State beside the output folder, never inside it: generated files and state do not mix.

    Relative to the stack's working directory `<out>/stacks/<stack>`, so the synthesized JSON is
    the same on every machine.
    """
    return f"../../../terraform.{stack_name}.tfstate"


def configure_backend(stack: cdk.TerraformStack, stack_name: str, spec: PlatformSpec) -> None:
    backend = spec.backend
    if isinstance(backend, LocalBackend):
        cdk.LocalBackend(stack, path=local_state_path(stack_name))
    elif isinstance(backend, S3Backend):
        s3 = cdk.S3Backend(
            stack,
            bucket=backend.bucket,
            key=naming.state_key(backend.key_prefix, stack_name),
            region=backend.region or spec.organization.region,
            encrypt=backend.encrypt,
            kms_key_id=backend.kms_key_id,
            # Also in every terraform_remote_state read of the stack's outputs (the engine copies the
            # backend's settings there).
            assume_role=cdk.S3BackendAssumeRoleConfig(role_arn=backend.role_arn) if backend.role_arn else None,
        )
        # S3-native locking (Terraform >= 1.10); the prebuilt cdktf S3Backend predates the field.
        s3.add_override("use_lockfile", backend.use_lockfile)
    elif isinstance(backend, RemoteBackend):
        cdk.RemoteBackend(
            stack,
            organization=backend.organization,
            hostname=backend.hostname,
            workspaces=cdk.NamedRemoteWorkspace(naming.remote_workspace_name(backend.workspace_prefix, stack_name)),
        )
    else:  # pragma: no cover - the spec models admit no other type
        raise TypeError(f"unsupported backend {backend!r}")
