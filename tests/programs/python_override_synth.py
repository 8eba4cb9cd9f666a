import json, sys
from hyperpod_teams import speedups

speedups.tune_node_process()
from hyperpod_teams.engine import cdk

stack = cdk.TerraformStack(cdk.App(outdir=sys.argv[1] + "/later"), "later")
changed = cdk.TerraformResource(stack, "r", terraform_resource_type="null_resource")
stack.prepare_stack()
changed.add_override("triggers.later", "yes")
print("LATER", json.dumps(stack.to_terraform()["resource"]))


class Counting(cdk.TerraformResource):
    calls = 0

    def _synthesize_attributes(self):
        Counting.calls += 1
        return {"call": Counting.calls}


app = cdk.App(outdir=sys.argv[1])
Counting(cdk.TerraformStack(app, "s"), "r", terraform_resource_type="null_resource")
app.synth()
print("CALLS", Counting.calls)
