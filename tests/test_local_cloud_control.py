"""The local Cloud Control API of the emulator tier (tests/emulator/cloud_control.py) refuses
what Cloud Control refuses, checked against the transcribed published schemas: without these
checks the tier would accept any desired state and prove nothing about it."""

from __future__ import annotations

import json

import pytest

from tests.conftest import require_module

require_module("jsonpatch")

from tests.emulator.cloud_control import CloudControl, CloudControlError  # noqa: E402

REGION = "us-west-2"
ROLE = "arn:aws:iam::111122223333:role/acme-ml-shared-execution"


class Call:
    def __init__(self, body: dict, region: str = REGION) -> None:
        self.body = body
        self.region = region

    def json(self) -> dict:
        return self.body


def cluster(**changes) -> dict:
    model = {
        "ClusterName": "ml-shared",
        "InstanceGroups": [
            {"InstanceGroupName": "gpu", "InstanceType": "ml.p5.48xlarge", "InstanceCount": 2, "ExecutionRole": ROLE}
        ],
        "Orchestrator": {"Eks": {"ClusterArn": "arn:aws:eks:us-west-2:111122223333:cluster/ml-shared-eks"}},
        "VpcConfig": {"SecurityGroupIds": ["sg-0123456789abcdef0"], "Subnets": ["subnet-0a1b2c3d4e5f60718"]},
    }
    model.update(changes)
    return model


def nlp_quota(cluster_arn: str) -> dict:
    """Team nlp's compute quota on the cluster `cluster_arn`."""
    return {
        "Name": "nlp-quota",
        "ClusterArn": cluster_arn,
        "ComputeQuotaConfig": {
            "ComputeQuotaResources": [{"InstanceType": "ml.p5.48xlarge", "Count": 1}],
            "ResourceSharingConfig": {"Strategy": "Lend"},
        },
        "ComputeQuotaTarget": {"TeamName": "nlp"},
    }


def create(api: CloudControl, type_name: str, model: dict) -> dict:
    event = api.create_resource(Call({"TypeName": type_name, "DesiredState": json.dumps(model)}))["ProgressEvent"]
    return api.get_resource_request_status(Call({"RequestToken": event["RequestToken"]}))["ProgressEvent"]


def test_a_valid_cluster_is_created_with_the_identifier_aws_gives():
    api = CloudControl(account_id="111122223333")
    event = create(api, "AWS::SageMaker::Cluster", cluster())
    assert event["OperationStatus"] == "SUCCESS"
    assert event["Identifier"].startswith("arn:aws:sagemaker:us-west-2:111122223333:cluster/")
    properties = json.loads(
        api.get_resource(Call({"TypeName": "AWS::SageMaker::Cluster", "Identifier": event["Identifier"]}))[
            "ResourceDescription"
        ]["Properties"]
    )
    assert properties["ClusterStatus"] == "InService"


def test_a_cluster_is_found_by_its_name_given_as_json_and_not_by_the_bare_name():
    """Cloud Control user guide, "Identifying resources": ClusterArn is the primary identifier;
    ClusterName, a secondary one, is given as JSON. The stacks' lookup of an adopted cluster uses
    that form (cloudformation.cluster_name_identifier)."""
    from hyperpod_teams import cloudformation

    api = CloudControl(account_id="111122223333")
    event = create(api, "AWS::SageMaker::Cluster", cluster())
    name = cluster()["ClusterName"]
    by_name = {"TypeName": "AWS::SageMaker::Cluster", "Identifier": cloudformation.cluster_name_identifier(name)}
    assert api.get_resource(Call(by_name))["ResourceDescription"]["Identifier"] == event["Identifier"]
    with pytest.raises(CloudControlError, match="ResourceNotFound|not found"):
        api.get_resource(Call({"TypeName": "AWS::SageMaker::Cluster", "Identifier": name}))


@pytest.mark.parametrize(
    ("model", "names"),
    [
        (cluster(InstanceGroup=[]), "InstanceGroup"),  # a misspelled property
        (cluster(NodeRecovery="Always"), "Always"),  # outside the enum
        (cluster(ClusterStatus="InService"), "ClusterStatus"),  # read-only
        (cluster(VpcConfig={"Subnets": ["subnet-1"]}), "SecurityGroupIds"),  # required inside
    ],
)
def test_a_desired_state_outside_the_published_schema_fails_as_model_validation(model, names):
    event = create(CloudControl(account_id="111122223333"), "AWS::SageMaker::Cluster", model)
    assert event["OperationStatus"] == "FAILED"
    assert event["ErrorCode"] == "InvalidRequest"
    assert names in event["StatusMessage"]


def test_an_update_of_a_create_only_property_is_refused():
    api = CloudControl(account_id="111122223333")
    identifier = create(api, "AWS::SageMaker::Cluster", cluster())["Identifier"]
    patch = [{"op": "add", "path": "/VpcConfig/Subnets/1", "value": "subnet-0f1e2d3c4b5a60718"}]
    with pytest.raises(CloudControlError) as refused:
        api.update_resource(
            Call({"TypeName": "AWS::SageMaker::Cluster", "Identifier": identifier, "PatchDocument": json.dumps(patch)})
        )
    assert refused.value.error_type == "NotUpdatableException"
    count = [{"op": "replace", "path": "/InstanceGroups/0/InstanceCount", "value": 4}]
    event = api.update_resource(
        Call({"TypeName": "AWS::SageMaker::Cluster", "Identifier": identifier, "PatchDocument": json.dumps(count)})
    )["ProgressEvent"]
    assert (
        api.get_resource_request_status(Call({"RequestToken": event["RequestToken"]}))["ProgressEvent"][
            "OperationStatus"
        ]
        == "SUCCESS"
    )


def test_a_quota_needs_an_existing_cluster_and_a_cluster_one_scheduler_config():
    api = CloudControl(account_id="111122223333")
    missing = "arn:aws:sagemaker:us-west-2:111122223333:cluster/abcdefabcdef"
    quota = nlp_quota(missing)
    assert "not found" in create(api, "AWS::SageMaker::ComputeQuota", quota)["StatusMessage"]
    arn = create(api, "AWS::SageMaker::Cluster", cluster())["Identifier"]
    scheduler = {"Name": "ml-shared-scheduler", "ClusterArn": arn, "SchedulerConfig": {"FairShare": "Enabled"}}
    assert create(api, "AWS::SageMaker::ClusterSchedulerConfig", scheduler)["OperationStatus"] == "SUCCESS"
    second = create(api, "AWS::SageMaker::ClusterSchedulerConfig", dict(scheduler, Name="another"))
    assert "ConflictException" in second["StatusMessage"]


def _wsgi_call(app, target: str, body: dict, invocation: str) -> dict:
    import io

    data = json.dumps(body).encode()
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": "/",
        "wsgi.input": io.BytesIO(data),
        "CONTENT_LENGTH": str(len(data)),
        "HTTP_X_AMZ_TARGET": target,
        "HTTP_AUTHORIZATION": "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-west-2/cloudcontrolapi/aws4_request",
        "HTTP_AMZ_SDK_INVOCATION_ID": invocation,
    }
    return json.loads(b"".join(app(environ, lambda status, headers: None)))


def test_a_retried_create_with_the_same_client_token_gets_the_first_answer_and_runs_once():
    """Cloud Control de-duplicates CreateResource by its ClientToken (Cloud Control API reference,
    CreateResource: "ClientToken ... ensures idempotency"); the SDK sends one token on every
    attempt of a call."""
    from tests.emulator.additions import Additions

    app = Additions(lambda environ, start: [], account_id="111122223333")
    app.cloud_control.world = None  # what the cluster names is not the point here
    request = {"TypeName": "AWS::SageMaker::Cluster", "DesiredState": json.dumps(cluster()), "ClientToken": "t-1"}
    first = _wsgi_call(app, "CloudApiService.CreateResource", request, "call-1")
    again = _wsgi_call(app, "CloudApiService.CreateResource", request, "call-1")
    assert again == first
    assert len(app.cloud_control.resources) == 1


def test_a_retried_create_without_a_token_runs_again_and_meets_its_own_resource():
    """AWS has no de-duplication by the SDK's invocation ID: a create that carries no idempotency
    token and is sent twice fails the second time as the resource exists (the retry cache keyed by
    `amz-sdk-invocation-id` hid this)."""
    from tests.emulator.additions import Additions

    app = Additions(lambda environ, start: [], account_id="111122223333")
    app.cloud_control.world = None  # what the cluster names is not the point here
    request = {"TypeName": "AWS::SageMaker::Cluster", "DesiredState": json.dumps(cluster())}
    _wsgi_call(app, "CloudApiService.CreateResource", request, "call-1")
    again = _wsgi_call(app, "CloudApiService.CreateResource", request, "call-1")
    status = _wsgi_call(
        app,
        "CloudApiService.GetResourceRequestStatus",
        {"RequestToken": again["ProgressEvent"]["RequestToken"]},
        "call-2",
    )
    assert status["ProgressEvent"]["OperationStatus"] == "FAILED"
    assert status["ProgressEvent"]["ErrorCode"] == "AlreadyExists"


def test_a_resource_of_another_region_is_not_found_there():
    """Cloud Control and SageMaker are regional: a quota asked in us-east-1 for a us-west-2 cluster
    names a cluster that does not exist in us-east-1, and the us-west-2 cluster is not found by a
    us-east-1 request (#44: both were accepted when resources were keyed without their Region)."""
    api = CloudControl(account_id="111122223333")
    arn = create(api, "AWS::SageMaker::Cluster", cluster())["Identifier"]
    quota = nlp_quota(arn)
    body = {"TypeName": "AWS::SageMaker::ComputeQuota", "DesiredState": json.dumps(quota)}
    event = api.create_resource(Call(body, region="us-east-1"))["ProgressEvent"]
    status = api.get_resource_request_status(Call({"RequestToken": event["RequestToken"]}))["ProgressEvent"]
    assert status["OperationStatus"] == "FAILED" and "not found" in status["StatusMessage"]
    with pytest.raises(CloudControlError) as error:
        api.get_resource(Call({"TypeName": "AWS::SageMaker::Cluster", "Identifier": arn}, region="us-east-1"))
    assert error.value.error_type == "ResourceNotFoundException"
    assert create(api, "AWS::SageMaker::ComputeQuota", quota)["OperationStatus"] == "SUCCESS"  # in its own Region
