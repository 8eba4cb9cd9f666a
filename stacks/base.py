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

    def add_aws_provider(self, *, tags: dict[str, str], pin_account: bool = True) -> None:
        """The AWS provider, tagging every resource it creates with `tags` by default."""
        org = self.spec.organization
        bindings.aws_provider.AwsProvider(
            self,
            "aws",
            region=org.region,
            # Refuse to touch any other account than the spec's, whatever credentials CI has.
            allowed_account_ids=[org.account_id] if pin_account else None,
            default_tags=[bindings.aws_provider.AwsProviderDefaultTags(tags=tags)],
        )

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
                    args=get_token_command(eks.name, self.spec.organization.region),
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
                    args=get_token_command(eks.name, self.spec.organization.region),
                ),
            ),
        )

    def organization_tags(self) -> dict[str, str]:
        return naming.platform_resource_tags(self.spec.organization)
