"""The emulator's fidelity table: one test per AWS behaviour the stacks depend on, each request
sent to the emulator as the tier starts it (its own process, tests/emulator/server.py) with boto3
(client-side validation off, as Terraform's Go SDK does not validate either), and its answer
compared with AWS's, whose source each row names.

The module writes `emulator fidelity: N/N behaviours as AWS` for the terminal summary
(conftest.py); docs/testing.md lists what the emulator still does not model.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from tests.conftest import EMULATOR_FIDELITY, require_module

require_module("moto")

from botocore.config import Config  # noqa: E402
from botocore.exceptions import ClientError  # noqa: E402

ACCOUNT = "111122223333"
REGION = "us-west-2"
ACCEPTED = "accepted"
TRUST = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Principal": {"Service": "sagemaker.amazonaws.com"}, "Action": "sts:AssumeRole"}
        ],
    }
)
INSTANCE_ARN = "arn:aws:sso:::instance/ssoins-7223d0f8b6a1c2e4"
STORE_ID = "d-9067e1a2b3"
SUBNET = "subnet-0a1b2c3d4e5f60718"
SECURITY_GROUP = "sg-0123456789abcdef0"


def _policy(effect: str = "Allow", actions: int = 1) -> str:
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Effect": effect,
                    "Action": [f"s3:GetObject{i}" for i in range(actions)] or "s3:GetObject",
                    "Resource": "arn:aws:s3:::acme-team-nlp/*",
                }
            ],
        }
    )


class World:
    """The emulator and clients of it, with what the rows build on: an IAM role, an EKS cluster,
    a lifecycle bucket with its script, Identity Center seeded."""

    def __init__(self, url: str, emulator) -> None:
        import boto3

        self.url = url
        self.emulator = emulator
        self._boto3 = boto3
        emulator.seed(
            {
                "identity_center": {"instance_arn": INSTANCE_ARN, "identity_store_id": STORE_ID, "region": REGION},
                "groups": ["acme-nlp-scientists"],
                "eks_clusters": [
                    {
                        "name": "acme-eks",
                        "region": REGION,
                        "role_arn": f"arn:aws:iam::{ACCOUNT}:role/eks",
                        "subnet_ids": [SUBNET],
                    }
                ],
                "network": {REGION: [SUBNET, SECURITY_GROUP]},
                "lifecycle_scripts": [
                    {"bucket": "sagemaker-acme-lifecycle", "key": "scripts/on_create.sh", "region": REGION}
                ],
            }
        )
        self.role_arn = self.client("iam").create_role(
            RoleName="acme-hyperpod-execution", AssumeRolePolicyDocument=TRUST
        )["Role"]["Arn"]

    def client(self, service: str, region: str = REGION):
        return self._boto3.client(
            service,
            region_name=region,
            endpoint_url=self.url,
            aws_access_key_id="AKIAFIDELITY00000000",
            aws_secret_access_key="fidelity",
            config=Config(parameter_validation=False, retries={"max_attempts": 1}),
        )

    # --- what rows build on ---------------------------------------------------------------------

    def cluster_model(self, **changes) -> dict:
        model = {
            "ClusterName": f"ml-{uuid.uuid4().hex[:8]}",
            "InstanceGroups": [
                {
                    "InstanceGroupName": "gpu",
                    "InstanceType": "ml.g5.8xlarge",
                    "InstanceCount": 1,
                    "ExecutionRole": self.role_arn,
                    "LifeCycleConfig": {
                        "SourceS3Uri": "s3://sagemaker-acme-lifecycle/scripts/",
                        "OnCreate": "on_create.sh",
                    },
                }
            ],
            "Orchestrator": {"Eks": {"ClusterArn": f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/acme-eks"}},
            "VpcConfig": {"SecurityGroupIds": [SECURITY_GROUP], "Subnets": [SUBNET]},
        }
        model.update(changes)
        return model

    def cloud_control(self, operation: str, region: str = REGION, **kwargs) -> dict:
        """A Cloud Control mutation and its end: the final ProgressEvent."""
        api = self.client("cloudcontrol", region)
        event = getattr(api, operation)(**kwargs)["ProgressEvent"]
        return api.get_resource_request_status(RequestToken=event["RequestToken"])["ProgressEvent"]

    def create_cluster(self, model: dict, region: str = REGION) -> dict:
        return self.cloud_control(
            "create_resource", region, TypeName="AWS::SageMaker::Cluster", DesiredState=json.dumps(model)
        )

    def domain(self) -> str:
        return (
            self.client("sagemaker")
            .create_domain(
                DomainName=f"acme-{uuid.uuid4().hex[:8]}",
                AuthMode="SSO",
                DefaultUserSettings={"ExecutionRole": self.role_arn},
                SubnetIds=[SUBNET],
                VpcId="vpc-0123456789abcdef0",
            )["DomainArn"]
            .rsplit("/", 1)[-1]
        )

    def permission_set(self) -> str:
        return self.client("sso-admin").create_permission_set(
            InstanceArn=INSTANCE_ARN, Name=f"acme-{uuid.uuid4().hex[:8]}"
        )["PermissionSet"]["PermissionSetArn"]


def answer(call: Callable[[], object]) -> str:
    """AWS's answer to a call as the table compares it: the error code, or `accepted`."""
    try:
        call()
    except ClientError as error:
        return error.response["Error"]["Code"]
    return ACCEPTED


def final(event: dict) -> str:
    """A Cloud Control operation's end: its handler error code, or `accepted`."""
    return event.get("ErrorCode", "?") if event["OperationStatus"] == "FAILED" else ACCEPTED


@dataclass(frozen=True)
class Behaviour:
    name: str
    aws: str  # AWS's answer: an error code, or `accepted`
    source: str
    send: Callable[[World], str]


def _inline_policy(document: str) -> Callable[[World], str]:
    def send(world: World) -> str:
        arn = world.permission_set()
        sso = world.client("sso-admin")
        return answer(
            lambda: sso.put_inline_policy_to_permission_set(
                InstanceArn=INSTANCE_ARN, PermissionSetArn=arn, InlinePolicy=document
            )
        )

    return send


def _role_with_inline_policies(world: World) -> str:
    iam = world.client("iam")
    iam.create_role(RoleName="acme-many-policies", AssumeRolePolicyDocument=TRUST)
    iam.put_role_policy(RoleName="acme-many-policies", PolicyName="first", PolicyDocument=_policy(actions=350))
    return answer(
        lambda: iam.put_role_policy(
            RoleName="acme-many-policies", PolicyName="second", PolicyDocument=_policy(actions=350)
        )
    )


def _cluster_without_script(world: World) -> str:
    model = world.cluster_model()
    model["InstanceGroups"][0]["LifeCycleConfig"]["OnCreate"] = "missing.sh"
    event = world.create_cluster(model)
    described = world.client("sagemaker").describe_cluster(ClusterName=model["ClusterName"])
    assert described["ClusterStatus"] == "Failed"
    assert "Lifecycle scripts did not run successfully" in described["FailureMessage"]
    return final(event)


def _cluster_missing(part: str) -> Callable[[World], str]:
    def send(world: World) -> str:
        model = world.cluster_model()
        if part == "role":
            model["InstanceGroups"][0]["ExecutionRole"] = f"arn:aws:iam::{ACCOUNT}:role/nobody"
        elif part == "eks":
            model["Orchestrator"]["Eks"]["ClusterArn"] = f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/nowhere"
        elif part == "subnet":
            model["VpcConfig"]["Subnets"] = ["subnet-0fffffffffffffff0"]
        elif part == "security-group":
            model["VpcConfig"]["SecurityGroupIds"] = ["sg-0fffffffffffffff0"]
        return final(world.create_cluster(model))

    return send


def _second_cluster_of_a_name(world: World) -> str:
    model = world.cluster_model()
    assert final(world.create_cluster(model)) == ACCEPTED
    return final(world.create_cluster(model))


def _instance_type_changed(world: World) -> str:
    model = world.cluster_model()
    created = world.create_cluster(model)
    patch = [{"op": "replace", "path": "/InstanceGroups/0/InstanceType", "value": "ml.g5.12xlarge"}]
    return final(
        world.cloud_control(
            "update_resource",
            TypeName="AWS::SageMaker::Cluster",
            Identifier=created["Identifier"],
            PatchDocument=json.dumps(patch),
        )
    )


def _quota_of_another_regions_cluster(world: World) -> str:
    created = world.create_cluster(world.cluster_model())
    quota = {
        "Name": "nlp-quota",
        "ClusterArn": created["Identifier"],
        "ComputeQuotaConfig": {"ComputeQuotaResources": [{"InstanceType": "ml.g5.8xlarge", "Count": 1}]},
        "ComputeQuotaTarget": {"TeamName": "nlp"},
    }
    return final(
        world.cloud_control(
            "create_resource", "us-east-1", TypeName="AWS::SageMaker::ComputeQuota", DesiredState=json.dumps(quota)
        )
    )


def _space_of_a_missing_profile(world: World) -> str:
    domain = world.domain()
    sagemaker = world.client("sagemaker")
    return answer(
        lambda: sagemaker.create_space(
            DomainId=domain,
            SpaceName="nlp-notebook",
            OwnershipSettings={"OwnerUserProfileName": "nobody"},
            SpaceSharingSettings={"SharingType": "Private"},
        )
    )


def _domain_with_a_space_deleted(world: World) -> str:
    domain = world.domain()
    sagemaker = world.client("sagemaker")
    sagemaker.create_space(DomainId=domain, SpaceName="shared")
    return answer(lambda: sagemaker.delete_domain(DomainId=domain, RetentionPolicy={"HomeEfsFileSystem": "Retain"}))


def _application_assignment_of_a_missing_group(world: World) -> str:
    domain = world.domain()
    application = world.client("sagemaker").describe_domain(DomainId=domain)["SingleSignOnApplicationArn"]
    sso = world.client("sso-admin")
    return answer(
        lambda: sso.create_application_assignment(
            ApplicationArn=application, PrincipalId=f"9067e1a2b3-{uuid.uuid4()}", PrincipalType="GROUP"
        )
    )


def _account_assignment(principal: str, account: str) -> Callable[[World], str]:
    def send(world: World) -> str:
        arn = world.permission_set()
        store = world.client("identitystore")
        group = store.get_group_id(
            IdentityStoreId=STORE_ID,
            AlternateIdentifier={
                "UniqueAttribute": {"AttributePath": "displayName", "AttributeValue": "acme-nlp-scientists"}
            },
        )["GroupId"]
        sso = world.client("sso-admin")
        return answer(
            lambda: sso.create_account_assignment(
                InstanceArn=INSTANCE_ARN,
                TargetId=ACCOUNT if account == "ours" else "999988887777",
                TargetType="AWS_ACCOUNT",
                PermissionSetArn=arn,
                PrincipalType="USER" if principal == "missing-user" else "GROUP",
                PrincipalId=f"9067e1a2b3-{uuid.uuid4()}" if principal == "missing-user" else group,
            )
        )

    return send


def _tagged(where: str, tags: list[dict]) -> Callable[[World], str]:
    def send(world: World) -> str:
        if where == "domain":
            domain = world.domain()
            arn = world.client("sagemaker").describe_domain(DomainId=domain)["DomainArn"]
            return answer(lambda: world.client("sagemaker").add_tags(ResourceArn=arn, Tags=tags))
        if where == "permission-set":
            return answer(
                lambda: world.client("sso-admin").create_permission_set(
                    InstanceArn=INSTANCE_ARN, Name=f"acme-{uuid.uuid4().hex[:8]}", Tags=tags
                )
            )
        if where == "budget":
            return answer(
                lambda: world.client("budgets", "us-east-1").create_budget(
                    AccountId=ACCOUNT,
                    Budget={
                        "BudgetName": f"acme-{uuid.uuid4().hex[:8]}",
                        "BudgetLimit": {"Amount": "100", "Unit": "USD"},
                        "TimeUnit": "MONTHLY",
                        "BudgetType": "COST",
                    },
                    ResourceTags=tags,
                )
            )
        if where == "add-on":
            return answer(
                lambda: world.client("eks").create_addon(
                    clusterName="acme-eks",
                    addonName="eks-pod-identity-agent",
                    tags={t["Key"]: t["Value"] for t in tags},
                )
            )
        raise AssertionError(where)

    return send


def _addon_version(version: str, addon: str = "amazon-sagemaker-hyperpod-training-operator") -> Callable[[World], str]:
    def send(world: World) -> str:
        return answer(
            lambda: world.client("eks").create_addon(clusterName="acme-eks", addonName=addon, addonVersion=version)
        )

    return send


def _retried_domain_create(world: World) -> str:
    """The same CreateDomain sent twice (no idempotency token in its model): the second meets the first."""
    sagemaker = world.client("sagemaker")
    request = dict(
        DomainName="acme-retried",
        AuthMode="SSO",
        DefaultUserSettings={"ExecutionRole": world.role_arn},
        SubnetIds=[SUBNET],
        VpcId="vpc-0123456789abcdef0",
    )
    sagemaker.create_domain(**request)
    return answer(lambda: sagemaker.create_domain(**request))


def _same_client_token(world: World) -> str:
    api = world.client("cloudcontrol")
    request = dict(
        TypeName="AWS::SageMaker::Cluster", DesiredState=json.dumps(world.cluster_model()), ClientToken=uuid.uuid4().hex
    )
    first = api.create_resource(**request)["ProgressEvent"]
    again = api.create_resource(**request)["ProgressEvent"]
    return ACCEPTED if again["RequestToken"] == first["RequestToken"] else "a second create"


def _as_deploy_role(pass_role: bool) -> Callable[[World], str]:
    """A Cloud Control create of a HyperPod cluster by a pipeline role (naming.deploy_role_name)
    that may call Cloud Control but, without `pass_role`, may not pass the instance group's role:
    IAM refuses it (iam:PassRole, IAM user guide, "Granting a user permissions to pass a role")."""

    def send(world: World) -> str:
        iam = world.client("iam")
        name = f"hyperpod-teams-deploy-fidelity{int(pass_role)}"
        trust = {
            "Version": "2012-10-17",
            "Statement": [
                {"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"}, "Action": "sts:AssumeRole"}
            ],
        }
        statements: list[dict] = [{"Effect": "Allow", "Action": "cloudformation:*", "Resource": "*"}]
        if pass_role:
            statements.append(
                {
                    "Effect": "Allow",
                    "Action": "iam:PassRole",
                    "Resource": world.role_arn,
                    "Condition": {"StringEquals": {"iam:PassedToService": "sagemaker.amazonaws.com"}},
                }
            )
        iam.create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(trust))
        iam.put_role_policy(
            RoleName=name,
            PolicyName="deploy",
            PolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": statements}),
        )
        credentials = world.client("sts").assume_role(
            RoleArn=f"arn:aws:iam::{ACCOUNT}:role/{name}", RoleSessionName="ci"
        )["Credentials"]
        api = world._boto3.client(
            "cloudcontrol",
            region_name=REGION,
            endpoint_url=world.url,
            aws_access_key_id=credentials["AccessKeyId"],
            aws_secret_access_key=credentials["SecretAccessKey"],
            aws_session_token=credentials["SessionToken"],
            config=Config(parameter_validation=False, retries={"max_attempts": 1}),
        )
        return answer(
            lambda: api.create_resource(
                TypeName="AWS::SageMaker::Cluster", DesiredState=json.dumps(world.cluster_model())
            )
        )

    return send


def _eks_cluster_in_a_missing_subnet(world: World) -> str:
    return answer(
        lambda: world.client("eks").create_cluster(
            name="acme-other-eks",
            roleArn=world.role_arn,
            resourcesVpcConfig={"subnetIds": ["subnet-0fffffffffffffff0"]},
        )
    )


def _domain_in_a_missing_subnet(world: World) -> str:
    return answer(
        lambda: world.client("sagemaker").create_domain(
            DomainName="acme-nowhere",
            AuthMode="SSO",
            DefaultUserSettings={"ExecutionRole": world.role_arn},
            SubnetIds=["subnet-0fffffffffffffff0"],
            VpcId="vpc-0123456789abcdef0",
        )
    )


def _long_role_name(world: World) -> str:
    return answer(lambda: world.client("iam").create_role(RoleName="r" * 65, AssumeRolePolicyDocument=TRUST))


def _bucket_encryption(world: World) -> str:
    s3 = world.client("s3")
    s3.create_bucket(Bucket="acme-team-nlp-data", CreateBucketConfiguration={"LocationConstraint": REGION})
    return answer(
        lambda: s3.put_bucket_encryption(
            Bucket="acme-team-nlp-data",
            ServerSideEncryptionConfiguration={
                "Rules": [{"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "AES512"}}]
            },
        )
    )


def _kms_key_spec(world: World) -> str:
    return answer(lambda: world.client("kms").create_key(KeySpec="SYMMETRIC_DEFAULT_512"))


def _cost_category_rule_version(world: World) -> str:
    return answer(
        lambda: world.client("ce", "us-east-1").create_cost_category_definition(
            Name="acme-teams",
            RuleVersion="CostCategoryExpression.v2",
            Rules=[{"Value": "nlp", "Rule": {"Tags": {"Key": "team", "Values": ["nlp"]}}}],
        )
    )


def _describe_budget_bad_name(world: World) -> str:
    return answer(
        lambda: world.client("budgets", "us-east-1").describe_budget(AccountId=ACCOUNT, BudgetName="acme:nlp")
    )


BEHAVIOURS = [
    # botocore's input shapes, for what moto answers too (input_shapes.py).
    Behaviour(
        "iam-role-name-over-64",
        "ValidationError",
        "IAM API reference, CreateRole: RoleName length 1-64",
        _long_role_name,
    ),
    Behaviour(
        "s3-encryption-algorithm-unknown",
        "MalformedXML",
        "S3 API reference, PutBucketEncryption: SSEAlgorithm enum; Error responses: MalformedXML",
        _bucket_encryption,
    ),
    Behaviour(
        "kms-key-spec-unknown", "ValidationException", "KMS API reference, CreateKey: KeySpec enum", _kms_key_spec
    ),
    Behaviour(
        "ce-rule-version-unknown",
        "ValidationException",
        "Billing and Cost Management API reference, CreateCostCategoryDefinition: RuleVersion enum",
        _cost_category_rule_version,
    ),
    Behaviour(
        "budgets-name-with-colon",
        "ValidationException",
        "AWS Budgets API reference, DescribeBudget: BudgetName pattern (no ':' or '\\')",
        _describe_budget_bad_name,
    ),
    Behaviour(
        "sso-inline-policy-over-32768",
        "ValidationException",
        "IAM Identity Center API reference, PutInlinePolicyToPermissionSet: InlinePolicy length 1-32768",
        _inline_policy(_policy(actions=2000)),
    ),
    # Policy documents (service_rules.py).
    Behaviour(
        "sso-inline-policy-not-json",
        "ValidationException",
        "IAM Identity Center API reference, PutInlinePolicyToPermissionSet: ValidationException",
        _inline_policy("not a policy"),
    ),
    Behaviour(
        "sso-inline-policy-effect-maybe",
        "ValidationException",
        "IAM JSON policy elements: Effect is Allow or Deny",
        _inline_policy(_policy(effect="Maybe")),
    ),
    Behaviour(
        "iam-managed-policy-over-6144",
        "LimitExceeded",
        "IAM user guide, IAM and AWS STS quotas: managed policy size 6,144 characters",
        lambda w: answer(
            lambda: w.client("iam").create_policy(PolicyName="acme-big", PolicyDocument=_policy(actions=400))
        ),
    ),
    Behaviour(
        "iam-role-inline-policies-over-10240",
        "LimitExceeded",
        "IAM user guide, IAM and AWS STS quotas: role policy size 10,240 characters",
        _role_with_inline_policies,
    ),
    Behaviour(
        "iam-trust-policy-empty",
        "MalformedPolicyDocument",
        "IAM API reference, CreateRole: MalformedPolicyDocument",
        lambda w: answer(
            lambda: w.client("iam").create_role(RoleName="acme-empty-trust", AssumeRolePolicyDocument="{}")
        ),
    ),
    # Cloud Control and SageMaker HyperPod (cloud_control.py, additions.missing_for_cluster).
    Behaviour(
        "quota-for-another-regions-cluster",
        "InvalidRequest",
        "Cloud Control and SageMaker are regional: a cluster of us-west-2 is not found in us-east-1",
        _quota_of_another_regions_cluster,
    ),
    Behaviour(
        "cluster-lifecycle-script-missing",
        "NotStabilized",
        "awslabs/awsome-distributed-ai#188: the cluster fails, 'Lifecycle scripts did not run successfully'",
        _cluster_without_script,
    ),
    Behaviour(
        "cluster-execution-role-missing",
        "InvalidRequest",
        "SageMaker API reference, CreateCluster: ValidationException",
        _cluster_missing("role"),
    ),
    Behaviour(
        "cluster-eks-cluster-missing",
        "InvalidRequest",
        "SageMaker API reference, CreateCluster: ValidationException",
        _cluster_missing("eks"),
    ),
    Behaviour(
        "cluster-subnet-missing",
        "InvalidRequest",
        "SageMaker API reference, CreateCluster: ValidationException",
        _cluster_missing("subnet"),
    ),
    Behaviour(
        "cluster-security-group-missing",
        "InvalidRequest",
        "SageMaker API reference, CreateCluster: ValidationException",
        _cluster_missing("security-group"),
    ),
    Behaviour(
        "cluster-name-taken",
        "AlreadyExists",
        "SageMaker API reference, CreateCluster: ResourceInUse; Cloud Control handler error codes: AlreadyExists",
        _second_cluster_of_a_name,
    ),
    Behaviour(
        "instance-group-type-changed",
        "InvalidRequest",
        "SageMaker API reference, UpdateCluster: an existing group's InstanceType is fixed",
        _instance_type_changed,
    ),
    Behaviour(
        "eks-cluster-subnet-missing",
        "InvalidParameterException",
        'EKS API reference, CreateCluster: InvalidParameterException ("The subnet ID ... does not exist")',
        _eks_cluster_in_a_missing_subnet,
    ),
    # SageMaker domains and spaces.
    Behaviour(
        "domain-subnet-missing",
        "ValidationException",
        "SageMaker API reference, CreateDomain: subnets of the VPC",
        _domain_in_a_missing_subnet,
    ),
    Behaviour(
        "space-owner-profile-missing",
        "ResourceNotFound",
        "SageMaker API reference, CreateSpace: ResourceNotFound",
        _space_of_a_missing_profile,
    ),
    Behaviour(
        "domain-with-space-deleted",
        "ResourceInUse",
        "SageMaker API reference, DeleteDomain: ResourceInUse (delete spaces first)",
        _domain_with_a_space_deleted,
    ),
    # IAM Identity Center.
    Behaviour(
        "application-assignment-group-missing",
        "ResourceNotFoundException",
        "IAM Identity Center API reference, CreateApplicationAssignment: ResourceNotFoundException",
        _application_assignment_of_a_missing_group,
    ),
    Behaviour(
        "account-assignment-user-missing",
        "ResourceNotFoundException",
        "IAM Identity Center API reference, CreateAccountAssignment: ResourceNotFoundException",
        _account_assignment("missing-user", "ours"),
    ),
    Behaviour(
        "account-assignment-outside-organization",
        "ValidationException",
        "IAM Identity Center API reference, CreateAccountAssignment: TargetId is an account of the organization",
        _account_assignment("group", "other"),
    ),
    Behaviour(
        "account-assignment-of-a-group",
        ACCEPTED,
        "IAM Identity Center API reference, CreateAccountAssignment",
        _account_assignment("group", "ours"),
    ),
    # Tags.
    Behaviour(
        "aws-tag-on-domain",
        "ValidationException",
        "Tagging AWS resources: the aws: prefix is reserved",
        _tagged("domain", [{"Key": "aws:team", "Value": "nlp"}]),
    ),
    Behaviour(
        "aws-tag-on-permission-set",
        "ValidationException",
        "Tagging AWS resources: the aws: prefix is reserved",
        _tagged("permission-set", [{"Key": "aws:team", "Value": "nlp"}]),
    ),
    Behaviour(
        "aws-tag-on-budget",
        "ValidationException",
        "Tagging AWS resources: the aws: prefix is reserved",
        _tagged("budget", [{"Key": "aws:team", "Value": "nlp"}]),
    ),
    Behaviour(
        "aws-tag-on-add-on",
        "InvalidParameterException",
        "Tagging AWS resources: the aws: prefix is reserved",
        _tagged("add-on", [{"Key": "aws:team", "Value": "nlp"}]),
    ),
    Behaviour(
        "domain-over-50-tags",
        "ValidationException",
        "Tagging AWS resources: 50 tags per resource",
        _tagged("domain", [{"Key": f"k{i}", "Value": "v"} for i in range(51)]),
    ),
    # EKS add-ons.
    Behaviour(
        "add-on-version-unpublished",
        "InvalidParameterException",
        "EKS API reference, CreateAddon: InvalidParameterException",
        _addon_version("v9.9.9-eksbuild.9"),
    ),
    Behaviour(
        "add-on-version-unpublished-of-an-add-on-without-a-list",
        "InvalidParameterException",
        "EKS API reference, CreateAddon: InvalidParameterException (every add-on's versions are EKS's)",
        _addon_version("v9.9.9-eksbuild.9", "amazon-sagemaker-hyperpod-inference"),
    ),
    Behaviour(
        "add-on-version-published",
        ACCEPTED,
        "awslabs/awsome-distributed-training hyperpod_training_operator: v1.2.1-eksbuild.1",
        _addon_version("v1.2.1-eksbuild.1"),
    ),
    # The deploying pipeline's permissions (authorization.py, iam_actions.py).
    Behaviour(
        "deploy-role-without-pass-role",
        "AccessDeniedException",
        "IAM user guide, Granting a user permissions to pass a role to an AWS service",
        _as_deploy_role(False),
    ),
    Behaviour(
        "deploy-role-with-pass-role",
        ACCEPTED,
        "IAM user guide, Granting a user permissions to pass a role to an AWS service",
        _as_deploy_role(True),
    ),
    # Retries.
    Behaviour(
        "create-retried-without-token",
        "ResourceInUse",
        "SageMaker API reference, CreateDomain: no ClientToken; ResourceInUse",
        _retried_domain_create,
    ),
    Behaviour(
        "create-retried-with-client-token",
        ACCEPTED,
        "Cloud Control API reference, CreateResource: ClientToken",
        _same_client_token,
    ),
]


@pytest.fixture(scope="module")
def answers(tmp_path_factory) -> dict[str, str]:
    from tests.emulator.deployment import running_emulator

    found: dict[str, str] = {}
    with running_emulator(tmp_path_factory.mktemp("fidelity"), ACCOUNT) as emulator:
        world = World(emulator.url, emulator)
        for behaviour in BEHAVIOURS:
            try:
                found[behaviour.name] = behaviour.send(world)
            except Exception as error:
                found[behaviour.name] = f"{type(error).__name__}: {error}"
    same = sum(found[b.name] == b.aws for b in BEHAVIOURS)
    EMULATOR_FIDELITY.parent.mkdir(exist_ok=True)
    EMULATOR_FIDELITY.write_text(f"emulator fidelity: {same}/{len(BEHAVIOURS)} behaviours as AWS\n")
    return found


@pytest.mark.parametrize("behaviour", BEHAVIOURS, ids=lambda b: b.name)
def test_the_emulator_answers_as_aws(answers, behaviour):
    assert answers[behaviour.name] == behaviour.aws, (
        f"AWS answers {behaviour.aws} ({behaviour.source}), the emulator {answers[behaviour.name]}"
    )
