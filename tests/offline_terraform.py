"""Run the real terraform binary against the real AWS provider, offline (docs/testing.md).

`.ci/run` finds the provider binary and passes its folder in HYPERPOD_TEAMS_AWS_PROVIDER_DIR; a
CLI config with `dev_overrides` then lets `terraform validate` and `plan` run without `init`.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from pydantic import BaseModel

from hyperpod_teams import cloudformation
from tests.conftest import ASSETS_KEY

AWS_PROVIDER_DIR_ENV = "HYPERPOD_TEAMS_AWS_PROVIDER_DIR"
#: GOGC of every terraform the tests run (terraform_or_skip).
GO_GC_PERCENT = "400"


@dataclass(frozen=True)
class Terraform:
    env: dict[str, str]

    def run(self, stack_dir: Path, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            ["terraform", *args, "-no-color"], cwd=stack_dir, env=self.env, capture_output=True, text=True
        )

    def plan(self, stack_dir: Path, *args: str, name: str = "plan") -> dict | str:
        """`terraform plan` (saved as `<name>.tfplan`) and its `show -json`: the plan as JSON, or
        terraform's error output when the plan fails."""
        result = self.run(stack_dir, "plan", "-input=false", "-lock=false", *args, f"-out={name}.tfplan")
        if result.returncode != 0:
            return result.stderr
        return json.loads(self.run(stack_dir, "show", "-json", f"{name}.tfplan").stdout)


#: `terraform plan -json`'s change actions as `show -json` writes them (a replacement's order aside).
UI_ACTIONS = {
    "create": ["create"],
    "read": ["read"],
    "update": ["update"],
    "delete": ["delete"],
    "replace": ["delete", "create"],
    "noop": ["no-op"],
}


def plan_changes(terraform: Terraform, stack_dir: Path) -> dict | str:
    """What each change of a plan does, from `terraform plan -json`'s stream: `{"resource_changes":
    [{"address", "change": {"actions"}}], "output_changes": {...}}`, the part of `show -json`'s
    shape a test of actions reads, or the errors as text. For such a test instead of Terraform.plan:
    no saved plan to `show`, whose every provider start is about a second of CPU."""
    result = terraform.run(stack_dir, "plan", "-json", "-input=false", "-lock=false")
    messages = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    if result.returncode != 0:
        errors = [m for m in messages if m.get("type") == "diagnostic" and m.get("@level") == "error"]
        return "\n".join(
            f"Error: {m['diagnostic']['summary']}\n{m['diagnostic'].get('detail', '')}" for m in errors
        ) or (result.stdout + result.stderr)
    changes = [
        {"address": m["change"]["resource"]["addr"], "change": {"actions": UI_ACTIONS[m["change"]["action"]]}}
        for m in messages
        if m.get("type") == "planned_change"
    ]
    outputs: dict = next((m["outputs"] for m in messages if m.get("type") == "outputs"), {})
    return {"resource_changes": changes, "output_changes": outputs}


def terraform_or_skip(tmp_dir: Path) -> Terraform:
    """A Terraform runner; skips (fails under CI) when terraform or the provider is missing."""
    provider_dir = os.environ.get(AWS_PROVIDER_DIR_ENV)
    missing = None
    if shutil.which("terraform") is None:
        missing = "terraform is not on the PATH"
    elif not provider_dir or not list(Path(provider_dir).glob("terraform-provider-aws_*")):
        missing = f"{AWS_PROVIDER_DIR_ENV} does not name the folder of a terraform-provider-aws binary"
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"offline Terraform checks cannot run under CI: {missing}")
        pytest.skip(f"offline Terraform checks skipped: {missing} (.ci/run sets it up)")
    config = tmp_dir / "terraform.rc"
    config.write_text(
        f'provider_installation {{\n  dev_overrides {{ "hashicorp/aws" = "{provider_dir}" }}\n  direct {{}}\n}}\n'
    )
    env = {
        **os.environ,
        "TF_CLI_CONFIG_FILE": str(config),
        "TF_IN_AUTOMATION": "1",
        "CHECKPOINT_DISABLE": "1",
        # Go's garbage collector for terraform and the provider, which start afresh for every
        # command (the provider three to five times per plan or apply): most of their CPU is
        # building the provider's schema, and collecting less often cuts it by a fifth (3.7 to 3.0
        # CPU seconds a plan, at 430 MB a process instead of 310 MB). Nothing they do changes.
        "GOGC": GO_GC_PERCENT,
        # Fake credentials: nothing may reach AWS.
        "AWS_ACCESS_KEY_ID": "AKIAOFFLINEFAKE00000",
        "AWS_SECRET_ACCESS_KEY": "offline-fake-secret",
        "AWS_EC2_METADATA_DISABLED": "true",
    }
    return Terraform(env)


def checked_provider_version() -> str | None:
    """The version of the provider binary the offline checks run (from its file name)."""
    provider_dir = os.environ.get(AWS_PROVIDER_DIR_ENV)
    binaries = sorted(Path(provider_dir).glob("terraform-provider-aws_*")) if provider_dir else []
    if not binaries:
        return None
    match = re.search(r"_v(\d+\.\d+\.\d+)", binaries[0].name)
    return match.group(1) if match else binaries[0].name


def is_aws_only(stack: dict) -> bool:
    return set(stack.get("terraform", {}).get("required_providers", {})) == {"aws"}


#: Value of every stubbed remote-state output: valid base64 of ASCII text (the CA is decoded) and
#: a valid EKS cluster name at once.
STUB_OUTPUT = "b2ZmbGluZS1la3Mx"
#: A permission set's ARN, where the provider checks the ARN's form at plan (a customer managed
#: policy's attachment to the admins' set).
STUB_PERMISSION_SET_ARN = "arn:aws:sso:::permissionSet/ssoins-0123456789abcdef/ps-0123456789abcdef"


def stub_output(name: str) -> str:
    """The stub value of a remote-state output named `name`."""
    return STUB_PERMISSION_SET_ARN if "aws_ssoadmin_permission_set" in name and name.endswith("arn") else STUB_OUTPUT


#: Data sources the offline plan replaces with a stand-in value, by the attribute read from them.
#: An Identity Center role lookup stands for what AWS returns once the permission set is assigned.
DATA_STAND_INS = {
    (
        "aws_iam_roles",
        "arns",
    ): '["arn:aws:iam::111122223333:role/aws-reserved/sso.amazonaws.com/AWSReservedSSO_offline_0123456789abcdef"]',
    # The cluster stack's record of its deployed instance groups, before the first apply: none
    # (a local, OFFLINE_LOCALS: a precondition must refer to something of the configuration).
    ("aws_ssm_parameters_by_path", "values"): "local.no_recorded_parameters",
    # The listing of a spec-named lifecycle bucket (LifecycleScriptsUploaded): its postcondition
    # goes with the data source; AWS's answer is checked in the emulator tier.
    ("aws_s3_objects", "keys"): "[]",
    # An adopted HyperPod cluster as Cloud Control's GetResource describes it (its properties as JSON).
    ("aws_cloudcontrolapi_resource", "properties"): json.dumps(
        json.dumps(
            {
                "ClusterArn": "arn:aws:sagemaker:eu-west-1:777788889999:cluster/offline0stub",
                # The EKS cluster's ARN as the EKS stack's stub state gives it.
                "Orchestrator": {"Eks": {"ClusterArn": STUB_OUTPUT}},
            }
        )
    ),
}


#: Locals the stand-ins above refer to, added to a stack that then refers to them.
OFFLINE_LOCALS: dict[str, object] = {"no_recorded_parameters": []}


def needs_aws_to_plan(stack: dict) -> bool:
    """Data sources other than remote state on local files ask AWS, unless they have a stand-in,
    and so does an `import` block (the provider reads the object): those stacks only validate, or
    plan against the stand-in for AWS (aws_stand_in.py)."""
    if stack.get("import"):
        return True
    stand_in_types = {data_type for data_type, _ in DATA_STAND_INS}
    for data_type, sources in stack.get("data", {}).items():
        if data_type == "aws_cloudcontrolapi_resource" and any(
            source["type_name"] != cloudformation.CLUSTER_TYPE for source in sources.values()
        ):
            return True  # the stand-in describes a HyperPod cluster only
        if data_type in stand_in_types:
            continue
        if data_type != "terraform_remote_state":
            return True
        if any(source["backend"] != "local" for source in sources.values()):
            return True
    return False


def stub_remote_states(stack_dir: Path, stack: dict) -> None:
    """Write the state files a stack's cross-stack references read, with stub outputs, so a stack
    that deploys after others plans offline as it would after they were applied. Call it for
    every stack before planning any: stacks share the state files they read."""
    text = json.dumps(stack)
    for name, source in stack.get("data", {}).get("terraform_remote_state", {}).items():
        outputs = set(re.findall(rf"data\.terraform_remote_state\.{re.escape(name)}\.outputs\.([\w-]+)", text))
        state: dict = {
            "version": 4,
            "terraform_version": "1.11.0",
            "serial": 1,
            "lineage": "offline-stub",
            "outputs": {output: {"value": stub_output(output), "type": "string"} for output in outputs},
            "resources": [],
        }
        path = (stack_dir / source["config"]["path"]).resolve()
        if path.exists():  # several stacks read the same stack's state: one file with all outputs
            state["outputs"].update(json.loads(path.read_text())["outputs"])
        path.write_text(json.dumps(state))


#: Read-only primary identifier of each Cloud Control type the project manages.
PRIMARY_IDENTIFIERS: dict[str, tuple[str, type[BaseModel]]] = {
    cloudformation.CLUSTER_TYPE: ("ClusterArn", cloudformation.ClusterProperties),
    cloudformation.SCHEDULER_CONFIG_TYPE: (
        "ClusterSchedulerConfigArn",
        cloudformation.ClusterSchedulerConfigProperties,
    ),
    cloudformation.COMPUTE_QUOTA_TYPE: ("ComputeQuotaArn", cloudformation.ComputeQuotaProperties),
}


def offline_type_schema(type_name: str) -> str:
    """A stand-in for the CloudFormation registry schema that `aws_cloudcontrolapi_resource`
    downloads at plan time (DescribeType), built from the project's own models: offline there
    is no registry. It lets plan run; it proves nothing about the real schema."""
    identifier, model = PRIMARY_IDENTIFIERS[type_name]
    schema = model.model_json_schema(by_alias=True, ref_template="#/definitions/{model}")
    schema["definitions"] = schema.pop("$defs", {})
    schema["properties"][identifier] = {"type": "string"}
    schema.update(
        typeName=type_name,
        description=f"offline stand-in for {type_name}",
        additionalProperties=False,
        primaryIdentifier=[f"/properties/{identifier}"],
        readOnlyProperties=[f"/properties/{identifier}"],
    )
    schema.pop("title", None)
    if type_name == cloudformation.CLUSTER_TYPE:
        # As the real schema lists them: the provider replaces only on these exact paths.
        schema["createOnlyProperties"] = [
            *(f"/properties/{name}" for name in ("ClusterName", "VpcConfig", "Orchestrator/Eks")),
            *(f"/properties/InstanceGroups/*/{name}" for name in cloudformation.INSTANCE_GROUP_CREATE_ONLY),
        ]
    return json.dumps(schema)


def offline_plan_config(stack: dict, stand_ins: dict[tuple[str, str], str] | None = None) -> dict:
    """The stack as it can plan here: no backend, and an AWS provider that asks AWS nothing.

    `allowed_account_ids` goes too: it needs the account ID that offline planning skips asking
    for; each Cloud Control resource gets its type schema inline (`offline_type_schema`); and the
    data sources of DATA_STAND_INS give way to their stand-in values.
    """
    stack = copy.deepcopy(stack)
    for (data_type, attribute), value in (DATA_STAND_INS if stand_ins is None else stand_ins).items():
        for name in stack.get("data", {}).pop(data_type, {}):
            text = json.dumps(stack).replace(f"data.{data_type}.{name}.{attribute}", json.dumps(value)[1:-1])
            stack = json.loads(text)
    stack.get("data", {}) or stack.pop("data", None)
    for local_name, local_value in OFFLINE_LOCALS.items():
        if f"local.{local_name}" in json.dumps(stack):
            stack.setdefault("locals", {})[local_name] = local_value
    for resource in stack.get("resource", {}).get("aws_cloudcontrolapi_resource", {}).values():
        resource["schema"] = offline_type_schema(resource["type_name"])
    stack["terraform"].pop("backend", None)
    for provider in stack["provider"]["aws"]:
        provider.pop("allowed_account_ids", None)
        provider.update(
            skip_credentials_validation=True,
            skip_requesting_account_id=True,
            skip_metadata_api_check=True,
            # An answer the stand-in for AWS (aws_stand_in.py) does not have fails at once: a 400
            # is no error the SDK retries. A connection dropped under load is, and is retried
            # (a CI run lost a plan to "use of closed network connection" with max_retries=1).
            max_retries=3,
        )
    return stack


def write_stack(out_dir: Path, name: str, stack: dict) -> Path:
    """Write a stack where cdktf would (`<out>/stacks/<name>`), so relative state paths resolve
    inside the test's own folder."""
    directory = out_dir / "cdktf.out" / "stacks" / name
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "cdk.tf.json").write_text(json.dumps(stack, indent=2))
    assets = stack.get("//", {}).get(ASSETS_KEY)
    if assets:
        shutil.copytree(assets, directory / "assets", dirs_exist_ok=True)
    return directory


def in_parallel(function, items) -> list:
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        return list(pool.map(function, items))


# --- every stack, through the schema stand-ins of the providers it pins (tests/schema_provider) ---

#: What the runbook has the user pass to an identity stack (its `variable`s), in the form Identity
#: Center's console shows them (ACS and issuer URLs of the region's sign-in endpoint).
IDENTITY_VARIABLES = {
    "TF_VAR_identity_center_acs_url": "https://us-west-2.signin.aws.amazon.com/platform/saml/acs/0a1b2c3d-offline",
    "TF_VAR_identity_center_issuer_url": "https://us-west-2.signin.aws.amazon.com/platform/saml/0a1b2c3d-offline",
}

#: The local chart clones the Helm stacks read, relative to the folder that holds the output folder.
CHART_CLONES = (
    "sagemaker-hyperpod-cli/helm_chart/HyperPodHelmChart",
    "sagemaker-hyperpod-usage-report/helm_chart/SageMakerHyperPodUsageReportChart",
)


#: What the schema stand-ins' data sources read where a stack checks the value: an existing EKS
#: cluster's VPC CNI at a version HyperPod takes (hyperpod_teams.addons); the lifecycle scripts
#: the organization uploaded where examples/existing-cluster points (LifecycleScriptsUploaded).
STAND_IN_DATA = {
    "aws_eks_addon": {"addon_version": "v1.19.2-eksbuild.1"},
    "aws_s3_objects": {"keys": ["scripts/on_create.sh"]},
}


def stand_in_terraform(tmp_dir: Path, data: dict | None = None) -> Terraform:
    """Terraform with every provider the stacks pin served by its schema stand-in, from a
    filesystem mirror: `init` installs exactly the pinned version, or fails."""
    from tests.schema_provider import mirror

    if shutil.which("terraform") is None:
        if os.environ.get("CI"):
            pytest.fail("terraform must be on the PATH under CI")
        pytest.skip("terraform is not on the PATH")
    config = mirror.lay_out(tmp_dir, mirror.available())
    cache = tmp_dir / "schema-cache"
    cache.mkdir(exist_ok=True)
    env = {
        **os.environ,
        **IDENTITY_VARIABLES,
        "TF_CLI_CONFIG_FILE": str(config),
        "SCHEMA_PROVIDER_CACHE": str(cache),
        "SCHEMA_PROVIDER_DATA": json.dumps(STAND_IN_DATA if data is None else data),
        "GOGC": GO_GC_PERCENT,
        "TF_IN_AUTOMATION": "1",
        "CHECKPOINT_DISABLE": "1",
    }
    return Terraform(env)


def local_remote_states(stack: dict) -> dict:
    """The stack with every `terraform_remote_state` read from a local file: an s3 backend's key
    becomes a file beside the stacks (stub_remote_states writes it)."""
    stack = copy.deepcopy(stack)
    for source in stack.get("data", {}).get("terraform_remote_state", {}).values():
        if source["backend"] != "local":
            key = re.sub(r"[^\w.-]", "_", source["config"]["key"])
            source.update(backend="local", config={"path": f"../remote-state-{key}"})
    return stack


def cloud_control_answers(stack: dict, world: dict[tuple[str, str], dict]) -> dict:
    """The stack with each Cloud Control lookup's `properties` given as the world describes the
    object (by type and identifier), or as DATA_STAND_INS describes a HyperPod cluster."""
    lookups = stack.get("data", {}).get("aws_cloudcontrolapi_resource", {})
    text = json.dumps(stack)
    for name, lookup in lookups.items():
        described = world.get((lookup["type_name"], lookup["identifier"]))
        # An HCL string literal of the description's JSON, as DATA_STAND_INS holds the cluster's.
        value = (
            json.dumps(json.dumps(described))
            if described
            else DATA_STAND_INS[("aws_cloudcontrolapi_resource", "properties")]
        )
        text = text.replace(f"data.aws_cloudcontrolapi_resource.{name}.properties", json.dumps(value)[1:-1])
    stack = json.loads(text)
    if lookups:
        stack["data"].pop("aws_cloudcontrolapi_resource")
        stack["data"] or stack.pop("data")
    return stack


def stand_in_plan_config(stack: dict, world: dict[tuple[str, str], dict]) -> dict:
    """The stack as it plans against the stand-ins: no backend (state stays in the folder), remote
    states on local stub files, Cloud Control lookups answered from `world`. Every other data
    source is read by its stand-in, which answers placeholder values of the published types."""
    stack = cloud_control_answers(local_remote_states(stack), world)
    stack["terraform"].pop("backend", None)
    return stack


def clone_charts(out_parent: Path) -> None:
    """Stand-ins for the chart clones the runbook has the user make next to the output folder."""
    for chart in CHART_CLONES:
        (out_parent / chart).mkdir(parents=True, exist_ok=True)
        (out_parent / chart / "Chart.yaml").write_text("apiVersion: v2\nname: stand-in\nversion: 0.0.0\n")


def real_offline_plans(tmp_path_factory, example: str, stacks: dict[str, dict]) -> dict[str, dict | str]:
    """The real provider binary's first plan (`show -json`, or terraform's error output) of each AWS
    stack of `example` that plans without AWS, against stub states of the stacks it reads: made once
    per run (conftest.once_per_run) for whichever test asks first (the offline plan test, checkov's
    plan scan)."""
    from tests.conftest import once_per_run

    def plan_all(work: Path) -> dict[str, dict | str]:
        terraform = terraform_or_skip(work)
        plannable = {
            name: offline_plan_config(stack)
            for name, stack in stacks.items()
            if is_aws_only(stack) and not needs_aws_to_plan(stack)
        }
        directories = {name: write_stack(work, name, stack) for name, stack in plannable.items()}
        for name, directory in directories.items():
            stub_remote_states(directory, plannable[name])
        return dict(in_parallel(lambda name: (name, terraform.plan(directories[name])), plannable))

    return once_per_run(tmp_path_factory, f"real-plans-{example}", plan_all)
