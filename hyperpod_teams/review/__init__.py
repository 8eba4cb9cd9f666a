"""What people read: the outputs written for reviewers, operators and finance, never for Terraform.

- `report`: the team-centred review of a spec (who may use what, compute, where spend goes),
  with the plan summary when terraform plans are given;
- `plan_summary`: terraform plan JSON summarized by team and stack, with warnings;
- `runbook`: the deployment procedure with its manual steps;
- `chargeback`: the per-team statement from HyperPod usage reports and the cluster's cost;
- `document`: the blocks the report and runbook are made of, rendered to Markdown or HTML.

Pure like the spec it reads: nothing here imports cdktf or the provider bindings.
"""
