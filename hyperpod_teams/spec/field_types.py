"""The values a field of the spec may take: the scalar types (names AWS and Kubernetes accept, ARNs,
CIDRs, instance types HyperPod and Studio offer, tags, amounts), the checks every text field gets
(control and bidirectional characters, YAML booleans where numbers belong), and `SpecModel`, the
base of every section.

Ground floor of the spec: imports no other module of the spec.
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Iterator
from typing import Annotated, Any, Literal, get_args, get_origin

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    model_validator,
)
from pydantic_core import PydanticCustomError

from hyperpod_teams import instance_types

# Human wording for every pattern, so an error says what is allowed instead of quoting a regex.
PATTERN_RULES: dict[str, str] = {}


def pattern(regex: str, rule: str, **kwargs: Any) -> Any:
    """The constraint of a constrained string type, `Annotated[str, pattern(...)]`: its pattern
    and, for error messages and the JSON Schema, the rule in words."""
    PATTERN_RULES[regex] = rule
    return Field(pattern=regex, description=rule, **kwargs)


def optional(description: str, **constraints: Any) -> Any:
    """A field the spec may leave out (None when it does), with its description for the JSON Schema
    and the docs, and any constraints on a value that is given."""
    return Field(default=None, description=description, **constraints)


OrganizationName = Annotated[
    str,
    pattern(
        r"^[a-z][a-z0-9-]{0,18}[a-z0-9]$",
        "2 to 20 characters: lowercase letters, digits and hyphens, starting with a letter and not "
        "ending with a hyphen",
    ),
]


AccountId = Annotated[str, pattern(r"^\d{12}$", "exactly 12 digits, written as a quoted string")]


RegionName = Annotated[str, pattern(r"^[a-z]{2}(-gov)?-[a-z]+-\d$", "an AWS region name such as us-west-2")]


IdentityCenterInstanceArn = Annotated[
    str,
    pattern(
        r"^arn:aws[a-z-]*:sso:::instance/(sso)?ins-[a-zA-Z0-9-.]{16}$",
        "an IAM Identity Center instance ARN such as arn:aws:sso:::instance/ssoins-0123456789abcdef",
    ),
]


SchedulerConfigArn = Annotated[
    str,
    pattern(
        r"^arn:aws[a-z-]*:sagemaker:[a-z0-9-]{9,16}:[0-9]{12}:cluster-scheduler-config/[a-z0-9]{12}$",
        "a cluster scheduler config ARN such as "
        "arn:aws:sagemaker:us-west-2:111122223333:cluster-scheduler-config/abcdef123456",
    ),
]


ComputeQuotaArn = Annotated[
    str,
    pattern(
        r"^arn:aws[a-z-]*:sagemaker:[a-z0-9-]*:[0-9]{12}:compute-quota/[a-z0-9]{12}$",
        "a compute quota ARN such as arn:aws:sagemaker:us-west-2:111122223333:compute-quota/abcdef123456",
    ),
]


DomainId = Annotated[str, pattern(r"^d-(-*[a-z0-9]){1,61}$", "a SageMaker AI domain ID such as d-abcdef123456")]


BucketName = Annotated[
    str,
    pattern(
        r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$",
        "an S3 bucket name: 3 to 63 lowercase letters, digits, dots and hyphens",
    ),
]


IamRoleArn = Annotated[
    str,
    pattern(
        r"^arn:aws[a-z-]*:iam::[0-9]{12}:role/[A-Za-z0-9_+=,.@/-]{1,512}$",
        "an IAM role ARN such as arn:aws:iam::111122223333:role/ml-team-jobs",
    ),
]


IamRoleName = Annotated[
    str, pattern(r"^[\w+=,.@-]{1,64}$", "1 to 64 of letters, digits and + = , . @ _ - (an IAM role name)")
]


PermissionSetArn = Annotated[
    str,
    pattern(
        r"^arn:aws[a-z-]*:sso:::permissionSet/(sso)?ins-[a-zA-Z0-9-.]{16}/ps-[a-zA-Z0-9-./]{16}$",
        "a permission set ARN such as arn:aws:sso:::permissionSet/ssoins-0123456789abcdef/ps-0123456789abcdef",
    ),
]


PermissionSetName = Annotated[str, pattern(r"^[\w+=,.@-]{1,32}$", "1 to 32 of letters, digits and + = , . @ _ -")]


IdentityStoreId = Annotated[str, pattern(r"^d-[0-9a-f]{10}$", "d- followed by 10 hexadecimal digits")]


SessionDuration = Annotated[
    str, pattern(r"^PT([1-9]|1[0-2])H$", "an ISO 8601 duration in whole hours from PT1H to PT12H")
]


ResourceName = Annotated[
    str,
    pattern(
        r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$",
        "1 to 63 letters, digits and hyphens, starting and ending with a letter or digit",
        # The pattern alone lets runs of hyphens through: the registry schema also says maxLength 63.
        max_length=63,
    ),
]


KubernetesVersion = Annotated[
    str,
    pattern(
        r"^1\.(28|29|30|31|32|33)$",
        'a Kubernetes version HyperPod supports, "1.28" to "1.33", written as a quoted string',
    ),
]


VpcId = Annotated[str, pattern(r"^vpc-[0-9a-f]{8,17}$", "vpc- followed by 8 to 17 hexadecimal digits")]


SubnetId = Annotated[str, pattern(r"^subnet-[0-9a-f]{8,17}$", "subnet- followed by 8 to 17 hexadecimal digits")]


SecurityGroupId = Annotated[str, pattern(r"^sg-[0-9a-f]{8,17}$", "sg- followed by 8 to 17 hexadecimal digits")]


S3Prefix = Annotated[
    str,
    pattern(
        r"^s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]/([^\s]*/)?$",
        "an S3 URI of a bucket and prefix ending in a slash, such as s3://my-bucket/lifecycle/",
    ),
]


InstanceType = Annotated[
    str, pattern(r"^ml\.[a-z0-9]+\.[a-z0-9]+$", "a SageMaker instance type such as ml.p5.48xlarge")
]


def _one_of_aws_list(value: str, offered: frozenset[str], listed: tuple[str, ...], *, what: str, shape: str) -> str:
    """`value` when AWS's list (a botocore enum, hyperpod_teams/instance_types.json: `listed`, and
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
            "hyperpod_teams/instance_types.json",
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
    pattern(r"^ml\.[a-z0-9-]+\.[a-z0-9]+$", "an instance type of SageMaker Studio apps, such as ml.t3.medium"),
    AfterValidator(_offered_by_studio),
]


#: An instance type of a HyperPod instance group or compute quota: one of AWS's ClusterInstanceType.
ClusterInstanceType = Annotated[
    str,
    pattern(
        r"^ml\.[a-z0-9-]+\.[a-z0-9]+$",
        "an instance type HyperPod offers, such as ml.p5.48xlarge",
        json_schema_extra={"enum": list(instance_types.CLUSTER_INSTANCE_TYPES)},
    ),
    AfterValidator(_offered_by_hyperpod),
]


PriorityClassName = Annotated[
    str,
    pattern(
        r"^[a-z0-9]([-a-z0-9]*[a-z0-9]){0,39}$",
        "lowercase letters, digits and hyphens, starting and ending with a letter or digit",
    ),
]


TeamName = Annotated[
    str,
    pattern(
        r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
        "lowercase letters, digits and hyphens, starting and ending with a letter or digit, at most 40 characters",
        max_length=40,
    ),
]


EmailAddress = Annotated[str, pattern(r"^[^@\s]+@[^@\s]+\.[^@\s]+$", "an e-mail address such as ml-leads@example.com")]


PublicCidr = Annotated[
    str,
    pattern(
        r"^(\d{1,3}\.){3}\d{1,3}/([1-9]|[12][0-9]|3[0-2])$",
        "an IPv4 range such as 203.0.113.0/24, /1 to /32 (a /0 would open the API to the internet)",
    ),
]


PrivateCidr = Annotated[
    str,
    pattern(
        r"^(\d{1,3}\.){3}\d{1,3}/(8|9|[12][0-9]|3[0-2])$",
        "an IPv4 range of the VPC such as 10.0.64.0/24, /8 to /32",
    ),
]


#: A Kubernetes PriorityClass's name (a DNS subdomain, Kubernetes' own rule for object names).
KubernetesPriorityClassName = Annotated[
    str,
    pattern(
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
    str,
    pattern(r"^[a-z][a-z0-9_]*$", "the entry-point name of an identity-provider plugin, such as entra_id"),
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
