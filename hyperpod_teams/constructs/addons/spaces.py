"""SageMaker Spaces on the shared EKS cluster (cluster.spaces): the EKS add-on with its controller's role
(AmazonSageMakerSpacesControllerPolicy, through EKS Pod Identity) and the Amazon EBS CSI driver the
spaces keep their home on (hyperpod_teams/addons.py names the references). Who may create spaces where
is the team stacks' access entries (their space policies) and the team RBAC."""

from __future__ import annotations

from constructs import Construct

from hyperpod_teams import addons, bindings, naming
from hyperpod_teams.constructs.addons.contract import AddonCluster, ClusterAddOn
from hyperpod_teams.constructs.pod_identity import Managed, pod_identity_role


class SageMakerSpaces(ClusterAddOn):
    def __init__(self, scope: Construct, id_: str, cluster: AddonCluster) -> None:
        super().__init__(scope, id_, cluster)
        org, after = cluster.organization, cluster.after
        settings = cluster.spec.cluster.spaces
        assert settings is not None and settings.existing_addon != "leave_alone"
        association = bindings.aws_eks_addon.EksAddonPodIdentityAssociation

        def role(purpose: str, managed: str):
            return pod_identity_role(
                self,
                role_id=f"{purpose}-role",
                policy_id=f"{purpose}-policy",
                name=naming.spaces_role_name(org.name, purpose, cluster=cluster.spec.cluster_qualifier),
                org=org,
                eks_cluster_arn=cluster.eks_cluster_arn,
                policy=Managed(managed),
            )

        prerequisites = list(after)
        if settings.install_ebs_csi_driver:
            ebs_role, ebs_policy = role("ebs-csi", addons.EBS_CSI_MANAGED_POLICY)
            prerequisites.append(
                bindings.aws_eks_addon.EksAddon(
                    self,
                    "ebs-csi-driver",
                    cluster_name=cluster.eks_cluster_name,
                    addon_name=addons.EBS_CSI_ADDON,
                    pod_identity_association=[
                        association(role_arn=ebs_role.arn, service_account=addons.EBS_CSI_SERVICE_ACCOUNT)
                    ],
                    depends_on=[ebs_policy, *after],
                )
            )
        self.role, controller_policy = role("controller", addons.SPACES_CONTROLLER_MANAGED_POLICY)
        self.addon = self.install(
            addons.SPACES_ADDON,
            existing=settings.existing_addon,
            addon_version=settings.version,
            pod_identity_association=[
                association(role_arn=self.role.arn, service_account=addons.SPACES_CONTROLLER_SERVICE_ACCOUNT)
            ],
            depends_on=[controller_policy, *prerequisites],
        )
