"""The published CloudFormation resource schemas of the three HyperPod types the stacks manage
through Cloud Control, transcribed by hand for the local Cloud Control API (cloud_control.py).

Written apart from `hyperpod_teams/cloudformation.py` on purpose: the stacks' desired states
come from those models, so checking them against the same models would prove nothing. Each
schema here keeps what the registry schema says of the properties: their names (all top-level
ones, so an unknown name is refused as `additionalProperties: false` refuses it), types, enums,
ranges and required lists, and the schema's `createOnlyProperties`, `readOnlyProperties` and
`primaryIdentifier`. Nested objects the stacks never write are kept as bare objects. Patterns
using `\\p{..}` classes (which Python's `re` lacks) are left out.

Sources:
- AWS::SageMaker::Cluster and AWS::SageMaker::ClusterSchedulerConfig: the registry schemas as
  pulumi/pulumi-aws-native stores them (aws-cloudformation-schema/aws-sagemaker-cluster.json,
  aws-sagemaker-clusterschedulerconfig.json).
- AWS::SageMaker::ComputeQuota: the CloudFormation Template Reference pages
  (aws-resource-sagemaker-computequota, aws-properties-sagemaker-computequota-*: `TeamName`
  "Update requires: Replacement") and the SageMaker API reference (CreateComputeQuota,
  UpdateComputeQuota: no Name or ClusterArn, so both are create-only; DescribeComputeQuota for
  the read-only ones).
"""

from __future__ import annotations

from typing import Any

_TAG = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "Key": {"type": "string", "minLength": 1, "maxLength": 128},
        "Value": {"type": "string", "minLength": 0, "maxLength": 256},
    },
    "required": ["Key", "Value"],
}
_TAGS = {"type": "array", "items": {"$ref": "#/definitions/Tag"}, "maxItems": 50}
_NAME = {"type": "string", "minLength": 1, "maxLength": 63, "pattern": "^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$"}
_CLUSTER_ARN = {
    "type": "string",
    "maxLength": 256,
    "pattern": "^arn:aws[a-z\\-]*:sagemaker:[a-z0-9\\-]*:[0-9]{12}:cluster/[a-z0-9]{12}$",
}
_ROLE_ARN = {
    "type": "string",
    "minLength": 20,
    "maxLength": 2048,
    "pattern": "^arn:aws[a-z\\-]*:iam::\\d{12}:role/?[a-zA-Z_0-9+=,.@\\-_/]+$",
}
_OBJECT = {"type": "object"}

CLUSTER: dict[str, Any] = {
    "typeName": "AWS::SageMaker::Cluster",
    "additionalProperties": False,
    "properties": {
        "ClusterArn": _CLUSTER_ARN,
        "VpcConfig": {"$ref": "#/definitions/VpcConfig"},
        "NodeRecovery": {"type": "string", "enum": ["Automatic", "None"]},
        "InstanceGroups": {"type": "array", "minItems": 1, "items": {"$ref": "#/definitions/ClusterInstanceGroup"}},
        "RestrictedInstanceGroups": {"type": "array", "minItems": 1, "items": _OBJECT},
        "Orchestrator": {"$ref": "#/definitions/Orchestrator"},
        "ClusterRole": _ROLE_ARN,
        "RestrictedInstanceGroupsConfig": _OBJECT,
        "NodeProvisioningMode": {"type": "string", "enum": ["Continuous"]},
        "CreationTime": {"type": "string"},
        "ClusterName": _NAME,
        "FailureMessage": {"type": "string"},
        "AutoScaling": _OBJECT,
        "ClusterStatus": {
            "type": "string",
            "enum": ["Creating", "Deleting", "Failed", "InService", "RollingBack", "SystemUpdating", "Updating"],
        },
        "Tags": _TAGS,
        "TieredStorageConfig": _OBJECT,
    },
    "definitions": {
        "Tag": _TAG,
        "VpcConfig": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "Subnets": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": 16,
                    "items": {"type": "string", "maxLength": 32},
                },
                "SecurityGroupIds": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": 5,
                    "items": {"type": "string", "maxLength": 32},
                },
            },
            "required": ["SecurityGroupIds", "Subnets"],
        },
        "Orchestrator": {
            "type": "object",
            "oneOf": [
                {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "Eks": {
                            "type": "object",
                            "additionalProperties": False,
                            "properties": {"ClusterArn": {"type": "string"}},
                            "required": ["ClusterArn"],
                        }
                    },
                },
                {"type": "object", "additionalProperties": False, "properties": {"Slurm": _OBJECT}},
            ],
        },
        "ClusterInstanceGroup": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "SlurmConfig": _OBJECT,
                "CapacityRequirements": _OBJECT,
                "InstanceGroupName": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 63,
                    "pattern": "^[a-zA-Z0-9](-*[a-zA-Z0-9])*$",
                },
                "InstanceStorageConfigs": {
                    "type": "array",
                    "maxItems": 4,
                    "items": {
                        "type": "object",
                        "oneOf": [
                            {
                                "type": "object",
                                "additionalProperties": False,
                                "properties": {
                                    "EbsVolumeConfig": {
                                        "type": "object",
                                        "additionalProperties": False,
                                        "properties": {
                                            "VolumeSizeInGB": {"type": "integer", "minimum": 1, "maximum": 16384},
                                            "VolumeKmsKeyId": {"type": "string", "maxLength": 2048},
                                            "RootVolume": {"type": "boolean"},
                                        },
                                    }
                                },
                            },
                            {
                                "type": "object",
                                "additionalProperties": False,
                                "properties": {"FsxLustreConfig": _OBJECT},
                            },
                            {
                                "type": "object",
                                "additionalProperties": False,
                                "properties": {"FsxOpenZfsConfig": _OBJECT},
                            },
                        ],
                    },
                },
                "KubernetesConfig": _OBJECT,
                "NetworkInterface": _OBJECT,
                "LifeCycleConfig": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "OnInitComplete": {"type": "string", "minLength": 1, "maxLength": 128},
                        "SourceS3Uri": {"type": "string", "maxLength": 1024, "pattern": "^(https|s3)://([^/]+)/?(.*)$"},
                        "OnCreate": {"type": "string", "minLength": 1, "maxLength": 128},
                    },
                },
                "TrainingPlanArn": {"type": "string", "minLength": 50, "maxLength": 2048},
                "ThreadsPerCore": {"type": "integer", "minimum": 1, "maximum": 2},
                "OverrideVpcConfig": {"$ref": "#/definitions/VpcConfig"},
                "InstanceCount": {"type": "integer", "minimum": 0},
                "OnStartDeepHealthChecks": {
                    "type": "array",
                    "items": {"type": "string", "enum": ["InstanceStress", "InstanceConnectivity"]},
                },
                "ImageId": {"type": "string", "minLength": 7, "maxLength": 21},
                "CurrentCount": {"type": "integer", "minimum": 0},
                "ScheduledUpdateConfig": _OBJECT,
                "InstanceRequirements": _OBJECT,
                "InstanceType": {"type": "string"},
                "AutoPatchConfig": _OBJECT,
                "ExecutionRole": _ROLE_ARN,
                "MinInstanceCount": {"type": "integer", "minimum": 0},
            },
            "required": ["ExecutionRole", "InstanceCount", "InstanceGroupName"],
        },
    },
    "required": [],
    "readOnlyProperties": [
        "/properties/ClusterArn",
        "/properties/CreationTime",
        "/properties/ClusterStatus",
        "/properties/FailureMessage",
        "/properties/InstanceGroups/*/CurrentCount",
        "/properties/RestrictedInstanceGroups/*/CurrentCount",
    ],
    "createOnlyProperties": ["/properties/ClusterName", "/properties/VpcConfig", "/properties/Orchestrator/Eks"],
    "primaryIdentifier": ["/properties/ClusterArn"],
}

SCHEDULER_CONFIG: dict[str, Any] = {
    "typeName": "AWS::SageMaker::ClusterSchedulerConfig",
    "additionalProperties": False,
    "properties": {
        "ClusterSchedulerConfigArn": {
            "type": "string",
            "maxLength": 256,
            "pattern": (
                "^arn:aws[a-z\\-]*:sagemaker:[a-z0-9\\-]{9,16}:[0-9]{12}:cluster-scheduler-config/[a-z0-9]{12}$"
            ),
        },
        "ClusterSchedulerConfigId": {"type": "string", "maxLength": 12, "pattern": "^[a-z0-9]{12}$"},
        "ClusterSchedulerConfigVersion": {"type": "integer"},
        "Name": _NAME,
        "ClusterArn": _CLUSTER_ARN,
        "Description": {"type": "string", "maxLength": 1024},
        "SchedulerConfig": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "PriorityClasses": {
                    "type": "array",
                    "minItems": 0,
                    "maxItems": 10,
                    "items": {
                        "type": "object",
                        "additionalProperties": False,
                        "properties": {
                            "Name": {"type": "string", "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9]){0,39}?$"},
                            "Weight": {"type": "integer", "minimum": 0, "maximum": 100},
                        },
                        "required": ["Name", "Weight"],
                    },
                },
                "FairShare": {"type": "string", "enum": ["Enabled", "Disabled"]},
                "IdleResourceSharing": {"type": "string", "enum": ["Enabled", "Disabled"]},
            },
        },
        "Status": {"type": "string"},
        "CreationTime": {"type": "string"},
        "Tags": _TAGS,
    },
    "definitions": {"Tag": _TAG},
    "required": ["Name", "ClusterArn", "SchedulerConfig"],
    "readOnlyProperties": [
        "/properties/ClusterSchedulerConfigArn",
        "/properties/ClusterSchedulerConfigId",
        "/properties/ClusterSchedulerConfigVersion",
        "/properties/Status",
        "/properties/CreationTime",
    ],
    "createOnlyProperties": ["/properties/Name", "/properties/ClusterArn"],
    "primaryIdentifier": ["/properties/ClusterSchedulerConfigArn"],
}

COMPUTE_QUOTA: dict[str, Any] = {
    "typeName": "AWS::SageMaker::ComputeQuota",
    "additionalProperties": False,
    "properties": {
        "ComputeQuotaArn": {"type": "string", "maxLength": 2048},
        "ComputeQuotaId": {"type": "string", "pattern": "^[a-z0-9]{12}$"},
        "ComputeQuotaVersion": {"type": "integer"},
        "CreationTime": {"type": "string"},
        "Status": {"type": "string"},
        "FailureReason": {"type": "string"},
        "ActivationState": {"type": "string", "enum": ["Enabled", "Disabled"]},
        "ClusterArn": _CLUSTER_ARN,
        "ComputeQuotaConfig": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "ComputeQuotaResources": {
                    "type": "array",
                    "maxItems": 15,
                    "items": {
                        "type": "object",
                        "additionalProperties": False,
                        "properties": {
                            "InstanceType": {"type": "string"},
                            "Count": {"type": "integer", "minimum": 0},
                            "Accelerators": {"type": "integer", "minimum": 0},
                            "VCpu": {"type": "number", "minimum": 0},
                            "MemoryInGiB": {"type": "number", "minimum": 0},
                            "AcceleratorPartition": _OBJECT,
                        },
                        "required": ["InstanceType"],
                    },
                },
                "ResourceSharingConfig": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "Strategy": {"type": "string", "enum": ["Lend", "DontLend", "LendAndBorrow"]},
                        "BorrowLimit": {"type": "integer", "minimum": 0, "maximum": 10000},
                        "AbsoluteBorrowLimits": {"type": "array"},
                    },
                    "required": ["Strategy"],
                },
                "PreemptTeamTasks": {"type": "string", "enum": ["Never", "LowerPriority"]},
            },
            "required": ["ComputeQuotaResources", "ResourceSharingConfig"],
        },
        "ComputeQuotaTarget": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "TeamName": {"type": "string", "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9]){0,39}?$"},
                "FairShareWeight": {"type": "integer", "minimum": 0, "maximum": 100},
            },
            "required": ["TeamName"],
        },
        "Description": {"type": "string", "maxLength": 1024},
        "Name": _NAME,
        "Tags": _TAGS,
    },
    "definitions": {"Tag": _TAG},
    "required": ["Name", "ClusterArn", "ComputeQuotaConfig", "ComputeQuotaTarget"],
    "readOnlyProperties": [
        "/properties/ComputeQuotaArn",
        "/properties/ComputeQuotaId",
        "/properties/ComputeQuotaVersion",
        "/properties/CreationTime",
        "/properties/Status",
        "/properties/FailureReason",
    ],
    "createOnlyProperties": ["/properties/Name", "/properties/ClusterArn", "/properties/ComputeQuotaTarget/TeamName"],
    "primaryIdentifier": ["/properties/ComputeQuotaArn"],
}

SCHEMAS = {schema["typeName"]: schema for schema in (CLUSTER, SCHEDULER_CONFIG, COMPUTE_QUOTA)}
