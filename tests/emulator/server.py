"""The local AWS API the emulator tier deploys to: moto's server app behind the project's
additions, on 127.0.0.1. Run as `python -m tests.emulator.server PORT_FILE`; it binds a free port,
writes it to PORT_FILE when it is ready to answer, and serves until it is killed.

The account is the one moto answers for (MOTO_ACCOUNT_ID, set by the fixture to the spec's
account, so the stacks' `allowed_account_ids` stays real). An organization of several accounts
(the spec's `organization.accounts`) runs without it: EMULATOR_HOME_ACCOUNT is the account of a
request that names none, EMULATOR_ACCOUNTS the others, and a request is answered as the account
its credentials are of (a role assumed there), as moto tells it.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def evaluate_secure_transport() -> None:
    """Bucket policies as AWS evaluates `aws:SecureTransport`.

    moto drops conditions it cannot evaluate and so applies the lifecycle bucket's TLS-only deny
    (`"Condition": {"Bool": {"aws:SecureTransport": "false"}}`) to every request, which AWS
    applies to plain-HTTP requests only. Every request here stands for the provider's HTTPS
    call to AWS, so such a statement never applies. Reaches into moto's FakeBucket and IAMPolicy
    (moto is pinned in pyproject's `emulator` extra for that reason).
    """
    from moto.iam.access_control import IAMPolicy, PermissionResult
    from moto.s3.models import FakeBucket

    def plain_http_only(statement: dict) -> bool:
        condition = statement.get("Condition") or {}
        value = condition.get("Bool", {}).get("aws:SecureTransport")
        return list(condition) == ["Bool"] and str(value).lower() in ("false", "['false']")

    def get_permission(self: FakeBucket, action: str, resource: str) -> PermissionResult:
        if self.policy is None:
            return PermissionResult.NEUTRAL
        policy = json.loads(self.policy)
        statements = policy["Statement"] if isinstance(policy["Statement"], list) else [policy["Statement"]]
        policy["Statement"] = [s for s in statements if not plain_http_only(s)]
        return IAMPolicy(json.dumps(policy)).is_action_permitted(action, resource)

    FakeBucket.get_permission = get_permission  # type: ignore[method-assign]


def describe_referenced_group_rules() -> None:
    """A security group rule's description as EC2 answers it whatever the rule's source.

    moto reads a rule's description from its IP range only, so a rule whose source is another group
    (the Studio groups' 443 rule on the cluster's group: UserIdGroupPairs[].Description) comes back
    without one, and every re-plan would show it as drift. EC2 keeps it (DescribeSecurityGroupRules,
    SecurityGroupRule.Description). Reaches into moto's SecurityGroupRule (moto is pinned)."""
    from moto.ec2.models.security_groups import SecurityGroupRule

    def description(self: SecurityGroupRule) -> str | None:
        return self.ip_range.get("Description") or (self.source_group or {}).get("Description")

    SecurityGroupRule.description = property(description)  # type: ignore[assignment]


def answer_unknown_keys_as(account: str) -> None:
    """Requests whose access key no account holds (the tests' own administrator clients) answered
    as `account` instead of moto's 123456789012: moto's get_account_id_from falls back to the
    module's DEFAULT_ACCOUNT_ID (moto is pinned)."""
    import moto.iam.models

    moto.iam.models.DEFAULT_ACCOUNT_ID = account


def main() -> None:
    port_file = Path(sys.argv[1])
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
    from werkzeug.serving import make_server

    from tests.emulator.additions import Additions

    evaluate_secure_transport()
    describe_referenced_group_rules()

    moto_app = DomainDispatcherApplication(create_backend_app)
    home = os.environ.get("MOTO_ACCOUNT_ID") or os.environ["EMULATOR_HOME_ACCOUNT"]
    if "MOTO_ACCOUNT_ID" not in os.environ:
        answer_unknown_keys_as(home)
    others = [account for account in os.environ.get("EMULATOR_ACCOUNTS", "").split(",") if account]
    app = Additions(moto_app, account_id=home, accounts=others)

    class NamingTheOperation(MotoRequestHandler):
        """The log line of a JSON-protocol request names its operation (X-Amz-Target, e.g.
        SageMaker.CreateDomain): what a failed apply's requests were, read from emulator.log."""

        def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
            target = self.headers.get("X-Amz-Target") if self.headers else None
            self.log("info", '"%s" %s %s%s', self.requestline, code, size, f" {target}" if target else "")

    server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=NamingTheOperation)
    partial = port_file.with_suffix(".partial")
    partial.write_text(str(server.server_address[1]))
    partial.rename(port_file)  # whole or absent: the fixture never reads half a number
    server.serve_forever()


if __name__ == "__main__":
    main()
