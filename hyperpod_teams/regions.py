"""Where HyperPod task governance's CloudFormation types exist. Pure layer: no cdktf.

`AWS::SageMaker::ComputeQuota` and `AWS::SageMaker::ClusterSchedulerConfig` are not in every
region; elsewhere Cloud Control fails when Terraform plans them (the provider downloads the type's
schema with DescribeType at plan time). `validate` refuses a spec with task governance in a region
outside this table unless `cluster.task_governance.allow_unlisted_region` says the user checked.
"""

from __future__ import annotations

#: Source: the AWS CDK reference of `aws-cdk-lib.aws_sagemaker.CfnComputeQuota` (v2.277.0), which
#: lists the regions the type is available in; read on 2026-12-03. The scheduler config is
#: released with it (same service feature), in the same regions.
TASK_GOVERNANCE_REGIONS_SOURCE = (
    "AWS CDK API reference, aws-cdk-lib.aws_sagemaker.CfnComputeQuota (v2.277.0), read 2026-12-03"
)
TASK_GOVERNANCE_REGIONS: frozenset[str] = frozenset(
    (
        "us-east-1 us-east-2 us-west-1 us-west-2 ap-south-1 ap-southeast-1 ap-southeast-2 "
        "ap-southeast-3 ap-northeast-1 eu-central-1 eu-west-1 eu-west-2 eu-north-1 eu-south-2 "
        "sa-east-1"
    ).split()
)


def task_governance_available(region: str) -> bool:
    return region in TASK_GOVERNANCE_REGIONS


#: Regions HyperPod's usage-report chart has an operator image for (awslabs/sagemaker-hyperpod-usage-report,
#: `helm_chart/SageMakerHyperPodUsageReportChart/values.yaml`, image.repositoryDomainMap).
USAGE_REPORT_REGIONS = frozenset(
    (
        "us-east-1 us-east-2 us-west-1 us-west-2 eu-north-1 eu-central-1 eu-west-1 eu-west-2 "
        "eu-south-2 ap-northeast-1 ap-south-1 ap-southeast-1 ap-southeast-2 ap-southeast-3 "
        "ap-southeast-4 sa-east-1"
    ).split()
)
