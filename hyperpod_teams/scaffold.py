"""`hyperpod-teams init`: the files a new platform repository starts from (pure: text only).

A starter spec that validates and synthesizes as it is (every value to replace is marked), the
JSON Schema beside it for editors, the `cdktf.json` that both engines' CLIs read (`cdktn synth`,
or `cdktf synth` with the CDKTF engine), and the next steps.
"""

from __future__ import annotations

import json

#: The files init writes, in the order it lists them.
SPEC_FILE = "teams.yaml"
SCHEMA_FILE = "spec-v1.schema.json"
CDKTF_JSON = "cdktf.json"
NEXT_STEPS_FILE = "NEXT-STEPS.md"
GITIGNORE = ".gitignore"

#: What each identity provider's starter `identity.settings` and install line are.
IDENTITY_PROVIDERS: dict[str, dict[str, str | None]] = {
    # Any SAML 2.0 IdP: the stacks look up the groups it provisions into Identity Center.
    "generic_saml": {"extra": None, "settings": ""},
    # The enterprise application and groups in Entra ID, wired by SAML and SCIM.
    "entra_id": {
        "extra": "entra",
        "settings": "  # settings: {tenant_id: ...}  # default: the azuread provider's own (ARM_TENANT_ID)\n",
    },
}

_SPEC = """\
# yaml-language-server: $schema=./{schema_file}
# A starter spec written by `hyperpod-teams init`: two teams share one new HyperPod cluster on EKS.
# Replace every value marked REPLACE, then `hyperpod-teams validate teams.yaml`.
# The fields: https://github.com/hyperpod-teams/hyperpod-teams/blob/main/docs/spec-reference.md
version: 1

organization:
  name: {org}
  account_id: "111122223333"  # REPLACE: the AWS account the cluster runs in
  region: us-west-2
  tags:
    owner: ml-platform
  platform_admins_group: {org}-ml-platform-admins

identity:
  provider: {provider}
  identity_center:
    instance_arn: arn:aws:sso:::instance/ssoins-0123456789abcdef  # REPLACE: aws sso-admin list-instances
    identity_store_id: d-0123456789  # REPLACE
{settings}
cluster:
  name: ml-shared
  eks:
    create: true
    kubernetes_version: "1.32"
  network:  # REPLACE: the VPC, private subnets and security group the nodes use
    vpc_id: vpc-0abc1234def567890
    subnet_ids: [subnet-0a1b2c3d4e5f60718, subnet-0f1e2d3c4b5a60718]
    security_group_ids: [sg-0123456789abcdef0]
  instance_groups:
    - name: gpu-workers
      instance_type: ml.g5.12xlarge
      count: 4
  task_governance:
    enabled: true
    fair_share: Enabled
    priority_classes:
      - {{name: training, weight: 70}}
      - {{name: experimentation, weight: 30}}

teams:
  - name: research
    cost_center: CC-1001
    compute:
      quota:
        - {{instance_type: ml.g5.12xlarge, count: 2}}
      sharing: LendAndBorrow
      borrow_limit_percent: 50
    budget:
      monthly_limit_usd: 10000
      notify_emails: [research-leads@example.com]  # REPLACE

  - name: product
    cost_center: CC-1002
    compute:
      quota:
        - {{instance_type: ml.g5.12xlarge, count: 2}}
      sharing: Lend
"""

_NEXT_STEPS = """\
# Next steps

1. Replace the values marked REPLACE in `teams.yaml` (your editor checks it against
   `{schema_file}`), then check it:

       hyperpod-teams validate teams.yaml

2. Synthesize the stacks with the CLI of {title} ({cli}), which reads `cdktf.json`:

       {cli_install}
       {cli} synth

   or without the {title} CLI: `hyperpod-teams synth teams.yaml --out cdktf.out{engine_flag}`.
   Both need Node.js 22 or later (the engine runs in it) and Terraform on the PATH (the engine
   reads its version); run them from an environment where hyperpod-teams {version} is installed, from a
   checkout of its tag v{version} (`{install}`) or its wheel, never by the bare name, which anyone
   could register on the package index until it is published there (the `app` line of
   `cdktf.json` starts `python -m hyperpod_teams.cdktf_app`).

3. See the stacks in deploy order and what each needs:

       hyperpod-teams stacks teams.yaml
       hyperpod-teams runbook teams.yaml > RUNBOOK.md

   and deploy them in that order (`{cli} deploy <stack>`), each with the credentials the
   runbook names.
"""

_GITIGNORE = """\
# Synthesized output and Terraform's working files; rebuilt by `synth`.
cdktf.out/
.terraform/
# Local state holds resource attributes, some secret: keep it out of git (use a remote backend).
*.tfstate
*.tfstate.*
"""


def _version() -> str:
    from hyperpod_teams import __version__

    return __version__


def starter_files(*, org: str, provider: str, engine: str, schema_text: str) -> dict[str, str]:
    """The files of a new platform folder, by name, in the order init lists them."""
    identity = IDENTITY_PROVIDERS[provider]
    extra_names = [name for name in (identity["extra"], "cdktf" if engine == "cdktf" else None) if name]
    settings = identity["settings"] or ""
    install = (
        f"pip install './hyperpod-teams[{','.join(extra_names)}]'" if extra_names else "pip install ./hyperpod-teams"
    )
    app = "python -m hyperpod_teams.cdktf_app" + (" --engine cdktf" if engine == "cdktf" else "")
    cdktf_json = {
        "language": "python",
        "app": app,
        "projectId": f"hyperpod-teams-{org}",
        "sendCrashReports": "false",
        "terraformProviders": [],
        "terraformModules": [],
        "context": {"hyperpod-teams:spec": SPEC_FILE},
    }
    cli = "cdktn" if engine == "cdktn" else "cdktf"
    cli_install = "npm install --global cdktn-cli@0.24.0  # needs Node.js 22.19 or later"
    if engine == "cdktf":
        cli_install = "npm install --global cdktf-cli@0.21.0"
    return {
        SPEC_FILE: _SPEC.format(schema_file=SCHEMA_FILE, org=org, provider=provider, settings=settings),
        SCHEMA_FILE: schema_text,
        CDKTF_JSON: json.dumps(cdktf_json, indent=2) + "\n",
        NEXT_STEPS_FILE: _NEXT_STEPS.format(
            schema_file=SCHEMA_FILE,
            title="CDK Terrain" if engine == "cdktn" else "CDKTF",
            cli=cli,
            cli_install=cli_install,
            engine_flag=" --engine cdktf" if engine == "cdktf" else "",
            install=install,
            version=_version(),
        ),
        GITIGNORE: _GITIGNORE,
    }
