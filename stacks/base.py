"""What every stack of the platform shares: its name, its state backend, its AWS provider."""

from __future__ import annotations

from constructs import Construct

from hyperpod_teams import bindings, naming
from hyperpod_teams.backends import configure_backend
from hyperpod_teams.constructs.eks import EXEC_API_VERSION, EksCluster, get_token_command
from hyperpod_teams.engine import cdk
from hyperpod_teams.spec.models import PlatformSpec


class PlatformStack(cdk.TerraformStack):
    """A stack of the platform: one unit of credentials and of blast radius."""

    #: Which system's credentials the stack needs, for reviewers and the runbook (set from
    #: stack_plan by app.add_platform_stacks).
    credentials: str = ""

    def __init__(self, scope: Construct, stack_name: str, *, spec: PlatformSpec) -> None:
        super().__init__(scope, stack_name)
        self.stack_name = stack_name
        self.spec = spec
        configure_backend(self, stack_name, spec)

    def add_aws_provider(
        self, *, tags: dict[str, str], account: str | None, alias: str | None = None, region: str | None = None
    ):
        """The AWS provider of `account`, tagging every resource it creates with `tags` by default:
        it refuses any other account, whatever credentials CI has (None: no account pinned), and
        assumes the account's deploy role where the spec names one (organization.deploy_role_name).
        `region`: default, the organization's."""
        org = self.spec.organization
        provider = bindings.aws_provider
        role_arn = naming.assumed_deploy_role_arn(org, account) if account else None
        return provider.AwsProvider(
            self,
            f"aws-{alias.replace('_', '-')}" if alias else "aws",
            alias=alias,
            region=region or org.region,
            allowed_account_ids=[account] if account else None,
            assume_role=[provider.AwsProviderAssumeRole(role_arn=role_arn)] if role_arn else None,
            default_tags=[provider.AwsProviderDefaultTags(tags=tags)],
        )

    def get_token_args(self, eks_cluster_name: str) -> list[str]:
        """`aws eks get-token` for the workload account's EKS cluster, as its deploy role when the spec
        names one."""
        org = self.spec.organization
        role_arn = naming.assumed_deploy_role_arn(org, org.account_id)
        return get_token_command(eks_cluster_name, org.region) + (["--role-arn", role_arn] if role_arn else [])

    def add_kubernetes_provider(self, eks: EksCluster) -> None:
        """The Kubernetes provider on the EKS cluster, through cross-stack references to its
        endpoint and CA, authenticated by `aws eks get-token` (the pipeline's own AWS identity)."""
        kubernetes = bindings.kubernetes_provider
        kubernetes.KubernetesProvider(
            self,
            "kubernetes",
            host=eks.endpoint,
            cluster_ca_certificate=cdk.Fn.base64decode(eks.certificate_authority_data),
            exec=[
                kubernetes.KubernetesProviderExec(
                    api_version=EXEC_API_VERSION,
                    command="aws",
                    args=self.get_token_args(eks.name),
                )
            ],
        )

    def add_helm_provider(self, eks: EksCluster) -> None:
        """The Helm provider on the EKS cluster, reached and authenticated as add_kubernetes_provider."""
        helm = bindings.helm_provider
        helm.HelmProvider(
            self,
            "helm",
            kubernetes=helm.HelmProviderKubernetes(
                host=eks.endpoint,
                cluster_ca_certificate=cdk.Fn.base64decode(eks.certificate_authority_data),
                exec=helm.HelmProviderKubernetesExec(
                    api_version=EXEC_API_VERSION,
                    command="aws",
                    args=self.get_token_args(eks.name),
                ),
            ),
        )

    def organization_tags(self) -> dict[str, str]:
        return naming.platform_resource_tags(self.spec.organization)
