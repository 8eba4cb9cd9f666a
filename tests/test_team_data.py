"""A team's data home and workload identity (#45): its own bucket, encrypted with a key of its own,
read and written by its Studio execution role and its pods' workload role (EKS Pod Identity on the
service account team-workload in its namespace), and by no other team's role; SageMaker jobs get
only the team's own roles. The policies are evaluated as IAM evaluates identity policies
(tests/iam_evaluation.py); the stacks are synthesized with the real engine."""

from __future__ import annotations

import json

import pytest

from hyperpod_teams import naming, policies
from hyperpod_teams.spec import validate_spec
from tests.conftest import synthesize_stacks
from tests.iam_evaluation import allows

ACCOUNT = "111122223333"
REGION = "us-west-2"
EKS = "ml-shared-eks"


def bucket(team: str) -> str:
    return naming.team_data_bucket_name("acme", team, ACCOUNT, REGION)


def data_calls(team: str) -> list[tuple[str, str, dict]]:
    """What a job or a notebook does with a dataset: list, read, write, delete, multipart."""
    objects = f"arn:aws:s3:::{bucket(team)}/datasets/train.parquet"
    return [
        ("s3:ListBucket", f"arn:aws:s3:::{bucket(team)}", {}),
        ("s3:GetObject", objects, {}),
        ("s3:PutObject", objects, {}),
        ("s3:DeleteObject", objects, {}),
        ("s3:AbortMultipartUpload", objects, {}),
        ("kms:GenerateDataKey", f"arn:aws:kms:{REGION}:{ACCOUNT}:key/k", {"aws:ResourceTag/hyperpod-teams:team": team}),
        ("kms:Decrypt", f"arn:aws:kms:{REGION}:{ACCOUNT}:key/k", {"aws:ResourceTag/hyperpod-teams:team": team}),
    ]


def execution(team: str) -> dict:
    return policies.team_execution_policy(
        org="acme",
        team=team,
        account_id=ACCOUNT,
        region=REGION,
        eks_cluster_name=EKS,
        domain_id=f"d-{team}",
        data_bucket=bucket(team),
        workload_role=naming.team_workload_role_name("acme", team),
    )


def workload(team: str) -> dict:
    return policies.team_workload_policy(team=team, account_id=ACCOUNT, region=REGION, data_bucket=bucket(team))


@pytest.mark.parametrize("policy_of", [execution, workload], ids=["studio execution role", "workload role"])
def test_a_teams_roles_read_and_write_its_data_and_nothing_of_another_teams(policy_of):
    policy = policy_of("nlp")
    assert [c[:2] for c in data_calls("nlp") if not allows([policy], *c)] == []
    assert [c[:2] for c in data_calls("vision") if allows([policy], *c)] == []
    assert not allows([policy], "s3:GetObject", "arn:aws:s3:::some-other-bucket/x")
    assert not allows([policy], "s3:PutBucketPolicy", f"arn:aws:s3:::{bucket('nlp')}")


def test_sagemaker_jobs_get_only_the_teams_own_roles():
    policy = execution("nlp")
    to_sagemaker = {"iam:PassedToService": "sagemaker.amazonaws.com"}
    for role in ("acme-nlp-execution", "acme-nlp-workload"):
        assert allows([policy], "iam:PassRole", f"arn:aws:iam::{ACCOUNT}:role/{role}", to_sagemaker), role
    assert not allows([policy], "iam:PassRole", f"arn:aws:iam::{ACCOUNT}:role/acme-vision-workload", to_sagemaker)
    assert not allows(
        [policy], "iam:PassRole", f"arn:aws:iam::{ACCOUNT}:role/acme-ml-shared-hyperpod-nodes", to_sagemaker
    )
    passed_elsewhere = {"iam:PassedToService": "ec2.amazonaws.com"}
    assert not allows([policy], "iam:PassRole", f"arn:aws:iam::{ACCOUNT}:role/acme-nlp-workload", passed_elsewhere)


def test_without_the_grant_a_job_cannot_read_its_dataset():
    """The check can fail: the data statements removed, the team's own read is refused."""
    policy = workload("nlp")
    policy["Statement"] = [s for s in policy["Statement"] if s["Sid"] != "ReadAndWriteTheTeamsData"]
    refused = [c[0] for c in data_calls("nlp") if not allows([policy], *c)]
    assert refused == ["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload"]


@pytest.fixture(scope="module")
def stacks(tmp_path_factory) -> dict[str, dict]:
    from tests.conftest import _quickstart_data

    data = _quickstart_data()
    data["teams"][1]["data"] = {"existing_bucket": "vision-datasets-111122223333"}
    data["teams"][1]["workload_identity"] = {"existing_role_arn": f"arn:aws:iam::{ACCOUNT}:role/vision-jobs"}
    data["teams"][2]["data"] = {"enabled": False}
    data["teams"][2]["workload_identity"] = {"enabled": False}
    return synthesize_stacks(validate_spec(data), tmp_path_factory.mktemp("team-data"))


def _only(resources: dict) -> dict:
    (value,) = resources.values()
    return value


def test_the_team_bucket_is_the_teams_encrypted_with_its_own_key_and_cannot_be_destroyed(stacks):
    resources = stacks["acme-team-nlp"]["resource"]
    data_bucket = _only(resources["aws_s3_bucket"])
    assert data_bucket["bucket"] == bucket("nlp") and data_bucket["lifecycle"]["prevent_destroy"] is True
    (rule,) = _only(resources["aws_s3_bucket_server_side_encryption_configuration"])["rule"]
    by_default = rule["apply_server_side_encryption_by_default"]
    keys = {address: key for address, key in resources["aws_kms_key"].items() if "data" in address}
    (address,) = keys
    assert by_default == {"sse_algorithm": "aws:kms", "kms_master_key_id": f"${{aws_kms_key.{address}.arn}}"}
    assert "aws:SecureTransport" in _only(resources["aws_s3_bucket_policy"])["policy"]


def test_the_workload_role_is_bound_to_the_teams_service_account_in_its_namespace(stacks):
    association = _only(stacks["acme-team-nlp"]["resource"]["aws_eks_pod_identity_association"])
    assert (association["namespace"], association["service_account"]) == (
        naming.team_namespace("nlp"),
        naming.TEAM_SERVICE_ACCOUNT,
    )
    role = next(
        r for r in stacks["acme-team-nlp"]["resource"]["aws_iam_role"].values() if r["name"] == "acme-nlp-workload"
    )
    trust = json.loads(role["assume_role_policy"])["Statement"][0]
    assert trust["Principal"] == {"Service": "pods.eks.amazonaws.com"}
    # The shared EKS cluster's, its name read from the EKS stack (a cross-stack reference).
    source = trust["Condition"]["ArnEquals"]["aws:SourceArn"]
    assert source.startswith(f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/${{data.terraform_remote_state."), source
    assert trust["Condition"]["StringEquals"]["aws:SourceAccount"] == ACCOUNT
    (account,) = stacks["acme-k8s-nlp"]["resource"]["kubernetes_service_account_v1"].values()
    metadata = account["metadata"]
    assert (metadata["name"], metadata["namespace"]) == (naming.TEAM_SERVICE_ACCOUNT, naming.team_namespace("nlp"))


def test_an_existing_bucket_and_role_are_granted_and_bound_not_created(stacks):
    resources = stacks["acme-team-vision"]["resource"]
    assert "aws_s3_bucket" not in resources
    association = _only(resources["aws_eks_pod_identity_association"])
    assert association["role_arn"] == f"arn:aws:iam::{ACCOUNT}:role/vision-jobs"
    assert [r["name"] for r in resources["aws_iam_role"].values()] == ["acme-vision-execution"]
    policy = _only(resources["aws_iam_role_policy"])["policy"]
    assert "arn:aws:s3:::vision-datasets-111122223333/*" in policy


def test_a_team_that_switches_both_off_gets_neither(stacks):
    resources = stacks["acme-team-research"]["resource"]
    assert "aws_s3_bucket" not in resources and "aws_eks_pod_identity_association" not in resources
    assert "kubernetes_service_account_v1" not in stacks["acme-k8s-research"].get("resource", {})
    assert "s3:" not in _only(resources["aws_iam_role_policy"])["policy"]


def test_a_created_cluster_gets_the_pod_identity_agent_its_teams_workload_identity_needs():
    """Without the training operator and usage reports, the teams' workload identity alone installs
    the EKS Pod Identity agent on a cluster the stacks create (its association gives no credential
    without it); with no team's workload identity, nothing does."""
    from tests.conftest import _quickstart_data

    data = _quickstart_data()
    data["cluster"]["training_operator"] = {"install": False}
    data.get("cost", {}).pop("usage_reports", None)
    spec = validate_spec(data)
    assert not spec.cost.usage_reports.enabled and not spec.cluster.installs_training_operator
    assert spec.installs_pod_identity_agent
    for team in data["teams"]:
        team["workload_identity"] = {"enabled": False}
    assert not validate_spec(data).installs_pod_identity_agent
