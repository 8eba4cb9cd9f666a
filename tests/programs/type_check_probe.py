import sys
from hyperpod_teams import bindings, speedups

if sys.argv[1] == "skip":
    speedups.skip_argument_type_checks()
from hyperpod_teams.engine import cdk

app = cdk.App(outdir=sys.argv[2])
stack = cdk.TerraformStack(app, "probe")
try:
    bindings.aws_iam_role.IamRole(stack, "role", assume_role_policy=42)  # a number, not a string
except Exception as error:
    print(type(error).__name__, "|", " / ".join(str(error).splitlines()))
