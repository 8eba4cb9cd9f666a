"""Pieces every SAML identity-provider plugin shares: Identity Center's SAML values and the SCIM
credentials as Terraform variables, never in the spec or the synthesized JSON."""

from __future__ import annotations

from constructs import Construct

from hyperpod_teams.engine import cdk
from hyperpod_teams.plugins import IDENTITY_CENTER_VARIABLES, SCIM_SWITCH_VARIABLE, SCIM_VARIABLES


def identity_center_variables(scope: Construct) -> dict[str, cdk.TerraformVariable]:
    """Identity Center's ACS and issuer URLs, as variables of the stack of `scope`.

    They sit at the stack's top level, so their Terraform names are the names in
    IDENTITY_CENTER_VARIABLES, which the runbook tells the operator to set.
    """
    stack = cdk.TerraformStack.of(scope)
    return {
        name: cdk.TerraformVariable(
            stack,
            name,
            type="string",
            description=f"{description}, from the Identity Center console (runbook, step 'Identity source').",
            validation=[
                cdk.TerraformVariableValidationConfig(
                    condition=f'${{can(regex("^https://", var.{name}))}}',
                    error_message=f"{name} must be the https:// URL Identity Center shows as its {description}.",
                )
            ],
        )
        for name, description in IDENTITY_CENTER_VARIABLES.items()
    }


class ScimCredentials(Construct):
    """The switch and the sensitive SCIM endpoint and token of automatic provisioning, as
    variables of the stack (names from plugins.SCIM_VARIABLES and SCIM_SWITCH_VARIABLE)."""

    def __init__(self, scope: Construct, id_: str) -> None:
        super().__init__(scope, id_)
        stack = cdk.TerraformStack.of(self)
        self.enabled = cdk.TerraformVariable(
            stack,
            SCIM_SWITCH_VARIABLE,
            type="bool",
            default=False,
            description="Turn on automatic provisioning (SCIM) once Identity Center has shown its SCIM "
            "endpoint and access token; set both with it.",
        )
        self.endpoint, self.access_token = (
            cdk.TerraformVariable(
                stack, name, type="string", default="", sensitive=True, description=f"{description} (sensitive)."
            )
            for name, description in SCIM_VARIABLES.items()
        )
        #: 1 when provisioning is switched on, else 0: the count of the provisioning resources.
        self.count = cdk.Token.as_number(cdk.Fn.conditional(self.enabled.boolean_value, 1, 0))
        # Written out: cdktf's Op renders an empty string literal as `undefined`.
        not_empty = " && ".join(f'var.{name} != ""' for name in SCIM_VARIABLES)
        self.precondition = cdk.Precondition(
            condition=f"${{{not_empty}}}",
            error_message=f"{SCIM_SWITCH_VARIABLE} is true but {' or '.join(SCIM_VARIABLES)} is empty: "
            f"set TF_VAR_{' and TF_VAR_'.join(SCIM_VARIABLES)} from Identity Center's automatic provisioning dialog.",
        )
