"""The EKS cluster that orchestrates HyperPod: created, or looked up when it exists already."""

from __future__ import annotations

import json

from constructs import Construct

from hyperpod_teams import addons, bindings, naming, policies
from hyperpod_teams.constructs.iam import bounded_role, inline_policy
from hyperpod_teams.constructs.kms import EncryptionKey
from hyperpod_teams.engine import cdk
from hyperpod_teams.spec.models import PlatformSpec

#: Control-plane log types; all of them, so reviewers can audit who did what in the cluster.
CONTROL_PLANE_LOGS = ["api", "audit", "authenticator", "controllerManager", "scheduler"]


class EksCluster(Construct):
    """The cluster's name, ARN, endpoint and CA as Terraform references, whichever way it came."""

    def __init__(self, scope: Construct, id_: str, *, spec: PlatformSpec) -> None:
        super().__init__(scope, id_)
        eks = spec.cluster.eks
        region = spec.organization.region
        if eks.existing_cluster_name is not None:
            found = bindings.aws_data_eks_cluster.DataAwsEksCluster(self, "existing", name=eks.existing_cluster_name)
            self.name: str = found.name
            self.arn: str = found.arn
            self.endpoint: str = found.endpoint
            self.certificate_authority_data: str = found.certificate_authority.get(0).data
            # The VPC CNI the cluster runs: read at every plan, which stops below HyperPod's floor.
            cni = bindings.aws_data_eks_addon.DataAwsEksAddon(
                self,
                "vpc-cni",
                cluster_name=found.name,
                addon_name=addons.VPC_CNI_ADDON,
                lifecycle=_vpc_cni_floor(eks.existing_cluster_name, region, existing=True),
            )
            # The team namespaces' network policies hold only where the VPC CNI enforces them: a check
            # (a warning at every plan, never a stop: the cluster is the user's) and a runbook step.
            stack = cdk.TerraformStack.of(self)
            address = f"data.{cni.terraform_resource_type}.{stack.get_logical_id(cni)}"
            stack.add_override(
                "check",
                {
                    addons.NETWORK_POLICY_CHECK: {
                        "assert": [
                            {
                                "condition": addons.network_policy_condition(f"{address}.configuration_values"),
                                "error_message": addons.network_policy_message(eks.existing_cluster_name, region),
                            }
                        ]
                    }
                },
            )
            return

        org, cluster = spec.organization.name, spec.cluster.name
        role = bounded_role(
            self,
            "cluster-role",
            name=naming.eks_cluster_role_name(org, cluster),
            org=spec.organization,
            trust=policies.eks_cluster_trust_policy(),
        )
        attachments = [
            bindings.aws_iam_role_policy_attachment.IamRolePolicyAttachment(
                self,
                f"cluster-role-{name}",
                role=role.name,
                policy_arn=policies.managed_policy_arn(name, policies.aws_partition(spec.organization.region)),
            )
            for name in policies.EKS_CLUSTER_MANAGED_POLICIES
        ]
        secrets_key = EncryptionKey(
            self,
            "secrets-key",
            alias=naming.eks_secrets_key_alias(org, cluster),
            description=f"Kubernetes secrets of the EKS cluster of {cluster} (hyperpod-teams, {org})",
            organization=spec.organization,
        )
        key_use = inline_policy(
            self,
            "cluster-role-secrets-key",
            role=role,
            name="secrets-key",
            document=policies.eks_secrets_key_use_policy(secrets_key.arn),
        )
        cluster_api = bindings.aws_eks_cluster
        public_cidrs = list(eks.public_access_cidrs)
        created = cluster_api.EksCluster(
            self,
            "cluster",
            name=naming.eks_cluster_name(cluster),
            role_arn=role.arn,
            version=eks.kubernetes_version,
            vpc_config=cluster_api.EksClusterVpcConfig(
                subnet_ids=list(spec.cluster.network.subnet_ids),
                security_group_ids=list(spec.cluster.network.security_group_ids),
                # The API is reachable from the VPC; from outside only from the spec's ranges.
                endpoint_private_access=True,
                endpoint_public_access=bool(public_cidrs),
                public_access_cidrs=public_cidrs or None,
            ),
            encryption_config=cluster_api.EksClusterEncryptionConfig(
                provider=cluster_api.EksClusterEncryptionConfigProvider(key_arn=secrets_key.arn),
                resources=["secrets"],
            ),
            # HyperPod needs access entries, so authentication goes through the EKS API; the
            # pipeline that creates the cluster keeps admin rights to apply the Kubernetes stacks.
            access_config=bindings.aws_eks_cluster.EksClusterAccessConfig(
                authentication_mode="API", bootstrap_cluster_creator_admin_permissions=True
            ),
            enabled_cluster_log_types=CONTROL_PLANE_LOGS,
            depends_on=[*attachments, key_use],
        )
        self.name = created.name
        self.arn = created.arn
        self.endpoint = created.endpoint
        self.certificate_authority_data = created.certificate_authority.get(0).data
        # EKS bootstraps the VPC CNI self-managed; as a managed add-on it is at AWS's default for the
        # cluster's Kubernetes version (OVERWRITE takes the bootstrapped one over), held to HyperPod's floor.
        bindings.aws_eks_addon.EksAddon(
            self,
            "vpc-cni",
            cluster_name=created.name,
            addon_name=addons.VPC_CNI_ADDON,
            # The team namespaces' network policies are enforced by the VPC CNI's network policy agent
            # (EKS user guide, "Restrict Pod network traffic with Kubernetes network policies").
            configuration_values=json.dumps(addons.VPC_CNI_CONFIGURATION, sort_keys=True),
            resolve_conflicts_on_create="OVERWRITE",
            resolve_conflicts_on_update="PRESERVE",
            lifecycle=_vpc_cni_floor(naming.eks_cluster_name(cluster), region, existing=False),
        )


def _vpc_cni_floor(cluster_name: str, region: str, *, existing: bool) -> cdk.TerraformResourceLifecycle:
    return cdk.TerraformResourceLifecycle(
        postcondition=[
            cdk.Postcondition(
                condition=addons.vpc_cni_floor_condition(),
                error_message=addons.vpc_cni_floor_message(cluster_name, region, existing=existing),
            )
        ]
    )


def get_token_command(eks_cluster_name: str, region: str) -> list[str]:
    """Arguments of `aws` that Kubernetes clients run for a token: the pipeline's own AWS identity."""
    return ["eks", "get-token", "--cluster-name", eks_cluster_name, "--region", region]


#: API version of the exec credential plugin protocol `aws eks get-token` speaks.
EXEC_API_VERSION = "client.authentication.k8s.io/v1beta1"
