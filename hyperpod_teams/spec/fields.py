"""The sections and fields of the team spec, version 1, as Pydantic models: everything of the
public contract but the whole (`models.PlatformSpec`), which checks the rules across fields.

Ground floor of the spec: this module imports no other module of the spec, and nothing of the
project that imports the spec (the cycle test in tests/test_import_layers.py holds it). Field names,
nesting, enum values and defaults follow the spec contract (docs/spec-reference.md, the JSON Schema).
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterator
from decimal import Decimal
from typing import Annotated, Any, Literal, get_args, get_origin

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from hyperpod_teams import accelerator_partitions, addons, instance_types
from hyperpod_teams.plugins import installed_identity_providers

# Human wording for every pattern, so an error says what is allowed instead of quoting a regex.
PATTERN_RULES: dict[str, str] = {}


def _pattern(regex: str, rule: str, **kwargs: Any) -> Any:
    """The constraint of a constrained string type, `Annotated[str, _pattern(...)]`: its pattern
    and, for error messages and the JSON Schema, the rule in words."""
    PATTERN_RULES[regex] = rule
    return Field(pattern=regex, description=rule, **kwargs)


OrganizationName = Annotated[
    str,
    _pattern(
        r"^[a-z][a-z0-9-]{0,18}[a-z0-9]$",
        "2 to 20 characters: lowercase letters, digits and hyphens, starting with a letter and not "
        "ending with a hyphen",
    ),
]
AccountId = Annotated[str, _pattern(r"^\d{12}$", "exactly 12 digits, written as a quoted string")]
RegionName = Annotated[str, _pattern(r"^[a-z]{2}(-gov)?-[a-z]+-\d$", "an AWS region name such as us-west-2")]
IdentityCenterInstanceArn = Annotated[
    str,
    _pattern(
        r"^arn:aws[a-z-]*:sso:::instance/(sso)?ins-[a-zA-Z0-9-.]{16}$",
        "an IAM Identity Center instance ARN such as arn:aws:sso:::instance/ssoins-0123456789abcdef",
    ),
]
SchedulerConfigArn = Annotated[
    str,
    _pattern(
        r"^arn:aws[a-z-]*:sagemaker:[a-z0-9-]{9,16}:[0-9]{12}:cluster-scheduler-config/[a-z0-9]{12}$",
        "a cluster scheduler config ARN such as "
        "arn:aws:sagemaker:us-west-2:111122223333:cluster-scheduler-config/abcdef123456",
    ),
]
ComputeQuotaArn = Annotated[
    str,
    _pattern(
        r"^arn:aws[a-z-]*:sagemaker:[a-z0-9-]*:[0-9]{12}:compute-quota/[a-z0-9]{12}$",
        "a compute quota ARN such as arn:aws:sagemaker:us-west-2:111122223333:compute-quota/abcdef123456",
    ),
]
DomainId = Annotated[str, _pattern(r"^d-(-*[a-z0-9]){1,61}$", "a SageMaker AI domain ID such as d-abcdef123456")]
BucketName = Annotated[
    str,
    _pattern(
        r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$",
        "an S3 bucket name: 3 to 63 lowercase letters, digits, dots and hyphens",
    ),
]
IamRoleArn = Annotated[
    str,
    _pattern(
        r"^arn:aws[a-z-]*:iam::[0-9]{12}:role/[A-Za-z0-9_+=,.@/-]{1,512}$",
        "an IAM role ARN such as arn:aws:iam::111122223333:role/ml-team-jobs",
    ),
]
PermissionSetArn = Annotated[
    str,
    _pattern(
        r"^arn:aws[a-z-]*:sso:::permissionSet/(sso)?ins-[a-zA-Z0-9-.]{16}/ps-[a-zA-Z0-9-./]{16}$",
        "a permission set ARN such as arn:aws:sso:::permissionSet/ssoins-0123456789abcdef/ps-0123456789abcdef",
    ),
]
PermissionSetName = Annotated[str, _pattern(r"^[\w+=,.@-]{1,32}$", "1 to 32 of letters, digits and + = , . @ _ -")]
IdentityStoreId = Annotated[str, _pattern(r"^d-[0-9a-f]{10}$", "d- followed by 10 hexadecimal digits")]
SessionDuration = Annotated[
    str, _pattern(r"^PT([1-9]|1[0-2])H$", "an ISO 8601 duration in whole hours from PT1H to PT12H")
]
ResourceName = Annotated[
    str,
    _pattern(
        r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$",
        "1 to 63 letters, digits and hyphens, starting and ending with a letter or digit",
        # The pattern alone lets runs of hyphens through: the registry schema also says maxLength 63.
        max_length=63,
    ),
]
KubernetesVersion = Annotated[
    str,
    _pattern(
        r"^1\.(28|29|30|31|32|33)$",
        'a Kubernetes version HyperPod supports, "1.28" to "1.33", written as a quoted string',
    ),
]
VpcId = Annotated[str, _pattern(r"^vpc-[0-9a-f]{8,17}$", "vpc- followed by 8 to 17 hexadecimal digits")]
SubnetId = Annotated[str, _pattern(r"^subnet-[0-9a-f]{8,17}$", "subnet- followed by 8 to 17 hexadecimal digits")]
SecurityGroupId = Annotated[str, _pattern(r"^sg-[0-9a-f]{8,17}$", "sg- followed by 8 to 17 hexadecimal digits")]
S3Prefix = Annotated[
    str,
    _pattern(
        r"^s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]/([^\s]*/)?$",
        "an S3 URI of a bucket and prefix ending in a slash, such as s3://my-bucket/lifecycle/",
    ),
]
InstanceType = Annotated[
    str, _pattern(r"^ml\.[a-z0-9]+\.[a-z0-9]+$", "a SageMaker instance type such as ml.p5.48xlarge")
]


def _one_of_aws_list(value: str, offered: frozenset[str], listed: tuple[str, ...], *, what: str, shape: str) -> str:
    """`value` when AWS's list (a botocore enum, hyperpod_teams/instance_types.py: `listed`, and
    `offered` for the look-up) has it; else a spec error naming the nearest types and the list."""
    if value in offered:
        return value
    nearest = difflib.get_close_matches(value, listed, n=3, cutoff=0.5)
    raise PydanticCustomError(
        "spec_rule",
        "{value} is not an instance type {what}",
        {
            "value": value,
            "what": what,
            "hint": (f"did you mean {', '.join(nearest)}? " if nearest else "")
            + f"AWS's list (botocore {instance_types.BOTOCORE_VERSION}, {shape}) is in "
            "hyperpod_teams/instance_types.py",
        },
    )


def _offered_by_hyperpod(value: str) -> str:
    """An instance type of a HyperPod cluster must be one AWS lists; a made-up one would fail only
    at apply, after everything before it was created."""
    return _one_of_aws_list(
        value,
        instance_types.OFFERED,
        instance_types.CLUSTER_INSTANCE_TYPES,
        what="HyperPod offers",
        shape="ClusterInstanceType",
    )


def _offered_by_studio(value: str) -> str:
    """A Studio app's instance type must be one of SageMaker's AppInstanceType: the AWS provider
    skips its own check of the domain's default when the block holds a value unknown at plan (the
    execution role's ARN), so a made-up type would fail only at apply."""
    return _one_of_aws_list(
        value,
        instance_types.STUDIO_OFFERED,
        instance_types.STUDIO_INSTANCE_TYPES,
        what="SageMaker Studio apps run on",
        shape="AppInstanceType",
    )


#: An instance type of a Studio app: one of AWS's AppInstanceType.
StudioInstanceType = Annotated[
    str,
    _pattern(r"^ml\.[a-z0-9-]+\.[a-z0-9]+$", "an instance type of SageMaker Studio apps, such as ml.t3.medium"),
    AfterValidator(_offered_by_studio),
]


#: An instance type of a HyperPod instance group or compute quota: one of AWS's ClusterInstanceType.
ClusterInstanceType = Annotated[
    str,
    _pattern(
        r"^ml\.[a-z0-9-]+\.[a-z0-9]+$",
        "an instance type HyperPod offers, such as ml.p5.48xlarge",
        json_schema_extra={"enum": list(instance_types.CLUSTER_INSTANCE_TYPES)},
    ),
    AfterValidator(_offered_by_hyperpod),
]
PriorityClassName = Annotated[
    str,
    _pattern(
        r"^[a-z0-9]([-a-z0-9]*[a-z0-9]){0,39}$",
        "lowercase letters, digits and hyphens, starting and ending with a letter or digit",
    ),
]
TeamName = Annotated[
    str,
    _pattern(
        r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
        "lowercase letters, digits and hyphens, starting and ending with a letter or digit, at most 40 characters",
        max_length=40,
    ),
]
EmailAddress = Annotated[str, _pattern(r"^[^@\s]+@[^@\s]+\.[^@\s]+$", "an e-mail address such as ml-leads@example.com")]
PublicCidr = Annotated[
    str,
    _pattern(
        r"^(\d{1,3}\.){3}\d{1,3}/([1-9]|[12][0-9]|3[0-2])$",
        "an IPv4 range such as 203.0.113.0/24, /1 to /32 (a /0 would open the API to the internet)",
    ),
]
PrivateCidr = Annotated[
    str,
    _pattern(
        r"^(\d{1,3}\.){3}\d{1,3}/(8|9|[12][0-9]|3[0-2])$",
        "an IPv4 range of the VPC such as 10.0.64.0/24, /8 to /32",
    ),
]
#: A Kubernetes PriorityClass's name (a DNS subdomain, Kubernetes' own rule for object names).
KubernetesPriorityClassName = Annotated[
    str,
    _pattern(
        r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$",
        "a Kubernetes object name: lowercase letters, digits, '-' and '.', at most 253 characters",
        max_length=253,
    ),
]
#: What AWS accepts in a tag key or value (CloudFormation's `Tag` pattern
#: `^([\p{L}\p{Z}\p{N}_.:/=+\-@]*)$`): letters, separators (spaces), numbers and `_.:/=+-@`.
TAG_RULE = "letters, digits, spaces and _ . : / = + - @"
TAG_PUNCTUATION = frozenset("_.:/=+-@")
#: Keys AWS reserves (`aws:`) and the keys this project writes itself (naming.TAG_*).
RESERVED_TAG_PREFIXES = ("aws:", "hyperpod-teams:")
#: AWS allows 50 tags per resource; a team resource carries three of the project's own.
MAX_ORGANIZATION_TAGS = 47
#: Money in a spec is less than this many USD: finite, and far past any budget or price (a cost of
#: 10^15 USD is no amount, and beyond 28 significant digits amounts would round).
MAX_AMOUNT_USD = 1e15
AmountUsd = Annotated[float, Field(gt=0, lt=MAX_AMOUNT_USD, allow_inf_nan=False)]


def tag_text_problem(text: str) -> str | None:
    """Why AWS would refuse `text` as a tag key or value, or None when it accepts it."""
    for character in text:
        category = unicodedata.category(character)[0]
        if category not in "LZN" and character not in TAG_PUNCTUATION:
            return f"{character!r} is not allowed in a tag (allowed: {TAG_RULE})"
    return None


def _check_tag_text(text: str) -> str:
    problem = tag_text_problem(text)
    if problem:
        raise spec_rule(problem)
    return text


TagKey = Annotated[
    str,
    StringConstraints(min_length=1, max_length=128),
    AfterValidator(_check_tag_text),
    Field(description=f"1 to 128 characters: {TAG_RULE}"),
]
TagValue = Annotated[
    str,
    StringConstraints(max_length=256),
    AfterValidator(_check_tag_text),
    Field(description=f"at most 256 characters: {TAG_RULE}"),
]
PluginName = Annotated[
    str, _pattern(r"^[a-z][a-z0-9_]*$", "the entry-point name of an identity-provider plugin, such as entra_id")
]


def _takes_numbers(annotation: Any) -> bool:
    """Whether a field's type holds numbers anywhere (int, float, a Literal of numbers, in a list,
    a dict's values or an Optional)."""
    if annotation is bool:
        return False
    if annotation in (int, float):
        return True
    args = get_args(annotation)
    if get_origin(annotation) is Literal:
        return any(isinstance(a, int | float) and not isinstance(a, bool) for a in args)
    return any(_takes_numbers(a) for a in args)


def _entries(value: Any) -> Iterator[tuple[str, Any, Any]]:
    """The entries of a list or a map, each as (where within the value: `[i]` or `.key`, key,
    item); nothing for any other value."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        yield (f"[{key}]" if isinstance(key, int) else f".{key}"), key, item


def _a_boolean_in(value: Any) -> str | None:
    """Where a YAML boolean sits in a value meant to hold numbers: "" for the value itself, the
    key or index within it, or None."""
    if isinstance(value, bool):
        return ""
    return next((where for where, _, item in _entries(value) if isinstance(item, bool)), None)


#: The bidirectional formatting characters (Unicode UAX #9: embeddings, overrides, isolates and
#: marks), which reorder what a terminal or a review shows ("Trojan Source", CVE-2021-42574).
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _control_character_in(value: Any) -> tuple[str, str] | None:
    """The first control character (Unicode category Cc: escape, NUL, newline, DEL...) or
    bidirectional formatting character in a text field, a list of texts or a map of texts (its keys
    too), as (where, repr); None when there is none. Nested sections check their own fields."""

    def first(text: Any) -> str | None:
        if not isinstance(text, str):
            return None
        return next((repr(c) for c in text if unicodedata.category(c) == "Cc" or c in BIDI_CONTROLS), None)

    if isinstance(value, str):
        found = first(value)
        return ("", found) if found else None
    for where, key, item in _entries(value):
        found = first(key) or first(item)
        if found:
            return where, found
    return None


class SpecModel(BaseModel):
    """Base of every spec model: unknown fields are errors, models are immutable values.

    Two rules hold for every field of every section: a field of numbers takes no boolean (YAML 1.1
    reads yes/no/on/off/true/false unquoted as booleans, which Python counts as 1 and 0: `count:
    yes` would be a one-node quota), and no text takes a control character (an escape sequence in a
    display name reaches terminals, reports and AWS descriptions)."""

    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)

    @model_validator(mode="before")
    @classmethod
    def _numbers_are_numbers_and_text_is_printable(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        for name, field in cls.model_fields.items():
            key = field.alias or name
            if key not in data:
                continue
            value = data[key]
            if _takes_numbers(field.annotation):
                where = _a_boolean_in(value)
                if where is not None:
                    raise spec_rule(
                        "a number is needed, not true/false (YAML reads yes, no, on, off, true and false unquoted "
                        "as booleans)",
                        field=f"{key}{where}",
                        hint="write the number",
                    )
            control = _control_character_in(value)
            if control is not None:
                raise spec_rule(
                    f"the text holds the control character {control[1]}, which would reach terminals, reports "
                    "and AWS as it is",
                    field=f"{key}{control[0]}",
                    hint="remove it",
                )
        return data


def spec_rule(message: str, *, field: str | None = None, hint: str | None = None) -> PydanticCustomError:
    """An error for a rule across fields; `field` extends the location to the field to fix."""
    # pydantic-core formats the template with the context and knows no escape for braces: the message
    # goes in as a value of the context, so braces from the spec ({team}) stay as written.
    context = {"message": message}
    if field:
        context["field"] = field
    if hint:
        context["hint"] = hint
    return PydanticCustomError("spec_rule", "{message}", context)


# --- organization, backend -------------------------------------------------------------------


class Organization(SpecModel):
    name: OrganizationName = Field(description="Prefix of every derived name.")
    account_id: AccountId
    region: RegionName
    tags: dict[TagKey, TagValue] = Field(
        default_factory=dict,
        max_length=MAX_ORGANIZATION_TAGS,
        description="Added to every taggable AWS resource. At most 47 (AWS allows 50 per resource "
        "and team resources carry three hyperpod-teams:* tags); no key may start with aws: or "
        "hyperpod-teams:.",
    )
    platform_admins_group: str | None = Field(
        default=None,
        min_length=1,
        description="IdP group whose members administer the whole cluster. Default: "
        "group_name_pattern with team=platform, role=admins.",
    )

    @field_validator("tags")
    @classmethod
    def _no_reserved_tag_keys(cls, tags: dict[str, str]) -> dict[str, str]:
        for key in tags:
            for prefix in RESERVED_TAG_PREFIXES:
                if key.casefold().startswith(prefix):
                    owner = "AWS" if prefix == "aws:" else "hyperpod-teams (team, cost center and organization tags)"
                    raise spec_rule(
                        f"tag key {key!r} starts with {prefix!r}, which is reserved for {owner}",
                        hint="choose a key with a prefix of your own, such as acme:" + key.split(":", 1)[-1],
                    )
        return tags


class LocalBackend(SpecModel):
    type: Literal["local"] = "local"


class S3Backend(SpecModel):
    type: Literal["s3"]
    bucket: str = Field(min_length=3, max_length=63)
    key_prefix: str = "hyperpod-teams/"
    region: RegionName | None = Field(default=None, description="Default: organization.region.")
    use_lockfile: bool = True
    encrypt: bool = True
    kms_key_id: str | None = None


class RemoteBackend(SpecModel):
    """HCP Terraform or Terraform Enterprise, one workspace per stack."""

    type: Literal["remote"]
    organization: str = Field(min_length=1)
    workspace_prefix: str = Field(min_length=1)
    hostname: str = "app.terraform.io"


Backend = Annotated[LocalBackend | S3Backend | RemoteBackend, Field(discriminator="type")]


# --- identity --------------------------------------------------------------------------------

GROUP_PATTERN_PLACEHOLDERS = ("org", "team", "role")


class IdentityCenter(SpecModel):
    instance_arn: IdentityCenterInstanceArn
    identity_store_id: IdentityStoreId
    session_duration: SessionDuration = "PT8H"


class Identity(SpecModel):
    provider: PluginName = Field(
        description="Name of an installed identity-provider plugin: entra_id, okta, generic_saml or a third-party one."
    )
    identity_center: IdentityCenter
    group_name_pattern: str = Field(default="{org}-{team}-{role}", description="Placeholders: {org} {team} {role}.")
    settings: dict[str, object] = Field(
        default_factory=dict, description="Plugin-specific; validated by the plugin's own model."
    )

    @field_validator("provider")
    @classmethod
    def _plugin_installed(cls, provider: str) -> str:
        installed = installed_identity_providers()
        if provider not in installed:
            close = difflib.get_close_matches(provider, installed, n=1)
            raise spec_rule(
                f"no identity-provider plugin named {provider!r} is installed",
                hint=(f"did you mean {close[0]!r}? " if close else "")
                + f"installed plugins: {', '.join(installed) or 'none'}; a third-party plugin "
                "registers in the entry-point group hyperpod_teams.identity_providers",
            )
        return provider

    @field_validator("group_name_pattern")
    @classmethod
    def _known_placeholders(cls, pattern: str) -> str:
        used = re.findall(r"\{([^{}]*)\}", pattern)
        unknown = sorted(set(used) - set(GROUP_PATTERN_PLACEHOLDERS))
        if unknown:
            names = ", ".join("{" + name + "}" for name in unknown)
            raise spec_rule(
                f"unknown placeholder {names} in the group name pattern",
                hint="use only {org}, {team} and {role}",
            )
        if "team" not in used or "role" not in used:
            raise spec_rule(
                "the group name pattern must contain {team} and {role}, or two teams or roles would share one group"
            )
        return pattern


# --- cluster ---------------------------------------------------------------------------------


class Eks(SpecModel):
    """Exactly one of `create` / `existing_cluster_name`."""

    create: bool | None = Field(
        default=None, description="Create a new EKS cluster. Default: true unless existing_cluster_name is set."
    )
    kubernetes_version: KubernetesVersion = "1.32"
    existing_cluster_name: str | None = Field(default=None, pattern=r"^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$")
    public_access_cidrs: list[PublicCidr] = Field(
        default_factory=list,
        max_length=40,
        description="(optional addition) Address ranges outside the VPC that may reach the created "
        "cluster's Kubernetes API, e.g. the pipeline's egress. Default: none, the API is private "
        "to the VPC.",
    )

    @model_validator(mode="after")
    def _exactly_one_source(self) -> Eks:
        if self.existing_cluster_name is not None and self.create:
            raise spec_rule(
                "create and existing_cluster_name are mutually exclusive",
                field="create",
                hint="remove `create: true` to use the existing cluster, or remove existing_cluster_name to create one",
            )
        if self.existing_cluster_name is not None and self.public_access_cidrs:
            raise spec_rule(
                "public_access_cidrs applies only to a cluster this spec creates",
                field="public_access_cidrs",
                hint="set the existing cluster's endpoint access where that cluster is managed",
            )
        if self.existing_cluster_name is None and self.create is False:
            raise spec_rule(
                "exactly one of create and existing_cluster_name must be set",
                field="existing_cluster_name",
                hint="set existing_cluster_name to the EKS cluster to use, or set `create: true`",
            )
        return self

    @property
    def creates_cluster(self) -> bool:
        return self.existing_cluster_name is None


class Network(SpecModel):
    vpc_id: VpcId
    subnet_ids: list[SubnetId] = Field(min_length=1, max_length=16)
    security_group_ids: list[SecurityGroupId] = Field(min_length=1, max_length=5)


#: botocore's DeepHealthCheckType (the API); the CloudFormation registry's AWS::SageMaker::Cluster
#: lists the first two, and `validate` says so of the third (what Cloud Control checks).
DeepHealthCheck = Literal["InstanceStress", "InstanceConnectivity", "MultiNodeTrainingValidation"]

#: A Kubernetes label or taint key and value, as botocore's ClusterKubernetesLabelKey/Value and
#: TaintKey/Value take them (the Kubernetes rules for label keys and values).
KubernetesKey = Annotated[
    str,
    _pattern(
        r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$",
        "a Kubernetes label key: an optional DNS prefix and /, then a name of letters, digits, -, _ and . that starts "
        "and ends with a letter or digit",
        min_length=1,
        max_length=317,
    ),
]
KubernetesValue = Annotated[
    str,
    _pattern(
        r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$",
        "a Kubernetes label value: letters, digits, -, _ and ., starting and ending with a letter or digit",
        min_length=1,
        max_length=63,
    ),
]
TrainingPlanArn = Annotated[
    str,
    _pattern(
        r"^arn:aws[a-z\-]*:sagemaker:[a-z0-9\-]*:[0-9]{12}:training-plan/.*$",
        "a SageMaker training plan ARN, arn:aws:sagemaker:<region>:<account>:training-plan/<name>",
        min_length=50,
        max_length=2048,
    ),
]
KmsKeyRef = Annotated[
    str, _pattern(r"^[a-zA-Z0-9:/_-]*$", "a KMS key ID or ARN (letters, digits, :, /, _ and -)", max_length=2048)
]
ImageReleaseVersion = Annotated[
    str, _pattern(r"^[0-9]+\.[0-9]+\.[0-9]+$", "a HyperPod AMI release version MAJOR.MINOR.PATCH, such as 1.2.3")
]
#: The registry schema's ScheduledUpdateConfig.ScheduleExpression pattern (AWS::SageMaker::Cluster).
CronExpression = Annotated[
    str,
    _pattern(
        r"^cron\((?:[0-5][0-9]|[0-9]|) (?:[01][0-9]|2[0-3]|[0-9]) (?:[1-9]|0[1-9]|[12][0-9]|3[01]|\?) "
        r"(?:[1-9]|0[1-9]|1[0-2]|\*|\*/(?:[1-9]|1[0-2])|) (?:MON|TUE|WED|THU|FRI|SAT|SUN|[1-7]|\?|L|(?:[1-7]#[1-5])|"
        r"(?:[1-7]L)) (?:20[2-9][0-9]|\*|)\)$",
        "a cron expression cron(minute hour day-of-month month day-of-week year), such as cron(0 3 ? * SUN *)",
        max_length=256,
    ),
]


class Taint(SpecModel):
    key: KubernetesKey
    value: KubernetesValue | None = None
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]


class KubernetesNodes(SpecModel):
    """Labels and taints HyperPod puts on the group's nodes (ClusterKubernetesConfig)."""

    labels: dict[KubernetesKey, KubernetesValue] = Field(default_factory=dict, max_length=50)
    taints: list[Taint] = Field(default_factory=list, max_length=50)

    @field_validator("taints")
    @classmethod
    def _one_taint_per_key_and_effect(cls, taints: list[Taint]) -> list[Taint]:
        keys = [(t.key, t.effect) for t in taints]
        if len(set(keys)) != len(keys):
            raise spec_rule("a taint key is listed twice with one effect (Kubernetes keeps one)")
        return taints


class RollingUpdate(SpecModel):
    """How many nodes an AMI update takes at a time (DeploymentConfig.RollingUpdatePolicy)."""

    max_batch: int = Field(ge=1, description="Nodes, or percent with `unit: percent`.")
    unit: Literal["nodes", "percent"] = "nodes"
    wait_seconds: int | None = Field(default=None, ge=0, le=3600, description="Between batches.")


class ScheduledUpdate(SpecModel):
    """When SageMaker updates the group's AMI (ScheduledUpdateConfig)."""

    schedule: CronExpression
    rolling: RollingUpdate | None = None


class AutoPatch(SpecModel):
    """Workload-aware patching of the group's AMI (AutoPatchConfig)."""

    strategy: Literal["WhenIdle", "WhenAllIdle"]
    rolling: RollingUpdate | None = None


class InstanceGroup(SpecModel):
    name: ResourceName
    instance_type: ClusterInstanceType
    count: int = Field(ge=0, le=1000, description="Nodes in the group.")
    ebs_volume_gb: int = Field(default=500, ge=1, le=16384)
    threads_per_core: Literal[1, 2] = 1
    deep_health_checks: list[DeepHealthCheck] = Field(default_factory=list, max_length=3)
    min_count: int | None = Field(
        default=None, ge=0, le=1000, description="(addition) Nodes the group needs to be InService (MinInstanceCount)."
    )
    kubernetes: KubernetesNodes | None = Field(
        default=None,
        description="(addition) Labels and taints on the group's nodes: keep system pods off GPU nodes, dedicate a "
        "group to inference, training or spaces. Teams steer to a group with its labels (docs/spec-reference.md).",
    )
    training_plan_arn: TrainingPlanArn | None = Field(
        default=None, description="(addition) Run the group on a SageMaker flexible training plan's capacity."
    )
    capacity: Literal["on_demand", "spot"] | None = Field(
        default=None, description="(addition) Spot or on-demand nodes (CapacityRequirements); unset: on demand."
    )
    volume_kms_key_id: KmsKeyRef | None = Field(
        default=None, description="(addition) The KMS key of the nodes' EBS volume (VolumeKmsKeyId)."
    )
    image_release_version: ImageReleaseVersion | None = Field(
        default=None, description="(addition) The HyperPod AMI release the group runs; unset: the latest."
    )
    scheduled_update: ScheduledUpdate | None = Field(
        default=None, description="(addition) A window in which SageMaker updates the group's AMI."
    )
    auto_patch: AutoPatch | None = Field(
        default=None, description="(addition) Patch the group's AMI when its nodes are idle."
    )

    @property
    def platform_taints(self) -> list[Taint]:
        """The group's taints that keep pods off its nodes (NoSchedule, NoExecute)."""
        taints = self.kubernetes.taints if self.kubernetes else []
        return [t for t in taints if t.effect in ("NoSchedule", "NoExecute")]

    @field_validator("deep_health_checks")
    @classmethod
    def _no_repeats(cls, checks: list[str]) -> list[str]:
        if len(set(checks)) != len(checks):
            raise spec_rule("each deep health check may be listed once")
        return checks

    @model_validator(mode="after")
    def _what_requires_what(self) -> InstanceGroup:
        if self.min_count is not None and self.min_count > self.count:
            raise spec_rule(
                f"min_count {self.min_count} is more than the group's count {self.count}",
                field="min_count",
                hint="MinInstanceCount must be at most InstanceCount",
            )
        if self.training_plan_arn and self.capacity == "spot":
            raise spec_rule(
                "a training plan's capacity is reserved, not Spot",
                field="capacity",
                hint="remove capacity, or the training plan",
            )
        return self


class PriorityClass(SpecModel):
    name: PriorityClassName
    weight: int = Field(ge=0, le=100)


class TaskGovernance(SpecModel):
    enabled: bool = True
    fair_share: Literal["Enabled", "Disabled"] = "Enabled"
    idle_resource_sharing: Literal["Enabled", "Disabled"] | None = Field(
        default=None,
        description="(addition) Enabled lends capacity no team's quota holds to any team's tasks "
        "(SchedulerConfig.IdleResourceSharing); unset leaves AWS's default.",
    )
    priority_classes: list[PriorityClass] = Field(default_factory=list, max_length=10)
    allow_unlisted_region: bool = Field(
        default=False,
        description="(optional addition) Deploy compute quotas and the scheduler config in a region "
        "that is not in hyperpod_teams.regions.TASK_GOVERNANCE_REGIONS, for a region AWS added after "
        "that table was written. Without it, validate refuses such a region.",
    )
    existing_addon: Literal["take_over", "leave_alone"] | None = Field(
        default=None,
        description="(optional addition) The task-governance add-on is installed already: take_over imports it "
        "(the stacks manage it from then on), leave_alone keeps it out of the stacks. Absent: the stacks create it.",
    )
    existing_scheduler_config_arn: SchedulerConfigArn | None = Field(
        default=None,
        description="(optional addition) The cluster's scheduler config exists already (a cluster has one): the "
        "stacks create none and keep it as it is, and the plan stops when its fair share or priority classes "
        "differ from fair_share and priority_classes here. Needs existing_hyperpod_cluster_name.",
    )


#: The dependency chart's components (`helm_chart/HyperPodHelmChart/Chart.yaml` of
#: aws/sagemaker-hyperpod-cli at DEPENDENCIES_CHART_REF): spec name -> the chart value that turns
#: it on or off (the dependency's `condition`).
DEPENDENCIES_CHART_COMPONENTS: dict[str, str] = {
    "cert-manager": "cert-manager.enabled",
    "training-operators": "trainingOperators.enabled",
    "mlflow": "mlflow.enabled",
    "nvidia-device-plugin": "nvidia-device-plugin.devicePlugin.enabled",
    "aws-efa-k8s-device-plugin": "aws-efa-k8s-device-plugin.devicePlugin.enabled",
    "neuron-device-plugin": "neuron-device-plugin.devicePlugin.enabled",
    "storage": "storage.enabled",
    "health-monitoring-agent": "health-monitoring-agent.enabled",
    "mpi-operator": "mpi-operator.enabled",
    "deep-health-check": "deep-health-check.enabled",
    "job-auto-restart": "job-auto-restart.enabled",
    "cluster-role-and-bindings": "cluster-role-and-bindings.enabled",
    "namespaced-role-and-bindings": "namespaced-role-and-bindings.enabled",
    "team-role-and-bindings": "team-role-and-bindings.enabled",
    "hyperpod-inference-operator": "inferenceOperators.enabled",
    "hyperpod-patching": "hyperpod-patching.enabled",
    "gpu-operator": "gpu-operator.enabled",
}
ChartComponent = Literal[
    "cert-manager",
    "training-operators",
    "mlflow",
    "nvidia-device-plugin",
    "aws-efa-k8s-device-plugin",
    "neuron-device-plugin",
    "storage",
    "health-monitoring-agent",
    "mpi-operator",
    "deep-health-check",
    "job-auto-restart",
    "cluster-role-and-bindings",
    "namespaced-role-and-bindings",
    "team-role-and-bindings",
    "hyperpod-inference-operator",
    "hyperpod-patching",
    "gpu-operator",
]
#: The release of aws/sagemaker-hyperpod-cli whose chart the stacks install by default.
DEPENDENCIES_CHART_REF = "v3.9.0"
DEPENDENCIES_CHART_REPOSITORY = "https://github.com/aws/sagemaker-hyperpod-cli"
#: Where the default chart path expects the clone: beside the output folder.
DEPENDENCIES_CHART_CLONE_DIR = "sagemaker-hyperpod-cli"


class DependenciesChart(SpecModel):
    """The Helm chart HyperPod on EKS needs in the cluster before the HyperPod cluster exists
    (health-monitoring agent, device plugins, training operator...). Optional field, not in
    spec-v1.md's list: the defaults follow HyperPod's own instructions."""

    install: bool = Field(default=True, description="Set false when the chart is installed already.")
    git_ref: str = Field(
        default=DEPENDENCIES_CHART_REF,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,127}$",
        description="Tag or commit of aws/sagemaker-hyperpod-cli to clone the chart from: the "
        "runbook's clone command checks it out, and the stack's plan stops with that command when "
        "the chart is not where `chart` says.",
    )
    components: dict[ChartComponent, bool] = Field(
        default_factory=dict,
        description="Turn the chart's components on or off, e.g. {mlflow: true, gpu-operator: false}; "
        "an absent component keeps the chart's own default.",
    )
    chart: str = Field(
        default=f"../../../{DEPENDENCIES_CHART_CLONE_DIR}/helm_chart/HyperPodHelmChart",
        min_length=1,
        description="Chart path or name. A relative path is read from the stack's working folder "
        "(<out>/stacks/<stack>): the default is a clone of aws/sagemaker-hyperpod-cli beside the "
        "output folder.",
    )
    repository: str | None = Field(default=None, description="Chart repository URL, for a chart name.")
    version: str | None = None
    namespace: str = "kube-system"
    release_name: str = Field(
        default="hyperpod-dependencies",
        min_length=1,
        # Helm refuses a longer release name (helm pkg/chartutil ValidateReleaseName: "release name
        # exceeds max length of 53"); a DNS-1123 label otherwise.
        max_length=53,
        pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
    )


Duration = Annotated[str, _pattern(r"^[1-9][0-9]{0,4}[mh]$", "a whole number of minutes or hours, such as 720m or 12h")]


class ClusterTimeouts(SpecModel):
    """How long Terraform waits for Cloud Control on the HyperPod cluster. CloudFormation's
    handlers for AWS::SageMaker::Cluster allow 720 minutes each (the resource schema's
    `handlers.*.timeoutInMinutes`); Terraform's default of 2 hours is too short for a large
    cluster with deep health checks."""

    create: Duration = "720m"
    update: Duration = "720m"
    delete: Duration = "720m"


AddonVersion = Annotated[
    str,
    _pattern(
        r"^v[0-9]+\.[0-9]+\.[0-9]+-eksbuild\.[0-9]+$",
        "an EKS add-on version as `aws eks describe-addon-versions` lists it, such as v1.2.1-eksbuild.1",
    ),
]


class TrainingOperator(SpecModel):
    """The SageMaker HyperPod training operator (EKS add-on amazon-sagemaker-hyperpod-training-operator):
    what `hyp create hyp-pytorch-job` needs (its CRD hyperpodpytorchjobs.sagemaker.amazonaws.com),
    with what AWS's "Installing the training operator" lists before it: cert-manager and the EKS Pod
    Identity agent. Optional addition within spec v1."""

    install: bool | None = Field(
        default=None,
        description="Install the training operator add-on, its IAM role "
        "(AmazonSageMakerHyperPodTrainingOperatorAccess) and Pod Identity association, in <org>-cluster. "
        "Default: true for a HyperPod cluster the stacks create, false for an adopted one (install it there "
        "only when the cluster does not have it yet).",
    )
    version: AddonVersion = Field(
        default=addons.TRAINING_OPERATOR_VERSION, description="Version of the training operator add-on."
    )
    install_cert_manager: bool = Field(
        default=True,
        description="Install the cert-manager EKS add-on the operator needs; set false when the cluster has "
        "cert-manager already (creating it twice fails).",
    )
    cert_manager_version: AddonVersion = Field(
        default=addons.CERT_MANAGER_VERSION, description="Version of the cert-manager add-on."
    )
    install_pod_identity_agent: bool = Field(
        default=True,
        description="Install the EKS Pod Identity agent add-on the operator's credentials come through (in "
        "<org>-cluster, shared with cost.usage_reports); set false when the cluster has it already.",
    )


#: An add-on the cluster has already: imported into the stacks, or kept out of them.
ExistingAddon = Literal["take_over", "leave_alone"]


class Inference(SpecModel):
    """The HyperPod inference operator (EKS add-on amazon-sagemaker-hyperpod-inference): what `hyp create
    hyp-jumpstart-endpoint`, `hyp create hyp-custom-endpoint` and `hyp invoke` need. Optional addition
    within spec v1: absent, no inference."""

    existing_addon: ExistingAddon | None = Field(
        default=None,
        description="The cluster has the add-on already: take_over imports it (the stacks make its roles, bucket and "
        "configuration and manage it from then on, never deleting it), leave_alone keeps it and everything it uses "
        "out of the stacks; either way the teams get their access to it. Absent: the stacks install it with its roles "
        "(operator, load balancer controller, KEDA, JumpStart gated models), the TLS-certificate bucket and the "
        "Mountpoint for S3 CSI driver.",
    )
    version: AddonVersion | None = Field(
        default=None, description="Version of the add-on; unset: the one EKS makes the default."
    )
    install_s3_csi_driver: bool = Field(
        default=True,
        description="Install the Mountpoint for S3 CSI driver add-on, whose own role reads no bucket: each team's "
        "claim team-data mounts the team's bucket with its pods' credentials (authenticationSource: pod, driver v2); "
        "set false when the cluster has the driver already.",
    )
    create_oidc_provider: bool | None = Field(
        default=None,
        description="Create the IAM OIDC provider of the EKS cluster, through which the operator's components get "
        "their roles (IRSA); false when the account has it already (IAM refuses a second one). Default: true, "
        "false when taking over an operator (which had it).",
    )

    @property
    def creates_oidc_provider(self) -> bool:
        if self.create_oidc_provider is not None:
            return self.create_oidc_provider
        return self.existing_addon is None

    priority_class: PriorityClassName | None = Field(
        default=None,
        description="The priority class the docs and the report give endpoints (label kueue.x-k8s.io/priority-class); "
        "one of task_governance.priority_classes.",
    )
    load_balancer_cidrs: list[PrivateCidr] = Field(
        default_factory=list,
        max_length=20,
        description="(addition) The ranges of the subnets the endpoints' load balancer runs in: the team "
        "namespaces' network policy admits connections from them (the load balancer's targets are the model pods' "
        "addresses). Give the load balancer subnets no team pod runs in; empty: no load balancer reaches the model "
        'pods (docs/security.md, "The pod network").',
    )
    allow_unlisted_region: bool = Field(
        default=False,
        description="Install the operator in a region its images are not published in as hyperpod_teams/addons.py "
        "lists them (INFERENCE_REGIONS, from the operator's chart), for a region AWS added since. Without it, validate "
        "refuses such a region.",
    )


class Spaces(SpecModel):
    """SageMaker Spaces on the cluster (EKS add-on amazon-sagemaker-spaces): IDEs and notebooks that run in a
    team's namespace under its quota (`hyp create hyp-space`). Optional addition within spec v1."""

    existing_addon: ExistingAddon | None = Field(
        default=None,
        description="The cluster has the add-on already: take_over imports it, leave_alone keeps it out of the stacks; "
        "either way the teams get their access entries' space policies. Absent: the stacks install it with its "
        "controller's role (AmazonSageMakerSpacesControllerPolicy).",
    )
    version: AddonVersion | None = Field(default=None, description="Version of the add-on; unset: EKS's default.")
    install_ebs_csi_driver: bool = Field(
        default=True,
        description="Install the Amazon EBS CSI driver add-on the spaces keep their home on, with its role; set false "
        "when the cluster has it already.",
    )


class Observability(SpecModel):
    """The HyperPod observability add-on (amazon-sagemaker-hyperpod-observability) with an Amazon Managed Service
    for Prometheus workspace and, where offered, an Amazon Managed Grafana one: what `hyp get-monitoring` shows.
    Optional addition within spec v1."""

    existing_addon: ExistingAddon | None = Field(
        default=None,
        description="The cluster has the add-on already: take_over imports it and points it at the stacks' workspaces "
        "(the old workspace keeps its data, no longer written to), leave_alone keeps it and its workspaces out of the "
        "stacks; either way `hyp get-monitoring` works for the team roles. Absent: the stacks install it with its "
        "collector's role and the workspaces.",
    )
    grafana: bool = Field(
        default=True,
        description="Make an Amazon Managed Grafana workspace (IAM Identity Center sign-in) where the region offers "
        "it; the teams' groups are its viewers.",
    )


def installs(add_on: Inference | Spaces | Observability | None) -> bool:
    """Whether the stacks make the add-on (or take it over), rather than find it absent or leave it alone."""
    return add_on is not None and add_on.existing_addon != "leave_alone"


#: Settings only a HyperPod cluster the stacks create uses: refused when the spec adopts one.
CREATED_CLUSTER_ONLY = (
    "autoscaling",
    "node_provisioning_mode",
    "lifecycle_scripts_s3_uri",
    "lifecycle_on_create",
    "node_recovery",
    "timeouts",
    "allow_destroy",
    "cloudwatch_observability",
    "retired_instance_groups",
)
CREATED_INSTANCE_GROUP_ONLY = (
    "ebs_volume_gb",
    "threads_per_core",
    "deep_health_checks",
    "min_count",
    "kubernetes",
    "training_plan_arn",
    "capacity",
    "volume_kms_key_id",
    "image_release_version",
    "scheduled_update",
    "auto_patch",
)


class Cluster(SpecModel):
    name: ResourceName
    existing_hyperpod_cluster_name: ResourceName | None = Field(
        default=None,
        description="(optional addition) Adopt this HyperPod cluster instead of creating one: the stacks look it "
        "up and create nothing of it. Needs eks.existing_cluster_name (its EKS cluster); instance_groups then "
        "describe its groups (name, type, count) for the capacity checks and the report.",
    )
    eks: Eks = Field(default_factory=Eks)
    network: Network
    lifecycle_scripts_s3_uri: S3Prefix | None = Field(
        default=None, description="When absent, a lifecycle-scripts bucket is created."
    )
    lifecycle_on_create: str = Field(
        default="on_create.sh",
        min_length=1,
        max_length=128,
        description="Entry-point script under the lifecycle-scripts prefix (optional field).",
    )
    node_recovery: Literal["Automatic", "None"] = "Automatic"
    autoscaling: Literal["Karpenter"] | None = Field(
        default=None,
        description="(addition) Scale the instance groups with Karpenter (AutoScaling: Mode Enable); unset: off.",
    )
    node_provisioning_mode: Literal["Continuous"] | None = Field(
        default=None,
        description="(addition) Continuous provisioning: nodes are added as capacity comes, the cluster InService "
        "before every node is (NodeProvisioningMode).",
    )
    instance_groups: list[InstanceGroup] = Field(min_length=1, max_length=20)
    task_governance: TaskGovernance = Field(default_factory=TaskGovernance)
    dependencies_chart: DependenciesChart = Field(default_factory=DependenciesChart)
    timeouts: ClusterTimeouts = Field(
        default_factory=ClusterTimeouts,
        description="(optional addition) Terraform's create/update/delete timeouts of the HyperPod cluster.",
    )
    allow_destroy: bool = Field(
        default=False,
        description="Lift lifecycle.prevent_destroy from the HyperPod cluster (optional field): "
        "only to delete the cluster on purpose.",
    )
    retired_instance_groups: list[ResourceName] = Field(
        default_factory=list,
        max_length=100,
        description="(optional addition) Deployed instance groups the spec removes or renames on purpose. "
        "SageMaker knows a group by its name: a group that leaves instance_groups is deleted, its nodes "
        "terminated with every job on them (a renamed group is a new one, provisioned from zero). A plan "
        "that drops a deployed group not named here stops with an error naming this field.",
    )
    training_operator: TrainingOperator = Field(
        default_factory=TrainingOperator,
        description="(optional addition) The HyperPod training operator add-on and what it needs.",
    )
    inference: Inference | None = Field(
        default=None,
        description="(optional addition) The HyperPod inference operator: teams deploy and invoke models under their "
        "quota. Absent: no inference.",
    )
    spaces: Spaces | None = Field(
        default=None,
        description="(optional addition) SageMaker Spaces on the cluster: IDEs in the team namespace under its quota.",
    )
    observability: Observability | None = Field(
        default=None,
        description="(optional addition) The HyperPod observability add-on, Prometheus and Grafana "
        "(`hyp get-monitoring`).",
    )
    cloudwatch_observability: bool = Field(
        default=False,
        description="(optional addition) Install the Amazon CloudWatch Observability EKS add-on (Container "
        "Insights: the cluster metrics Studio's HyperPod page shows) and give the instance groups' role "
        "CloudWatchAgentServerPolicy; each team's roles then read their own namespace's container logs. Off "
        "by default: it sends metrics and container logs to CloudWatch, charged per node and per GB.",
    )
    pod_priority_classes: list[KubernetesPriorityClassName] = Field(
        default_factory=list,
        max_length=20,
        description="(addition) The Kubernetes PriorityClasses a team's pods may name (spec.priorityClassName); "
        "empty: none, and team pods run at the cluster's default priority. The kube-scheduler preempts by pod "
        "priority across namespaces, past every quota; a task's priority within task governance is Kueue's "
        "(task_governance.priority_classes).",
    )

    platform_group: ResourceName | None = Field(
        default=None,
        description="(addition) The instance group the platform's credentialed controllers run on, apart from the "
        "nodes team pods run on: the inference operator's controller, its load balancer controller and KEDA are "
        "placed there (its nodes' label sagemaker.amazonaws.com/instance-group-name, tolerating its taints), and no "
        "team pod may tolerate its taints. The group needs a NoSchedule or NoExecute taint (kubernetes.taints) and "
        "an instance type no team's quota names. Unset: the controllers run wherever the scheduler puts them "
        '(docs/security.md, "What is still shared").',
    )

    @model_validator(mode="after")
    def _platform_group_is_a_tainted_group_of_the_cluster(self) -> Cluster:
        if self.platform_group is None:
            return self
        group = next((g for g in self.instance_groups if g.name == self.platform_group), None)
        if group is None:
            raise spec_rule(
                f"platform_group {self.platform_group!r} is no group of instance_groups",
                field="platform_group",
                hint=f"name one of {', '.join(g.name for g in self.instance_groups)}",
            )
        if not group.platform_taints:
            raise spec_rule(
                f"instance group {group.name!r} has no NoSchedule or NoExecute taint: team pods would be scheduled "
                "onto the platform's nodes",
                field="platform_group",
                hint=f"give {group.name} a taint, e.g. kubernetes: {{taints: [{{key: hyperpod-teams.io/platform, "
                "value: 'true', effect: NoSchedule}]}",
            )
        return self

    @property
    def platform_instance_group(self) -> InstanceGroup | None:
        """The group of `platform_group`, if the spec names one."""
        return next((g for g in self.instance_groups if g.name == self.platform_group), None)

    @model_validator(mode="after")
    def _autoscaling_provisions_continuously(self) -> Cluster:
        if self.autoscaling and self.node_provisioning_mode != "Continuous":
            raise spec_rule(
                "Karpenter autoscaling adds nodes as capacity comes: HyperPod takes it on a cluster of continuous "
                "provisioning only",
                field="node_provisioning_mode",
                hint="set `node_provisioning_mode: Continuous` (SageMaker developer guide, 'Create and configure a "
                "HyperPod cluster with Karpenter autoscaling')",
            )
        return self

    @model_validator(mode="after")
    def _a_retired_group_is_no_group_of_the_cluster(self) -> Cluster:
        both = sorted({group.name for group in self.instance_groups} & set(self.retired_instance_groups))
        if both:
            raise spec_rule(
                f"{', '.join(both)} {'is' if len(both) == 1 else 'are'} both in instance_groups and retired",
                field="retired_instance_groups",
                hint="a retired group is one the cluster no longer has: remove it from one of the two lists",
            )
        return self

    @model_validator(mode="after")
    def _adopted_cluster_takes_no_creation_settings(self) -> Cluster:
        if self.existing_hyperpod_cluster_name is None:
            return self
        if self.eks.existing_cluster_name is None:
            raise spec_rule(
                "an existing HyperPod cluster runs on an existing EKS cluster, "
                "but eks.existing_cluster_name is not set",
                field="eks",
                hint="set eks.existing_cluster_name to the EKS cluster the HyperPod cluster is orchestrated by "
                "(aws sagemaker describe-cluster --cluster-name "
                f"{self.existing_hyperpod_cluster_name} --query Orchestrator.Eks.ClusterArn)",
            )
        unused = [name for name in CREATED_CLUSTER_ONLY if name in self.model_fields_set]
        unused += [
            f"instance_groups[{i}].{name}"
            for i, group in enumerate(self.instance_groups)
            for name in CREATED_INSTANCE_GROUP_ONLY
            if name in group.model_fields_set
        ]
        if "dependencies_chart" in self.model_fields_set:
            unused.append("dependencies_chart")
        if unused:
            raise spec_rule(
                f"{', '.join(unused)} only apply to a HyperPod cluster the stacks create, but "
                f"existing_hyperpod_cluster_name adopts {self.existing_hyperpod_cluster_name!r}",
                field="existing_hyperpod_cluster_name",
                hint="remove them: the existing cluster keeps its own lifecycle scripts, node recovery, volumes, "
                "health checks and dependency chart",
            )
        return self

    @property
    def installs_dependencies_chart(self) -> bool:
        """An adopted cluster runs its dependency chart already."""
        return self.dependencies_chart.install and not self.adopted

    @property
    def installs_training_operator(self) -> bool:
        """Installed by default on a cluster the stacks create; on an adopted one only when asked."""
        install = self.training_operator.install
        return (not self.adopted) if install is None else install

    @property
    def adopted(self) -> bool:
        """Whether the spec adopts an existing HyperPod cluster rather than creating one."""
        return self.existing_hyperpod_cluster_name is not None

    def capacity_by_instance_type(self) -> dict[str, int]:
        return capacity_by_instance_type(self.instance_groups)


def capacity_by_instance_type(groups: list[InstanceGroup]) -> dict[str, int]:
    """Nodes per instance type, summed over the instance groups."""
    capacity: dict[str, int] = {}
    for group in groups:
        capacity[group.instance_type] = capacity.get(group.instance_type, 0) + group.count
    return capacity


# --- teams -----------------------------------------------------------------------------------


class Members(SpecModel):
    scientists: str | None = Field(
        default=None, min_length=1, description="Default: group_name_pattern with role=scientists."
    )
    admins: str | None = Field(default=None, min_length=1, description="Default: group_name_pattern with role=admins.")


MigProfile = Literal[accelerator_partitions.MIG_PROFILE_TYPES]  # type: ignore[valid-type]
#: The most any amount of a quota may be (botocore: InstanceCount, AcceleratorsAmount, VCpuAmount,
#: MemoryInGiBAmount, AcceleratorPartitionConfigCountInteger all have max 10,000,000).
_QUOTA_MAX = 10_000_000


class AcceleratorPartition(SpecModel):
    """GPU partitions (NVIDIA MIG) guaranteed to the team: `ComputeQuotaResourceConfig.
    AcceleratorPartition`."""

    type: MigProfile = Field(description="A MIG profile the instance type's GPUs offer, such as mig-1g.10gb.")
    count: int = Field(ge=0, le=_QUOTA_MAX, description="Partitions of that profile.")


class ResourceAmount(SpecModel):
    """An amount of an instance type's capacity, as the API's ComputeQuotaResourceConfig takes it:
    whole instances (`count`), accelerators, vCPUs, memory, or GPU partitions. Give at least one.
    AWS fills vCPU and memory in proportion to accelerators (or memory to vCPU) when they are
    not given."""

    instance_type: ClusterInstanceType
    count: int | None = Field(default=None, ge=0, le=_QUOTA_MAX, description="Whole instances.")
    accelerators: int | None = Field(
        default=None, ge=0, le=_QUOTA_MAX, description="GPUs, Trainium or Inferentia devices (e.g. 4 of a p5's 8)."
    )
    vcpu: float | None = Field(default=None, ge=0, le=_QUOTA_MAX, description="vCPUs.")
    memory_gib: float | None = Field(default=None, ge=0, le=_QUOTA_MAX, description="Memory in GiB.")
    accelerator_partition: AcceleratorPartition | None = Field(
        default=None, description="GPU partitions (MIG), e.g. {type: mig-1g.10gb, count: 7}."
    )

    @model_validator(mode="after")
    def _an_amount_the_type_has(self) -> ResourceAmount:
        amounts = ("count", "accelerators", "vcpu", "memory_gib", "accelerator_partition")
        if all(getattr(self, name) is None for name in amounts):
            raise spec_rule(
                f"no amount of {self.instance_type} is given",
                field="count",
                hint="give count (instances), accelerators, vcpu, memory_gib or accelerator_partition",
            )
        devices = instance_types.ACCELERATORS_PER_INSTANCE.get(self.instance_type)
        if self.accelerators and not devices:
            raise spec_rule(
                f"{self.instance_type} has no accelerators",
                field="accelerators",
                hint="give count, vcpu or memory_gib for a CPU instance type",
            )
        partition = self.accelerator_partition
        if partition is not None and accelerator_partitions.per_gpu(self.instance_type, partition.type) is None:
            offered = accelerator_partitions.PROFILES_BY_INSTANCE_TYPE.get(self.instance_type)
            raise spec_rule(
                f"{self.instance_type} offers no GPU partition {partition.type}",
                field="accelerator_partition",
                hint=f"its profiles: {', '.join(offered)}"
                if offered
                else "GPU partitions (MIG) are offered on p4d, p4de, p5, p5e, p5en and p6 instance types",
            )
        return self

    @property
    def instances(self) -> Decimal:
        """The amount in instances of the type (4 of a p5's 8 GPUs: 0.5; 7 mig-1g.10gb partitions
        of a p5, one GPU's worth: 0.125): the count, else the accelerators and partitions over the
        accelerators of one instance, else the vCPUs or the memory over one instance's; 0 where
        the tables do not know the type's vCPUs or memory."""
        if self.count is not None:
            return Decimal(self.count)
        devices = instance_types.ACCELERATORS_PER_INSTANCE.get(self.instance_type) or 0
        gpus = Decimal(self.accelerators or 0)
        if self.accelerator_partition is not None:
            partition = self.accelerator_partition
            gpus += accelerator_partitions.gpus_of(self.instance_type, partition.type, partition.count)
        if gpus and devices:
            return gpus / devices
        vcpus = instance_types.VCPUS_PER_INSTANCE.get(self.instance_type)
        if self.vcpu is not None and vcpus:
            return Decimal(str(self.vcpu)) / vcpus
        memory = instance_types.MEMORY_GIB_PER_INSTANCE.get(self.instance_type)
        if self.memory_gib is not None and memory:
            return Decimal(str(self.memory_gib)) / Decimal(str(memory))
        return Decimal(0)


class QuotaEntry(ResourceAmount):
    """Capacity of one instance type guaranteed to the team."""


class Compute(SpecModel):
    quota: list[QuotaEntry] = Field(default_factory=list, max_length=15)
    existing_quota_arn: ComputeQuotaArn | None = Field(
        default=None,
        description="(optional addition) The team's compute quota exists already: the stacks create none and keep "
        "it as it is, and the plan stops when its team, instance counts or sharing differ from this section. "
        "Needs cluster.existing_hyperpod_cluster_name.",
    )
    sharing: Literal["Lend", "DontLend", "LendAndBorrow"] = "LendAndBorrow"
    borrow_limit_percent: int = Field(default=50, ge=1, le=500, description="Only with sharing LendAndBorrow.")
    absolute_borrow_limits: list[ResourceAmount] = Field(
        default_factory=list,
        max_length=15,
        description="(addition) The most the team may borrow of each instance type of its quota, in instances, "
        "accelerators, vCPUs, memory or partitions (ResourceSharingConfig.AbsoluteBorrowLimits): a cap in GPUs, "
        "not a percentage of a pool that moves. Only with sharing LendAndBorrow.",
    )
    preempt_team_tasks: Literal["Never", "LowerPriority"] = "LowerPriority"
    priority_classes: list[PriorityClassName] | None = Field(
        default=None,
        max_length=10,
        description="(addition) The task-governance priority classes the team's work may run at (label "
        "kueue.x-k8s.io/priority-class: <name>-priority), each one of cluster.task_governance.priority_classes; "
        "unset: all of them. The team's admission policies refuse any other, on a job, endpoint or space, on its "
        "pods, and on a Kueue workload an admin changes.",
    )
    fair_share_weight: int = Field(default=0, ge=0, le=100)
    active: bool = Field(
        default=True,
        description="(addition) false pauses the team's quota (ActivationState Disabled): its tasks are admitted "
        "against no guarantee, and the quota, its namespace and everything of the team are kept. An adopted "
        "quota (existing_quota_arn) is held to it only where the spec sets it: unset, it stays as AWS holds it.",
    )

    @model_validator(mode="after")
    def _borrow_limit_needs_borrowing(self) -> Compute:
        for name in ("borrow_limit_percent", "absolute_borrow_limits"):
            if name in self.model_fields_set and self.sharing != "LendAndBorrow":
                raise spec_rule(
                    f"{name} is set but sharing is {self.sharing}, which never borrows",
                    field=name,
                    hint=f"remove {name}, or set `sharing: LendAndBorrow`",
                )
        quota_types = {entry.instance_type for entry in self.quota}
        for index, limit in enumerate(self.absolute_borrow_limits):
            if limit.instance_type not in quota_types:
                raise spec_rule(
                    f"absolute_borrow_limits[{index}] limits {limit.instance_type}, which the team's quota does not "
                    "have",
                    field="absolute_borrow_limits",
                    hint=f"limit borrowing of a type of the quota ({', '.join(sorted(quota_types)) or 'none'})",
                )
        seen = [limit.instance_type for limit in self.absolute_borrow_limits]
        if len(set(seen)) != len(seen):
            raise spec_rule("an instance type has two absolute borrow limits", field="absolute_borrow_limits")
        return self

    @property
    def borrow_limit(self) -> int | None:
        """The borrow limit in percent, or None when the team never borrows."""
        return self.borrow_limit_percent if self.sharing == "LendAndBorrow" else None


class Studio(SpecModel):
    enabled: bool = True
    existing_domain_id: DomainId | None = Field(
        default=None,
        description="(optional addition) Take over the team's SageMaker AI domain that exists already: imported, "
        "never replaced, its users' home directories kept; its name, VPC, subnets, key and auth mode stay as "
        "they are (AWS fixes them at creation). It must use IAM Identity Center (auth mode SSO).",
    )
    default_instance_type: StudioInstanceType = "ml.t3.medium"
    idle_timeout_minutes: int = Field(
        default=60,
        ge=60,
        le=525600,
        description="Minutes without activity after which a member's JupyterLab app shuts down. Members may "
        "pick a shorter one for their own apps, down to 60 (SageMaker's least), never a longer one.",
    )
    job_instance_types: list[InstanceType] | None = Field(
        default=None,
        max_length=30,
        description="(addition) The instance types the team's Studio execution role may start SageMaker training and "
        "processing jobs on (condition sagemaker:InstanceTypes). Such jobs run outside the HyperPod cluster and its "
        "quota, billed to the team's tag. Unset: the instance types of the team's compute quota; [] : none.",
    )


class Budget(SpecModel):
    monthly_limit_usd: AmountUsd = Field(
        description="USD a month; AWS Budgets takes a plain decimal number (BudgetLimit Amount)."
    )
    notify_emails: list[EmailAddress] = Field(min_length=1, max_length=10)
    # One notification per threshold, and AWS Budgets takes at most 10 per budget (AWS Budgets
    # quotas); the provider creates them one by one and would fail at the 11th, leaving half a budget.
    thresholds_percent: list[int] = Field(default_factory=lambda: [80, 100], min_length=1, max_length=10)

    @field_validator("thresholds_percent")
    @classmethod
    def _thresholds_in_range(cls, thresholds: list[int]) -> list[int]:
        for threshold in thresholds:
            if not 1 <= threshold <= 1000:
                raise spec_rule(f"threshold {threshold} is outside 1..1000 percent")
        return thresholds


class ExistingPermissionSet(SpecModel):
    """A permission set in Identity Center that a team role takes over (imported, not created)."""

    arn: PermissionSetArn
    name: PermissionSetName = Field(
        description="Its name, which AWS fixes at creation: the stacks keep it, and EKS access entries find the "
        "AWSReservedSSO_<name>_ role by it."
    )
    assigned: bool = Field(
        default=True,
        description="The role's group holds it in the spec's account already: the assignment is imported too "
        "(Terraform would refuse to create one that exists). false: the stacks create the assignment.",
    )


class TeamData(SpecModel):
    """The team's own data home (optional addition within spec v1)."""

    enabled: bool = Field(
        default=True,
        description="A bucket of the team's own (<org>-<team>-data-<account>-<region>), versioned, TLS only, "
        "encrypted with a KMS key of the team's; its Studio execution role and workload role read and write it, "
        "no other team's role does.",
    )
    existing_bucket: BucketName | None = Field(
        default=None,
        description="Grant this bucket instead of creating one (its encryption and policy stay as they are).",
    )


class WorkloadIdentity(SpecModel):
    """What the team's pods run as (optional addition within spec v1)."""

    enabled: bool = Field(
        default=True,
        description="A role of the team's own (<org>-<team>-workload), bound by EKS Pod Identity to the service "
        "account team-workload in the team's namespace (hyp create hyp-pytorch-job --service-account-name "
        "team-workload): the team's data, nothing of another team's. Needs the EKS Pod Identity agent add-on.",
    )
    existing_role_arn: IamRoleArn | None = Field(
        default=None,
        description="Bind this role instead of creating one (its trust policy must allow pods.eks.amazonaws.com).",
    )


class Team(SpecModel):
    name: TeamName
    display_name: str | None = Field(default=None, description="Free text; defaults to name.")
    cost_center: TagValue | None = Field(default=None, description="Tag value for cost allocation.")
    members: Members = Field(default_factory=Members)
    compute: Compute = Field(default_factory=Compute)
    studio: Studio = Field(default_factory=Studio)
    budget: Budget | None = Field(default=None, description="Absent: no budget for the team.")
    data: TeamData = Field(default_factory=TeamData, description="(optional addition) The team's data home.")
    workload_identity: WorkloadIdentity = Field(
        default_factory=WorkloadIdentity, description="(optional addition) What the team's pods run as."
    )
    existing_permission_sets: dict[Literal["scientists", "admins"], ExistingPermissionSet] = Field(
        default_factory=dict,
        description="(optional addition) Permission sets that exist already, by role, for the stacks to take over "
        "(imported with their inline policy) instead of creating <org>-<team>-<role>.",
    )

    @property
    def title(self) -> str:
        return self.display_name or self.name

    @property
    def job_instance_types(self) -> list[str]:
        """The instance types the team's Studio execution role starts training and processing jobs on:
        studio.job_instance_types, else its compute quota's."""
        if self.studio.job_instance_types is not None:
            return sorted(set(self.studio.job_instance_types))
        return sorted({entry.instance_type for entry in self.compute.quota})

    def existing_permission_set(self, role: str) -> ExistingPermissionSet | None:
        """The permission set the role takes over, if the spec names one."""
        return next((found for r, found in self.existing_permission_sets.items() if r == role), None)


# --- cost ------------------------------------------------------------------------------------


#: The commit of awslabs/sagemaker-hyperpod-usage-report whose operator chart the stacks install
#: (the repository has no release tags; this one is of 2026-01-09), and that usage_report.py
#: transcribes.
USAGE_REPORT_REF = "e71f39ae9e1152d865451d9873a4ee9e8467dc9c"
USAGE_REPORT_REPOSITORY = "https://github.com/awslabs/sagemaker-hyperpod-usage-report"
#: Where the default chart path expects the clone: beside the output folder.
USAGE_REPORT_CLONE_DIR = "sagemaker-hyperpod-usage-report"
USAGE_REPORT_CHART_PATH = "helm_chart/SageMakerHyperPodUsageReportChart"


class UsageReports(SpecModel):
    """HyperPod's usage reporting (awslabs/sagemaker-hyperpod-usage-report): what the stacks set up
    for it when enabled. Optional addition within spec v1."""

    enabled: bool = Field(
        default=False,
        description="Deploy the report bucket, the operator's role (EKS Pod Identity), the Athena database and "
        "daily aggregation (<org>-usage-report) and the operator's Helm chart (<org>-usage-operator). Needs "
        "task governance.",
    )
    retention_days: int = Field(
        default=180, ge=1, le=3650, description="Days the report bucket keeps usage data (the template's default)."
    )
    install_pod_identity_agent: bool = Field(
        default=True,
        description="Install the EKS Pod Identity agent add-on (in <org>-cluster, shared with the training "
        "operator); set false when the cluster has it already (creating it twice fails).",
    )
    git_ref: str = Field(
        default=USAGE_REPORT_REF,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,127}$",
        description="Commit or tag of awslabs/sagemaker-hyperpod-usage-report to take the operator chart from.",
    )
    chart: str = Field(
        default=f"../../../{USAGE_REPORT_CLONE_DIR}/{USAGE_REPORT_CHART_PATH}",
        min_length=1,
        description="Path of the operator chart, read from the stack's working folder (<out>/stacks/<stack>): the "
        "default is a clone beside the output folder.",
    )


class Cost(SpecModel):
    """How the shared cluster's spend reaches the teams (optional section)."""

    shared_split: Literal["quota", "proportional", "even"] = Field(
        default="quota",
        description="How the shared platform's spend (HyperPod cluster, EKS, lifecycle scripts) is split "
        "across the teams in the cost category: quota, by each team's guaranteed capacity, weighted by "
        "what an instance of each type is worth (fixed percentages; a team without quota gets nothing); "
        "proportional, in proportion to each team's own cost (AWS's PROPORTIONAL: in the cost category each "
        "team's own tagged spend, in a chargeback statement each team's charge for its own use); even. "
        "`hyperpod-teams chargeback` charges idle capacity by the same rule: the cost category's split and a "
        "statement are two views of one spend, never to be added (docs/chargeback.md).",
    )
    instance_prices_usd: dict[InstanceType, AmountUsd] = Field(
        default_factory=dict,
        description="What an instance of a type is worth per hour, for the quota split and for `chargeback` of a "
        "cost given as one sum; default: its accelerators (GPUs, Trainium or Inferentia chips), which every "
        "type of a quota must have or be priced here. chargeback needs a price for a type without "
        "accelerators (CPU capacity is not free) unless its cost export names the instance types.",
    )
    usage_reports: UsageReports = Field(
        default_factory=UsageReports,
        description="HyperPod usage reporting, for `hyperpod-teams chargeback` by measured use.",
    )


# --- the whole spec --------------------------------------------------------------------------
