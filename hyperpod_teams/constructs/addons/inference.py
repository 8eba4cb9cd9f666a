"""The HyperPod inference operator on the shared EKS cluster (cluster.inference), as the EKS add-on
AWS now installs it, with every role and resource its configuration names (hyperpod_teams/addons.py
names the references): the operator's execution role, the load balancer controller's and KEDA's
roles, the JumpStart gated-model role (all through the EKS cluster's OIDC provider, IRSA, which the
add-on's configuration takes), the bucket of the endpoints' TLS certificates, and the Mountpoint for
S3 CSI driver that mounts each team's data bucket with its pods' own credentials."""

from __future__ import annotations

from constructs import Construct

from hyperpod_teams import addons, bindings, isolation, naming, policies
from hyperpod_teams.constructs.addons.contract import AddonCluster, ClusterAddOn
from hyperpod_teams.constructs.iam import bounded_role, inline_policy
from hyperpod_teams.constructs.storage import add_private_bucket, old_versions_expire
from hyperpod_teams.engine import cdk


class InferenceOperator(ClusterAddOn):
    """What `hyp create hyp-jumpstart-endpoint` / `hyp-custom-endpoint` need in the cluster: the add-on
    (its CRDs), after the HyperPod cluster's nodes exist and cert-manager is there (`after`)."""

    def __init__(self, scope: Construct, id_: str, cluster: AddonCluster) -> None:
        super().__init__(scope, id_, cluster)
        spec, org, after = cluster.spec, cluster.organization, cluster.after
        eks_cluster_name, hyperpod_cluster_arn = cluster.eks_cluster_name, cluster.hyperpod_cluster_arn
        settings = spec.cluster.inference
        assert settings is not None and settings.existing_addon != "leave_alone"
        partition = policies.aws_partition(org.region)
        eks = bindings.aws_data_eks_cluster.DataAwsEksCluster(self, "eks", name=eks_cluster_name)
        issuer_url = eks.identity.get(0).oidc.get(0).issuer
        # A local: the trust policies name it without the quotes of the function's arguments.
        issuer = cdk.TerraformLocal(self, "oidc-issuer", cdk.Fn.replace(issuer_url, "https://", "")).as_string
        if settings.creates_oidc_provider:
            provider = bindings.aws_iam_openid_connect_provider.IamOpenidConnectProvider(
                self, "oidc-provider", url=issuer_url, client_id_list=["sts.amazonaws.com"]
            )
            self.oidc_provider_arn = provider.arn
        else:
            self.oidc_provider_arn = f"arn:{partition}:iam::{org.account_id}:oidc-provider/{issuer}"

        self.tls_bucket_name = naming.inference_tls_bucket_name(
            org.name, org.account_id, org.region, cluster=spec.cluster_qualifier
        )
        self.tls_bucket = add_private_bucket(
            self,
            self.tls_bucket_name,
            region=org.region,
            lifecycle_rules=[old_versions_expire("expire-old-certificates")],
        )

        def role(purpose: str, namespace: str, service_account: str, *, sagemaker: bool = False):
            return bounded_role(
                self,
                f"{purpose}-role",
                name=naming.inference_role_name(org.name, purpose, cluster=spec.cluster_qualifier),
                org=org,
                trust=policies.irsa_trust_policy(
                    oidc_provider_arn=self.oidc_provider_arn,
                    issuer=issuer,
                    namespace=namespace,
                    service_account=service_account,
                    sagemaker=sagemaker,
                ),
            )

        def attach(construct_id: str, target, managed: str):
            return bindings.aws_iam_role_policy_attachment.IamRolePolicyAttachment(
                self, construct_id, role=target.name, policy_arn=policies.managed_policy_arn(managed, partition)
            )

        def inline(construct_id: str, target, name: str, document: dict):
            return inline_policy(self, construct_id, role=target, name=name, document=document)

        namespace = addons.INFERENCE_NAMESPACE
        self.operator_role = role("operator", namespace, addons.INFERENCE_CONTROLLER_SERVICE_ACCOUNT, sagemaker=True)
        self.keda_role = role("keda", namespace, addons.INFERENCE_KEDA_SERVICE_ACCOUNT)
        self.alb_role = role("load-balancer", namespace, addons.INFERENCE_ALB_SERVICE_ACCOUNT)
        # The model pods of any endpoint's namespace, under the operator's service account name.
        self.gated_role = role("gated-models", "*", addons.INFERENCE_MODEL_SERVICE_ACCOUNT_PATTERN, sagemaker=True)
        no_team_data = policies.no_team_data_policy(naming.teams_data_buckets(org, spec.teams), partition)
        grants = [
            attach("operator-access", self.operator_role, addons.INFERENCE_MANAGED_POLICY),
            inline(
                "operator-tls",
                self.operator_role,
                "tls-certificates",
                policies.inference_tls_bucket_policy(self.tls_bucket_name, org.account_id, partition),
            ),
            attach("gated-models-access", self.gated_role, addons.GATED_MODEL_MANAGED_POLICY),
            # The two roles with AWS managed policies: whatever those grant of S3, no team's data.
            *(
                inline(f"{purpose}-no-team-data", target, "no-team-data", no_team_data)
                for purpose, target in (("operator", self.operator_role), ("gated-models", self.gated_role))
            ),
            inline(
                "keda-metrics",
                self.keda_role,
                "read-metrics",
                policies.keda_policy(partition=partition, account_id=org.account_id, region=org.region),
            ),
            inline(
                "load-balancer",
                self.alb_role,
                "load-balancer-controller",
                policies.alb_controller_policy(partition=partition, account_id=org.account_id, region=org.region),
            ),
        ]
        prerequisites = list(after)
        if settings.install_s3_csi_driver:
            # The driver's role reads nothing: team volumes mount with their pods' credentials.
            s3_role = role("s3-csi", addons.S3_CSI_NAMESPACE, addons.S3_CSI_SERVICE_ACCOUNT)
            s3_policy = inline("s3-csi-read", s3_role, "read-models", policies.s3_csi_policy())
            prerequisites.append(
                bindings.aws_eks_addon.EksAddon(
                    self,
                    "s3-csi-driver",
                    cluster_name=eks_cluster_name,
                    addon_name=addons.S3_CSI_ADDON,
                    service_account_role_arn=s3_role.arn,
                    depends_on=[s3_policy, *after] if after else [s3_policy],
                )
            )
        configuration = {
            "executionRoleArn": self.operator_role.arn,
            "tlsCertificateS3Bucket": self.tls_bucket_name,
            "hyperpodClusterArn": hyperpod_cluster_arn,
            "jumpstartGatedModelDownloadRoleArn": self.gated_role.arn,
            # A team's model pods run as its workload identity (spec.kubernetes.serviceAccountName), which
            # mounts its data volume: the chart's value (default false) the operator reads as
            # ENABLE_CUSTOM_SERVICE_ACCOUNTS (charts/inference-operator values.yaml, config/manager).
            "enableCustomServiceAccounts": True,
            "alb": {"enabled": True, "serviceAccount": {"create": True, "roleArn": self.alb_role.arn}},
            "keda": {"enabled": True, "auth": {"aws": {"irsa": {"enabled": True, "roleArn": self.keda_role.arn}}}},
        }
        platform = spec.cluster.platform_instance_group
        if platform is not None:
            # The operator's controller (its execution role), the load balancer controller and KEDA on the
            # platform's group, away from team pods: the chart's nodeSelector and tolerations, the operator's
            # own ("Override via EKS AddOn configurationValues") and its alb and keda sub-charts'.
            placement = isolation.controller_placement(
                platform.name, [(t.key, t.value, t.effect) for t in platform.platform_taints]
            )
            configuration.update(placement)
            configuration["alb"].update(placement)
            configuration["keda"].update(placement)
        self.addon = self.install(
            addons.INFERENCE_OPERATOR_ADDON,
            existing=settings.existing_addon,
            addon_version=settings.version,
            configuration_values=cdk.Fn.jsonencode(configuration),
            depends_on=[*grants, *prerequisites],
        )
