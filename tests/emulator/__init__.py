"""The emulator tier: every AWS stack applied, re-planned, destroyed and applied again against a
local AWS API (moto in server mode, on the loopback address), with what moto lacks for the
project's resources added beside it (`additions.py`, `cloud_control.py`).

- `server.py`: the program the tier starts (moto's WSGI app behind the additions).
- `additions.py`: EKS access entries, access policies, add-ons and pod identity, SSO Admin
  tagging, provisioning and application assignments, SageMaker domains, budget subscribers, cost
  allocation tags, and what AWS makes by itself (the `AWSReservedSSO_*` roles).
- `input_shapes.py`: every request checked against botocore's newest input shapes first, whoever
  answers it; `service_rules.py`: what AWS checks beyond them (policy documents, tags).
- `authorization.py` and `iam_actions.py`: IAM evaluated for the team members' sessions and for
  the deploying pipeline's role, which the tier applies as.
- `cloud_control.py` and `registry.py`: a local Cloud Control API that checks each
  `desired_state` against the CloudFormation registry's schemas as the pinned cfn-lint bundles
  them, read apart from the project's models and its copies of the schemas, so the check is not
  circular.
- `deployment.py`: runs the real terraform binary over the stacks as `cdktf deploy` would.

Run with `pytest -m emulator` (`make test` runs it with the rest; docs/testing.md).
"""
