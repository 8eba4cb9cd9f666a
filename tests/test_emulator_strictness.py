"""The emulator refuses what AWS refuses (tests/emulator/input_shapes.py and the additions'
own checks): requests outside botocore's input shapes, and the service-side rules the models do
not carry. Each case is a request the stacks could send by a fault of ours and AWS would refuse;
an emulator that accepts it lets the fault reach a user's apply.

Sent with boto3 (client-side validation off, as Terraform's Go SDK does not validate enums,
lengths or patterns either) to the emulator's WSGI app on a local port."""

from __future__ import annotations

import threading

import pytest

from tests.conftest import require_module

require_module("moto")

import boto3  # noqa: E402
from botocore.config import Config  # noqa: E402
from botocore.exceptions import ClientError  # noqa: E402

ACCOUNT = "123456789012"  # moto's default account
REGION = "us-west-2"
#: A trust policy IAM accepts (an empty one is MalformedPolicyDocument).
TRUST_SAGEMAKER = (
    '{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Service": "sagemaker.amazonaws.com"}, '
    '"Action": "sts:AssumeRole"}]}'
)


@pytest.fixture(scope="module")
def endpoint():
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
    from werkzeug.serving import make_server

    from tests.emulator.additions import Additions

    app = Additions(DomainDispatcherApplication(create_backend_app), account_id=ACCOUNT)
    app.network[REGION] = {"subnet-0a1b2c3d4e5f60718"}  # the account's VPC, as the tier seeds it
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def client(endpoint: str, service: str):
    return boto3.client(
        service,
        region_name=REGION,
        endpoint_url=endpoint,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=Config(parameter_validation=False, retries={"max_attempts": 1}),
    )


def refused(call, *args, **kwargs) -> ClientError:
    with pytest.raises(ClientError) as raised:
        call(*args, **kwargs)
    return raised.value


def code(error: ClientError) -> str:
    return error.response["Error"]["Code"]


@pytest.fixture(scope="module")
def cluster(endpoint):
    iam = client(endpoint, "iam")
    role = iam.create_role(RoleName="acme-team-nlp", AssumeRolePolicyDocument=TRUST_SAGEMAKER)["Role"]["Arn"]
    eks = client(endpoint, "eks")
    eks.create_cluster(
        name="shared-eks",
        roleArn=role,
        resourcesVpcConfig={"subnetIds": ["subnet-0a1b2c3d4e5f60718"]},
        accessConfig={"authenticationMode": "API"},
    )
    return {"name": "shared-eks", "role": role}


# --- botocore's input shapes --------------------------------------------------------------------


def test_a_permission_set_name_over_32_characters_is_refused(endpoint):
    sso = client(endpoint, "sso-admin")
    error = refused(sso.create_permission_set, InstanceArn="arn:aws:sso:::instance/ssoins-1", Name="n" * 33)
    assert code(error) == "ValidationException"
    assert "Member must have length less than or equal to 32" in str(error)


def test_a_budget_of_a_time_unit_aws_does_not_have_is_refused(endpoint):
    budgets = client(endpoint, "budgets")
    error = refused(
        budgets.create_budget,
        AccountId=ACCOUNT,
        Budget={
            "BudgetName": "acme-team-nlp",
            "BudgetLimit": {"Amount": "100", "Unit": "USD"},
            "TimeUnit": "HOURLY",
            "BudgetType": "COST",
        },
    )
    assert "Member must satisfy enum value set" in str(error) and "HOURLY" in str(error)


def test_a_domain_of_an_auth_mode_aws_does_not_have_is_refused(endpoint):
    sagemaker = client(endpoint, "sagemaker")
    error = refused(
        sagemaker.create_domain,
        DomainName="acme-nlp",
        AuthMode="PASSWORD",
        DefaultUserSettings={"ExecutionRole": f"arn:aws:iam::{ACCOUNT}:role/acme-team-nlp"},
        SubnetIds=["subnet-0a1b2c3d4e5f60718"],
        VpcId="vpc-0a1b2c3d4e5f60718",
    )
    assert code(error) == "ValidationException" and "'authMode'" in str(error)


def test_a_function_of_a_runtime_aws_does_not_have_is_refused(endpoint):
    lambda_ = client(endpoint, "lambda")
    error = refused(
        lambda_.create_function,
        FunctionName="acme-hyperpod-usage-aggregation",
        Runtime="python2.1",
        Role=f"arn:aws:iam::{ACCOUNT}:role/acme-aggregation",
        Handler="index.handler",
        Code={"ZipFile": b"PK"},
    )
    # Lambda's own answer (aws/aws-cli#3229): "1 validation error detected: Value 'g1.x' at 'runtime'
    # failed to satisfy constraint: Member must satisfy enum value set: [...]".
    assert code(error) == "ValidationException"
    assert "1 validation error detected: Value 'python2.1' at 'runtime' failed to satisfy constraint" in str(error)


def test_a_cloud_control_request_without_its_type_is_refused(endpoint):
    cloudcontrol = client(endpoint, "cloudcontrol")
    error = refused(cloudcontrol.create_resource, DesiredState="{}")
    assert code(error) == "ValidationException" and "'typeName'" in str(error)


def test_an_eks_cluster_name_from_the_uri_is_checked(endpoint):
    eks = client(endpoint, "eks")
    error = refused(eks.describe_addon, clusterName="x" * 101, addonName="vpc-cni")
    assert code(error) == "InvalidParameterException"


# --- the service's own rules ----------------------------------------------------------------------


def test_an_access_entry_of_an_undocumented_type_is_refused(endpoint, cluster):
    eks = client(endpoint, "eks")
    error = refused(eks.create_access_entry, clusterName=cluster["name"], principalArn=cluster["role"], type="LINUX")
    assert code(error) == "InvalidParameterException"


def test_an_access_policy_of_another_account_or_partition_is_refused(endpoint, cluster):
    eks = client(endpoint, "eks")
    eks.create_access_entry(clusterName=cluster["name"], principalArn=cluster["role"])
    for arn in (
        f"arn:aws:eks::{ACCOUNT}:cluster-access-policy/AmazonEKSViewPolicy",
        "arn:aws-cn:eks::aws:cluster-access-policy/AmazonEKSViewPolicy",
        "arn:aws:eks:us-west-2:aws:cluster-access-policy/AmazonEKSViewPolicy",
    ):
        error = refused(
            eks.associate_access_policy,
            clusterName=cluster["name"],
            principalArn=cluster["role"],
            policyArn=arn,
            accessScope={"type": "cluster"},
        )
        assert code(error) == "InvalidParameterException", arn
    eks.associate_access_policy(
        clusterName=cluster["name"],
        principalArn=cluster["role"],
        policyArn="arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy",
        accessScope={"type": "cluster"},
    )


def test_an_add_on_aws_does_not_offer_or_a_version_of_another_form_is_refused(endpoint, cluster):
    eks = client(endpoint, "eks")
    assert code(refused(eks.create_addon, clusterName=cluster["name"], addonName="made-up-agent")) == (
        "InvalidParameterException"
    )
    error = refused(eks.create_addon, clusterName=cluster["name"], addonName="cert-manager", addonVersion="1.18.2")
    assert code(error) == "InvalidParameterException"
    eks.create_addon(clusterName=cluster["name"], addonName="cert-manager", addonVersion="v1.18.2-eksbuild.2")


def test_a_session_over_12_hours_is_refused(endpoint):
    sso = client(endpoint, "sso-admin")
    instance = client(endpoint, "sso-admin").list_instances()["Instances"][0]["InstanceArn"]
    error = refused(sso.create_permission_set, InstanceArn=instance, Name="acme-nlp-long", SessionDuration="PT13H")
    assert code(error) == "ValidationException"
    sso.create_permission_set(InstanceArn=instance, Name="acme-nlp-twelve", SessionDuration="PT12H")


def test_two_permission_sets_of_one_name_are_refused(endpoint):
    sso = client(endpoint, "sso-admin")
    instance = sso.list_instances()["Instances"][0]["InstanceArn"]
    sso.create_permission_set(InstanceArn=instance, Name="acme-nlp-member")
    assert code(refused(sso.create_permission_set, InstanceArn=instance, Name="acme-nlp-member")) == (
        "ConflictException"
    )


def test_a_permission_sets_arn_has_awss_form(endpoint):
    """`arn:aws:sso:::permissionSet/<instance ID>/ps-<16>`, as the model's ResourceArn pattern
    requires (moto made `<instance ARN>/ps-...`, which every later call with it would fail on)."""
    sso = client(endpoint, "sso-admin")
    instance = sso.list_instances()["Instances"][0]["InstanceArn"]
    created = sso.create_permission_set(InstanceArn=instance, Name="acme-vision-member")
    arn = created["PermissionSet"]["PermissionSetArn"]
    assert arn == f"arn:aws:sso:::permissionSet/{instance.split('/')[-1]}/{arn.split('/')[-1]}"
    assert sso.list_tags_for_resource(InstanceArn=instance, ResourceArn=arn)["Tags"] == []


def test_a_domain_with_a_space_is_not_deleted_and_without_it_is(endpoint):
    """DeleteDomain refuses a domain that still has spaces (ResourceInUse: "delete all user
    profiles, spaces and apps first", SageMaker API reference, DeleteDomain). The runbook's
    deletion of a removed team's data for good deletes the spaces first (docs/deploy.md)."""
    iam = client(endpoint, "iam")
    role = iam.create_role(RoleName="acme-team-search", AssumeRolePolicyDocument=TRUST_SAGEMAKER)["Role"]["Arn"]
    sagemaker = client(endpoint, "sagemaker")
    domain = sagemaker.create_domain(
        DomainName="acme-search",
        AuthMode="IAM",
        DefaultUserSettings={"ExecutionRole": role},
        SubnetIds=["subnet-0a1b2c3d4e5f60718"],
        VpcId="vpc-0abc1234def567890",
    )["DomainArn"].rsplit("/", 1)[1]
    sagemaker.create_space(DomainId=domain, SpaceName="notebooks")
    error = refused(sagemaker.delete_domain, DomainId=domain, RetentionPolicy={"HomeEfsFileSystem": "Delete"})
    assert code(error) == "ResourceInUse" and "notebooks" in str(error)
    sagemaker.delete_space(DomainId=domain, SpaceName="notebooks")
    sagemaker.delete_domain(DomainId=domain, RetentionPolicy={"HomeEfsFileSystem": "Delete"})
    assert code(refused(sagemaker.describe_domain, DomainId=domain)) == "ResourceNotFound"


def test_the_emulator_checks_requests_against_the_pinned_service_models():
    """The models the requests are checked against are the pinned botocore's (newer than the one
    moto and checkov resolve): the pin in the requirements file and in input_shapes agree, and it
    is the one loaded."""
    from pathlib import Path

    from tests.emulator import input_shapes

    pinned = Path(input_shapes.ROOT / "tests" / "service-models-requirements.txt").read_text()
    assert f"botocore=={input_shapes.SERVICE_MODELS_VERSION}" in pinned
    assert input_shapes.InputShapes().models_version == input_shapes.SERVICE_MODELS_VERSION
