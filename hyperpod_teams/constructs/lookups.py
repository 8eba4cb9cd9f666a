"""Cloud Control lookups of what exists already (the spec's `existing_*`), and the
postconditions that stop a plan when what AWS describes is not what the spec says."""

from __future__ import annotations

import json

from constructs import Construct

from hyperpod_teams import bindings
from hyperpod_teams.engine import cdk


def cloud_control_lookup(
    scope: Construct, id_: str, *, type_name: str, identifier: str, checks: list[cdk.Postcondition]
):
    """A Cloud Control `GetResource` of `type_name` by `identifier`, with `checks` as its postconditions."""
    return bindings.aws_data_cloudcontrolapi_resource.DataAwsCloudcontrolapiResource(
        scope,
        id_,
        type_name=type_name,
        identifier=identifier,
        lifecycle=cdk.TerraformResourceLifecycle(postcondition=checks),
    )


def equals_check(keys: tuple[str, ...], expected: str, message: str) -> cdk.Postcondition:
    """The looked-up property at `keys` (nested) equals `expected`, a Terraform reference (another
    stack's or resource's value): a postcondition, read through `self`."""
    value = cdk.Fn.jsondecode(cdk.TerraformSelf.get_string("properties"))
    for key in keys[:-1]:
        value = cdk.Fn.lookup(value, key, {})
    return cdk.Postcondition(condition=cdk.Op.eq(cdk.Fn.lookup(value, keys[-1], ""), expected), error_message=message)


def same_cluster_check(cluster_arn: str, where: str, fix: str) -> cdk.Postcondition:
    """The looked-up task governance resource (scheduler config, compute quota) is the adopted
    HyperPod cluster's: its `ClusterArn` is `cluster_arn`."""
    return equals_check(("ClusterArn",), cluster_arn, f"{where} belongs to another HyperPod cluster: {fix}.")


def hcl_literal(value: object) -> str:
    """A Terraform expression for a plain value (a string, number or map of them)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {hcl_literal(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)


def property_check(path: str, expected: object, message: str, *, iterate: str | None = None) -> cdk.Postcondition:
    """The looked-up property at `path` (dotted) equals `expected`, a plain value. `iterate`
    ("key => value" over the list at `path`) compares a list of objects as a map."""
    value = f"jsondecode(self.properties).{path}"
    if iterate is not None:
        value = f"{{for item in {value} : {iterate}}}"
    empty = "{}" if iterate is not None else '""'
    return cdk.Postcondition(condition=f"${{try({value}, {empty}) == {hcl_literal(expected)}}}", error_message=message)


def tags_check(tags: dict[str, str], what: str, command: str) -> cdk.Postcondition:
    """The looked-up resource carries `tags`, without which team members' permission sets (scoped
    by tag) cannot see it and its spend reaches no group."""
    present = "{for tag in jsondecode(self.properties).Tags : tag.Key => tag.Value}"
    condition = f"${{alltrue([for key, value in {hcl_literal(tags)} : try({present}[key], null) == value])}}"
    return cdk.Postcondition(
        condition=condition,
        error_message=f"{what} lacks the tags that let team members see it and cost allocation count its spend "
        f"({', '.join(f'{k}={v}' for k, v in tags.items())}); the stacks do not manage it, so add them once: "
        f"`{command}`.",
    )


def taken_over_lifecycle(existing: str | None) -> cdk.TerraformResourceLifecycle | None:
    """What an imported resource (`existing_addon: take_over`) keeps: no plan destroys it."""
    return cdk.TerraformResourceLifecycle(prevent_destroy=True) if existing == "take_over" else None


def import_taken_over_addon(addon, *, eks_cluster_name: str, addon_name: str, existing: str | None) -> None:
    """An add-on the spec takes over (`existing_addon: take_over`) is imported by its import ID
    (aws_eks_addon: CLUSTER_NAME:ADDON_NAME); made with `taken_over_lifecycle`, no plan destroys it."""
    if existing == "take_over":
        addon.import_from(f"{eks_cluster_name}:{addon_name}")
