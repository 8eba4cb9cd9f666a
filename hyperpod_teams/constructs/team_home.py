"""A team's home in AWS: what it has once, wherever its compute runs. The execution role of its
domain apps and jobs, its data bucket and key, the role its pods run as, its SageMaker AI domain
(with the Studio policy of its admins) and its budget. `add_team_home` adds them to a scope;
`TeamEnvironment` (constructs/team.py) holds a home and a placement in one stack."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from constructs import Construct

from hyperpod_teams import bindings, naming, policies
from hyperpod_teams.constructs.cost import TeamBudget
from hyperpod_teams.constructs.iam import bounded_role, inline_policy
from hyperpod_teams.constructs.identity_center import identity_center_provider
from hyperpod_teams.constructs.kms import EncryptionKey
from hyperpod_teams.constructs.lookups import cloud_control_lookup, property_check
from hyperpod_teams.constructs.pod_identity import Inline, pod_identity_role
from hyperpod_teams.constructs.storage import add_private_bucket, old_versions_expire
from hyperpod_teams.engine import cdk
from hyperpod_teams.spec.models import Organization, Team
from hyperpod_teams.stack_plan import TeamStackInputs

#: CloudFormation type of a SageMaker AI domain, read through Cloud Control when taken over.
DOMAIN_TYPE = "AWS::SageMaker::Domain"
#: The least idle shutdown SageMaker accepts (IdleSettings MinIdleTimeoutInMinutes, 60 to 525600).
MIN_IDLE_TIMEOUT_MINUTES = 60


class TeamExecutionRole(Construct):
    """The role of the team's domain apps and jobs: its own resources only (policies.studio_execution). Its policy
    comes with `grant`, once the team's domain (whose ID it names) exists."""

    def __init__(self, scope: Construct, id_: str, *, inputs: TeamStackInputs, team: Team) -> None:
        super().__init__(scope, id_)
        self.inputs, self.team = inputs, team
        org = inputs.organization
        self.role = bounded_role(
            self,
            "role",
            name=naming.team_execution_role_name(org.name, team.name),
            org=org,
            trust=policies.sagemaker_trust_policy(),
        )
        self.arn = self.role.arn
        self.policy = None

    def grant(self, *, domain_id: str | None, data_bucket: str | None = None, workload_role: str | None = None) -> None:
        """The role's policy: spaces and apps in the domain `domain_id` (None: no domain, none), the
        team's data bucket, and passing the team's own roles (`workload_role` too) to SageMaker jobs."""
        org = self.inputs.organization
        self.policy = inline_policy(
            self,
            "team-access",
            role=self.role,
            name="team-access",
            document=policies.team_execution_policy(
                org=org.name,
                team=self.team.name,
                account_id=org.account_id,
                region=org.region,
                eks_cluster_name=self.inputs.eks_cluster_name,
                domain_id=domain_id,
                data_bucket=data_bucket,
                workload_role=workload_role,
                container_logs=self.inputs.container_logs,
                job_instance_types=self.team.job_instance_types,
            ),
        )


class TeamDomain(Construct):
    """The team's SageMaker AI domain: SSO, VPC only, idle shutdown, home directories kept.

    Its tags (organization, team, cost center) propagate to every app and space the team starts,
    which the provider's default tags never reach.
    """

    def __init__(
        self,
        scope: Construct,
        id_: str,
        *,
        inputs: TeamStackInputs,
        team: Team,
        execution_role: TeamExecutionRole,
        group_ids: dict[str, str],
    ) -> None:
        super().__init__(scope, id_)
        org, network, studio = inputs.organization, inputs.network, team.studio
        self.key = None
        self.existing = None
        fixed_at_creation: dict[str, object]
        if studio.existing_domain_id is None:
            # The team's own key for its home directories (EFS) and space volumes (EBS).
            self.key = EncryptionKey(
                self,
                "key",
                alias=naming.team_studio_key_alias(org.name, team.name),
                description=f"Studio home directories and volumes of team {team.name} (hyperpod-teams, {org.name})",
                organization=org,
            )
            fixed_at_creation = {
                "domain_name": naming.team_domain_name(org.name, team.name),
                "vpc_id": network.vpc_id,
                "subnet_ids": list(network.subnet_ids),
                "app_network_access_type": "VpcOnly",
                "kms_key_id": self.key.arn,
            }
        else:
            # Taken over: what AWS fixes at creation comes from the domain itself, so nothing
            # forces a replacement (which would delete the team's spaces).
            self.existing = ExistingDomain(self, "existing", team=team, domain_id=studio.existing_domain_id)
            fixed_at_creation = self.existing.fixed_at_creation
        # The team's apps get a security group of their own, not the cluster's: another team's apps
        # and pods are no member of it (docs/security.md, "Teams held apart").
        self.security_group = TeamStudioSecurityGroup(
            self,
            "network",
            organization=org,
            team=team,
            vpc_id=str(fixed_at_creation["vpc_id"]),
            cluster_security_group_id=network.security_group_ids[0],
        )
        domain = bindings.aws_sagemaker_domain
        self.domain = domain.SagemakerDomain(
            self,
            "domain",
            auth_mode="SSO",
            **fixed_at_creation,
            default_user_settings=domain.SagemakerDomainDefaultUserSettings(
                execution_role=execution_role.arn,
                security_groups=[self.security_group.id],
                jupyter_lab_app_settings=domain.SagemakerDomainDefaultUserSettingsJupyterLabAppSettings(
                    default_resource_spec=domain.SagemakerDomainDefaultUserSettingsJupyterLabAppSettingsDefaultResourceSpec(
                        instance_type=studio.default_instance_type
                    ),
                    app_lifecycle_management=domain.SagemakerDomainDefaultUserSettingsJupyterLabAppSettingsAppLifecycleManagement(
                        # The range a member may pick an idle shutdown of their own from: AWS's
                        # least (60) up to the team's. Left unset, the provider sends 0 for both
                        # (its expandDomainIdleSettings), below the API model's minimum of 60.
                        idle_settings=domain.SagemakerDomainDefaultUserSettingsJupyterLabAppSettingsAppLifecycleManagementIdleSettings(
                            lifecycle_management="ENABLED",
                            idle_timeout_in_minutes=studio.idle_timeout_minutes,
                            min_idle_timeout_in_minutes=MIN_IDLE_TIMEOUT_MINUTES,
                            max_idle_timeout_in_minutes=studio.idle_timeout_minutes,
                        )
                    ),
                ),
            ),
            # Deleting the domain must never take the team's home directories with it. The provider
            # cannot read this delete-time setting back from AWS, so on a domain it imports the
            # setting would force a replacement (retention_policy is ForceNew; seen in a plan with
            # provider 5.100): there it stays unset, and DeleteDomain's default is Retain.
            retention_policy=domain.SagemakerDomainRetentionPolicy(home_efs_file_system="Retain")
            if self.existing is None
            else None,
            tag_propagation="ENABLED",
            tags=naming.team_resource_tags(org, team),
            lifecycle=cdk.TerraformResourceLifecycle(prevent_destroy=True),
        )
        if studio.existing_domain_id is not None:
            # aws_sagemaker_domain imports by domain ID.
            self.domain.import_from(studio.existing_domain_id)
        # The team's Identity Center groups may open the domain from the access portal.
        application_arn = self.domain.single_sign_on_application_arn  # one read, one round trip
        self.assignments = [
            bindings.aws_ssoadmin_application_assignment.SsoadminApplicationAssignment(
                self,
                f"{role}-assignment",
                application_arn=application_arn,
                principal_id=group_ids[role],
                principal_type="GROUP",
                provider=identity_center_provider(self),
            )
            for role in naming.ROLES
        ]


class TeamStudioSecurityGroup(Construct):
    """The security group of a team's Studio apps and spaces (a VpcOnly domain's DefaultUserSettings
    SecurityGroups): out to HTTPS only (AWS's APIs through the VPC's endpoints or NAT, the EKS API,
    package indexes), in from nothing; the EKS cluster's API admits it on 443 (a rule added to the
    cluster's first security group, nothing else of that group changed). The NFS traffic to the
    domain's home directories goes through the groups SageMaker makes for it."""

    def __init__(
        self,
        scope: Construct,
        id_: str,
        *,
        organization: Organization,
        team: Team,
        vpc_id: str,
        cluster_security_group_id: str,
    ) -> None:
        super().__init__(scope, id_)
        name = naming.team_studio_security_group_name(organization.name, team.name)
        group = bindings.aws_security_group.SecurityGroup(
            self,
            "security-group",
            name=name,
            description=f"Studio apps of team {team.name} (hyperpod-teams, {organization.name})",
            vpc_id=vpc_id,
            tags={**naming.team_resource_tags(organization, team), "Name": name},
        )
        self.id = group.id
        bindings.aws_vpc_security_group_egress_rule.VpcSecurityGroupEgressRule(
            self,
            "https-out",
            security_group_id=group.id,
            description="HTTPS: AWS APIs, the EKS API, package indexes",
            ip_protocol="tcp",
            from_port=443,
            to_port=443,
            cidr_ipv4="0.0.0.0/0",
        )
        bindings.aws_vpc_security_group_ingress_rule.VpcSecurityGroupIngressRule(
            self,
            "eks-api-in",
            security_group_id=cluster_security_group_id,
            description=f"EKS API from the Studio apps of team {team.name} (hyperpod-teams)",
            ip_protocol="tcp",
            from_port=443,
            to_port=443,
            referenced_security_group_id=group.id,
        )


class ExistingDomain(Construct):
    """A team's SageMaker AI domain that exists already, read through Cloud Control
    (AWS::SageMaker::Domain, primary identifier DomainId) for what AWS fixes at its creation."""

    def __init__(self, scope: Construct, id_: str, *, team: Team, domain_id: str) -> None:
        super().__init__(scope, id_)
        self.lookup = cloud_control_lookup(
            self,
            "domain",
            type_name=DOMAIN_TYPE,
            identifier=domain_id,
            checks=[
                property_check(
                    "AuthMode",
                    "SSO",
                    f"The domain {domain_id} of team {team.name} does not use IAM Identity Center (auth mode "
                    "SSO), so the team's groups cannot open it from the access portal, and AWS cannot change a "
                    "domain's auth mode: remove teams[].studio.existing_domain_id to give the team a new domain.",
                )
            ],
        )
        properties = cdk.TerraformLocal(self, "properties", cdk.Fn.jsondecode(self.lookup.properties)).expression
        #: The domain's settings AWS fixes at creation (ForceNew in the provider's aws_sagemaker_domain);
        #: a domain without a key of its own has no KmsKeyId, which the provider reads as "".
        self.fixed_at_creation: dict[str, object] = {
            "domain_name": cdk.Fn.lookup(properties, "DomainName"),
            "vpc_id": cdk.Fn.lookup(properties, "VpcId"),
            "subnet_ids": cdk.Token.as_list(cdk.Fn.lookup(properties, "SubnetIds")),
            "app_network_access_type": cdk.Fn.lookup(properties, "AppNetworkAccessType"),
            "kms_key_id": cdk.Fn.try_([cdk.Fn.lookup(properties, "KmsKeyId"), ""]),
        }


class TeamData(Construct):
    """The team's data home: its own bucket, encrypted with a key of its own (or, with
    `data.existing_bucket`, that bucket, granted and left as it is)."""

    def __init__(self, scope: Construct, id_: str, *, inputs: TeamStackInputs, team: Team) -> None:
        super().__init__(scope, id_)
        org = inputs.organization
        self.key = None
        self.bucket = None
        if team.data.existing_bucket is not None:
            self.bucket_name: str = team.data.existing_bucket
            return
        self.bucket_name = naming.team_data_bucket_name(org.name, team.name, org.account_id, org.region)
        self.key = EncryptionKey(
            self,
            "key",
            alias=naming.team_data_key_alias(org.name, team.name),
            description=f"Data of team {team.name} (hyperpod-teams, {org.name})",
            organization=org,
        )
        self.bucket = add_private_bucket(
            self,
            self.bucket_name,
            region=org.region,
            kms_key_arn=self.key.arn,
            # Old versions are the team's undo; incomplete uploads are nobody's data.
            lifecycle_rules=[old_versions_expire("noncurrent-versions-and-incomplete-uploads")],
            protect=True,
        )


class TeamWorkloadIdentity(Construct):
    """What the team's pods run as: a role of the team's own (or `workload_identity.existing_role_arn`),
    trusted by EKS Pod Identity on the team's cluster. Each placement binds it to the service account
    TEAM_SERVICE_ACCOUNT in the team's namespace, which the team's Kubernetes stack creates
    (team_placement.bind_workload_role)."""

    def __init__(
        self,
        scope: Construct,
        id_: str,
        *,
        inputs: TeamStackInputs,
        team: Team,
        eks_cluster_name: str,
        data_bucket: str | None,
    ) -> None:
        super().__init__(scope, id_)
        org = inputs.organization
        partition = policies.aws_partition(org.region)
        self.role = None
        self.role_name: str | None = None
        role_arn = team.workload_identity.existing_role_arn
        if role_arn is None:
            eks_arn = policies.eks_cluster_arn(partition, org.region, org.account_id, eks_cluster_name)
            self.role_name = naming.team_workload_role_name(org.name, team.name)
            self.role, _ = pod_identity_role(
                self,
                role_id="role",
                policy_id="team-data",
                name=self.role_name,
                org=org,
                eks_cluster_arn=[eks_arn, *inputs.placed.eks_cluster_arns]
                if inputs.placed.eks_cluster_arns
                else eks_arn,
                chained_from=inputs.placed.chained_role_arns,
                policy=Inline(
                    "team-data",
                    policies.team_workload_policy(
                        team=team.name, account_id=org.account_id, region=org.region, data_bucket=data_bucket
                    ),
                ),
            )
            role_arn = self.role.arn
        self.role_arn: str = role_arn
        #: The binding on the cluster of the same stack (a placement adds it: add_team_placement).
        self.association: Any = None


class TeamAdminsStudioPolicy(Construct):
    """What the team's admins manage in the team's own domain (policies.team_admins_studio_policy):
    a customer managed policy, made here because it names the domain's ID, and referenced by the
    admins' permission set (which the access stack makes before the domain exists). Attaching it
    provisions the permission set again, so the admins' role carries it at once; Identity Center
    needs the policy to exist in the account first (CustomerManagedPolicyReference, IAM Identity
    Center API reference), hence the attachment after it."""

    def __init__(
        self,
        scope: Construct,
        id_: str,
        *,
        inputs: TeamStackInputs,
        team: Team,
        domain_id: str,
        permission_set_arn: str,
    ) -> None:
        super().__init__(scope, id_)
        org = inputs.organization
        assert inputs.identity_center_instance_arn is not None
        self.policy = bindings.aws_iam_policy.IamPolicy(
            self,
            "policy",
            name=naming.team_admins_studio_policy_name(org.name, team.name),
            path=naming.TEAM_POLICY_PATH,
            description=f"What the admins of team {team.name} manage in its SageMaker AI domain (hyperpod-teams)",
            policy=policies.policy_json(
                policies.team_admins_studio_policy(
                    org=org.name, team=team.name, account_id=org.account_id, region=org.region, domain_id=domain_id
                )
            ),
        )
        attachment = bindings.aws_ssoadmin_customer_managed_policy_attachment
        self.attachment = attachment.SsoadminCustomerManagedPolicyAttachment(
            self,
            "attachment",
            instance_arn=inputs.identity_center_instance_arn,
            permission_set_arn=permission_set_arn,
            customer_managed_policy_reference=attachment.SsoadminCustomerManagedPolicyAttachmentCustomerManagedPolicyReference(
                name=self.policy.name, path=naming.TEAM_POLICY_PATH
            ),
            provider=identity_center_provider(self),
        )


@dataclass(frozen=True)
class TeamHome:
    """What `add_team_home` added (None: the spec leaves it out)."""

    execution_role: TeamExecutionRole
    data: TeamData | None
    workload: TeamWorkloadIdentity | None
    domain: TeamDomain | None
    admins_studio: TeamAdminsStudioPolicy | None


def add_team_home(
    scope: Construct,
    *,
    inputs: TeamStackInputs,
    team: Team,
    eks_cluster_name: str,
    group_ids: dict[str, str],
    admins_permission_set_arn: str | None = None,
) -> TeamHome:
    """The team's home, as children of `scope`: the execution role, the data bucket, the workload
    role (trusted on `eks_cluster_name`), the domain and the admins' Studio policy. The budget is
    `add_team_budget`'s."""
    execution_role = TeamExecutionRole(scope, "execution-role", inputs=inputs, team=team)
    data = TeamData(scope, "data", inputs=inputs, team=team) if team.data.enabled else None
    data_bucket = data.bucket_name if data is not None else None
    workload = (
        TeamWorkloadIdentity(
            scope, "workload", inputs=inputs, team=team, eks_cluster_name=eks_cluster_name, data_bucket=data_bucket
        )
        if team.workload_identity.enabled
        else None
    )
    grants = {"data_bucket": data_bucket, "workload_role": workload.role_name if workload else None}
    if not team.studio.enabled:
        execution_role.grant(domain_id=None, **grants)
        return TeamHome(execution_role, data, workload, None, None)
    domain = TeamDomain(scope, "studio", inputs=inputs, team=team, execution_role=execution_role, group_ids=group_ids)
    domain_id = domain.domain.id
    execution_role.grant(domain_id=domain_id, **grants)
    admins_studio = None
    if admins_permission_set_arn is not None and inputs.identity_center_instance_arn is not None:
        admins_studio = TeamAdminsStudioPolicy(
            scope,
            "admins-studio",
            inputs=inputs,
            team=team,
            domain_id=domain_id,
            permission_set_arn=admins_permission_set_arn,
        )
    return TeamHome(execution_role, data, workload, domain, admins_studio)


def add_team_budget(scope: Construct, *, organization: Organization, team: Team) -> TeamBudget | None:
    """The team's monthly budget, where the spec gives one."""
    return TeamBudget(scope, "budget", organization=organization, team=team) if team.budget else None
