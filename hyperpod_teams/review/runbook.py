"""The runbook: the ordered procedure that takes a spec to a working shared cluster, with the
manual steps Terraform cannot do and their exact values. Pure layer: no CDK engine."""

from __future__ import annotations

import contextvars
import json
import re
import shlex
from dataclasses import dataclass

from hyperpod_teams import addons, cost, dependencies_chart, naming, rbac, usage_report
from hyperpod_teams.adoption import Existing, existing_resources, ways_explained
from hyperpod_teams.document import Code, Document, Heading, Items, Paragraph, Table, md_code
from hyperpod_teams.plugins import IDENTITY_CENTER_VARIABLES, SAML_OUTPUTS, IdentityProviderPlugin
from hyperpod_teams.spec.loading import SPEC_CONTEXT_KEY, SPEC_ENV
from hyperpod_teams.spec.models import PlatformSpec
from hyperpod_teams.stack_plan import PlannedStack, deploy_waves, identity_groups, identity_plugin, stack_plan

#: The engine CLI of the runbook being written (build_runbook sets it).
_CLI: contextvars.ContextVar[str] = contextvars.ContextVar("engine_cli", default="cdktn")


def engine_cli(spec: PlatformSpec) -> str:
    """The CLI that deploys `spec`'s stacks: `cdktn`, or `cdktf` for an identity-provider plugin
    that registered bindings of the CDKTF engine only (hyperpod_teams.bindings.register; none of the
    built-in ones since Okta builds on both)."""
    from hyperpod_teams import bindings

    identity_plugin(spec)  # loaded: its bindings registered, with their engines
    return "cdktf" if bindings.ENGINES.get(spec.identity.provider) == ("cdktf",) else "cdktn"


def _cdktf(spec_path: str, command: str) -> str:
    """An engine CLI command on the user's spec: the CLI runs the app (cdktf.json's `app`), which
    reads the spec from HYPERPOD_TEAMS_SPEC before cdktf.json's context key (this repository's
    names the quickstart)."""
    return f"{SPEC_ENV}={shlex.quote(spec_path)} {_CLI.get()} {command}"


def _naming_the_spec(step: str, spec_path: str) -> str:
    """A plugin's step with its engine CLI commands naming the spec, as the runbook's own do."""
    prefix = f"{SPEC_ENV}={shlex.quote(spec_path)} "
    return re.sub(r"(?<![\w=-])cdkt[fn] (deploy|diff|output|destroy)\b", lambda m: prefix + m[0], step)


def _deploy(spec_path: str, *stacks: str) -> str:
    """The deploy command of a step. The stacks of earlier steps are deployed already, which
    cdktf cannot know: it would refuse a stack whose dependencies the command does not name."""
    parallel = f" --parallelism {min(len(stacks), 10)}" if len(stacks) > 1 else ""
    return _cdktf(spec_path, f"deploy {' '.join(stacks)}{parallel} --ignore-missing-stack-dependencies --auto-approve")


@dataclass(frozen=True)
class _Runbook:
    """What the runbook's sections share: the spec, where it is, its stacks and their names."""

    spec: PlatformSpec
    spec_path: str
    plugin: IdentityProviderPlugin
    stacks: list[PlannedStack]
    identity: str | None
    access: str
    cost_stack: str
    groups: dict
    existing: list[Existing]

    @classmethod
    def of(cls, spec: PlatformSpec, spec_path: str) -> _Runbook:
        org = spec.organization.name
        plugin = identity_plugin(spec)
        return cls(
            spec,
            spec_path,
            plugin,
            stack_plan(spec),
            naming.identity_stack_name(org) if plugin.needs_identity_stack else None,
            naming.access_stack_name(org),
            naming.cost_stack_name(org),
            identity_groups(spec).all(),
            existing_resources(spec),
        )


def build_runbook(spec: PlatformSpec, *, spec_path: str = "teams.yaml") -> Document:
    token = _CLI.set(engine_cli(spec))
    try:
        return _build_runbook(spec, spec_path)
    finally:
        _CLI.reset(token)


def _build_runbook(spec: PlatformSpec, spec_path: str) -> Document:
    r = _Runbook.of(spec, spec_path)
    document = Document(f"Runbook: {spec.organization.name} on {spec.cluster.name}")
    _intro_section(document, r)
    _deploy_order_section(document, r)
    document.add(Heading("First deployment"))
    document.add(Items(_identity_steps(r) + _cluster_and_team_steps(r), ordered=True))
    _after_first_deployment(document, r)
    _submit_a_job_section(document, r)
    _add_ons_section(document, r)
    _add_a_team_section(document, r)
    _remove_a_team_section(document, r)
    document.add(*_cost_category_repair_section(spec))
    return document


def _intro_section(document: Document, r: _Runbook) -> None:
    spec_path, plugin, stacks = r.spec_path, r.plugin, r.stacks
    document.add(
        Paragraph(
            f"From {md_code(spec_path)}: {len(stacks)} stacks, identity provider "
            f"{md_code(plugin.name)}. Run the commands from the "
            "folder of `cdktf.json`, with the credentials each step names, in this order: each step deploys only "
            f"its own stacks, those of earlier steps being in place already. Each {md_code(_CLI.get())} command "
            f"names the spec with {md_code(SPEC_ENV)} (or set the context key {md_code(SPEC_CONTEXT_KEY)} in "
            f"`cdktf.json` to it once): {_CLI.get()} "
            "runs the app, which reads the spec from there."
        )
    )


def _deploy_order_section(document: Document, r: _Runbook) -> None:
    stacks = r.stacks
    document.add(Heading("Deploy order"))
    document.add(Paragraph("Stacks in one wave may deploy in parallel; each wave waits for the one before it."))
    document.add(
        Table(
            ["wave", "stack", "credentials", "holds", "after"],
            [
                [
                    str(i),
                    md_code(s.name),
                    s.credentials,
                    s.holds,
                    ", ".join(md_code(d) for d in s.depends_on) or "–",
                ]
                for i, wave in enumerate(deploy_waves(stacks), 1)
                for s in wave
            ],
        )
    )


def _identity_steps(r: _Runbook) -> list[str]:
    """From synthesis to the permission sets: the IdP, Identity Center's identity source and
    provisioning, which the other stacks wait for."""
    spec_path, plugin, identity, access, groups = r.spec_path, r.plugin, r.identity, r.access, r.groups
    steps: list[str] = [
        f"Synthesize and review: {md_code(f'hyperpod-teams validate {spec_path}')}, "
        f"{md_code(f'hyperpod-teams synth {spec_path}')}, {md_code(f'hyperpod-teams report {spec_path}')}; "
        f"{md_code(_cdktf(spec_path, 'diff'))} shows each stack's plan.",
        "**The pipeline's grants (administrator, once; again after an upgrade).** Create the deploy policies "
        f"({md_code(f'hyperpod-teams deploy-policy {spec_path}')}) and attach them to the pipeline's role "
        f"{md_code(naming.deploy_role_name(r.spec.organization.name))}; create the permissions boundary every role "
        f"of the stacks carries ({md_code(f'hyperpod-teams deploy-policy {spec_path} --boundary')}) at the path "
        f"{md_code(naming.ROLE_BOUNDARY_PATH)}, attached to no role (docs/deploy.md).",
    ]
    if identity:
        variables = ", ".join(
            f"`TF_VAR_{name}` ← *{description}*" for name, description in IDENTITY_CENTER_VARIABLES.items()
        )
        outputs = "; ".join(f"{md_code(name)}: {description}" for name, description in SAML_OUTPUTS.items())
        steps += [
            "**Identity source, part 1 (IAM Identity Center console, manual).** *Settings* → *Identity source* → "
            "*Actions* → *Change identity source* → *External identity provider*. Under *Service provider "
            f"metadata* copy the two values into the pipeline's variables: {variables}.",
            f"Deploy the identity provider's side with the IdP's credentials: {md_code(_deploy(spec_path, identity))}.",
            "**Identity source, part 2 (manual).** Read the outputs: `" + _cdktf(spec_path, f"output {identity}") + "` "
            f"(or `terraform output` in `cdktf.out/stacks/{identity}`): {outputs}. In the same dialog, under "
            "*Identity provider metadata*, upload the metadata downloaded from `saml_metadata_url` (or enter the "
            "sign-in URL, issuer URL and certificate), accept, and confirm the change.",
        ]
    else:
        steps.append(
            "**Identity source (IAM Identity Center console, manual).** *Settings* → *Identity source* → *Change "
            "identity source* → *External identity provider*: exchange the SAML metadata with your IdP by hand "
            "(Identity Center's ACS URL and issuer URL into the IdP; the IdP's metadata into Identity Center)."
        )
    steps.append(
        "**Automatic provisioning (manual).** *Settings* → *Automatic provisioning* → *Enable*; copy the *SCIM "
        "endpoint* and the *Access token* (shown once; Identity Center's tokens expire after a year)."
    )
    steps += [_naming_the_spec(step, spec_path) for step in plugin.provisioning_steps(identity)]
    listed = " ".join(md_code(name) for name in sorted(groups.values()))
    if plugin.creates_identity_center_groups:
        # Nothing to wait for: the access stack creates the groups it would otherwise look up.
        steps.append(
            "Deploy the groups, permission sets and assignments with Identity Center account credentials: "
            f"{md_code(_deploy(spec_path, access))}. It creates the groups in Identity Center: {listed}; then add "
            "their members there (users provisioned by SCIM or by hand)."
        )
        return steps
    steps.append(
        f"**Wait for provisioning** before deploying {md_code(access)}: its group lookups fail until every group is in "
        f"Identity Center (check each with the command below). The groups: {listed}."
    )
    steps.append(
        "Deploy the permission sets and assignments with Identity Center account credentials: "
        f"{md_code(_deploy(spec_path, access))}."
    )
    return steps


def _cluster_and_team_steps(r: _Runbook) -> list[str]:
    """The cluster side, the teams and Billing, with what must be in place before each."""
    spec, spec_path, stacks, existing = r.spec, r.spec_path, r.stacks, r.existing
    identity, access, cost_stack = r.identity, r.access, r.cost_stack
    org = spec.organization.name
    steps: list[str] = []
    cluster_side = [s.name for s in stacks if s.name not in (identity, access, cost_stack) and s.team is None]
    chart = spec.cluster.dependencies_chart
    if spec.cluster.installs_dependencies_chart and dependencies_chart.uses_local_clone(chart):
        steps.append(
            "HyperPod's dependency chart is installed from a clone of release "
            f"{md_code(chart.git_ref)} beside the output "
            f"folder (the stack stops its plan with this command when the chart is missing); next to `cdktf.out/`, "
            f"run {md_code(dependencies_chart.clone_command(chart))}. Helm fetches the chart's remote dependencies "
            "(cert-manager, device plugins) at deploy, so the pipeline needs `helm` registry access."
        )
    usage = spec.cost.usage_reports
    if usage.enabled:
        steps.append(
            "HyperPod's usage-report operator chart is installed from a clone of commit "
            f"{md_code(usage.git_ref)} beside "
            f"the output folder ({md_code(naming.usage_operator_stack_name(org))} stops its plan with "
            "this command when it "
            f"is missing); next to `cdktf.out/`, run {md_code(usage_report.clone_command(usage.git_ref))}."
        )
    adopted = spec.cluster.existing_hyperpod_cluster_name
    if adopted is not None:
        steps.append(
            f"**Check the adopted cluster's groups (manual).** `validate` does not call AWS: the spec's "
            f"instance_groups must match what HyperPod cluster {md_code(adopted)} has, or the capacity checks and the "
            "report are wrong. List them with `aws sagemaker describe-cluster --cluster-name "
            f"{adopted} --region {spec.organization.region} --query "
            "'InstanceGroups[].[InstanceGroupName,InstanceType,CurrentCount]' --output table`; the cluster "
            f"stack's plan stops if {md_code(adopted)} runs on another EKS cluster than the spec's."
        )
    eks_adopted = spec.cluster.eks.existing_cluster_name
    if eks_adopted is not None:
        steps.append(
            "**Network policies on the adopted EKS cluster (manual).** The team namespaces' network policies hold "
            f"only where the VPC CNI enforces them; the EKS stack's plan warns while {md_code(eks_adopted)}'s does "
            f"not. Check with `aws eks describe-addon --cluster-name {eks_adopted} --region "
            f"{spec.organization.region} --addon-name {addons.VPC_CNI_ADDON} --query addon.configurationValues`, and "
            "turn it on with "
            + md_code(
                f"aws eks update-addon --cluster-name {eks_adopted} --region {spec.organization.region} "
                f"--addon-name {addons.VPC_CNI_ADDON} --resolve-conflicts PRESERVE --configuration-values "
                '\'{"enableNetworkPolicy": "true"}\''
            )
            + ' (docs/security.md, "Teams held apart").'
        )
    if spec.cluster.lifecycle_scripts_s3_uri is not None:
        steps.append(
            "**Pods kept from IMDS (your lifecycle scripts).** Copy the `imds-block` part of "
            "`hyperpod_teams/lifecycle/on_create.sh` into your on-create script; on a node, "
            "`iptables -C FORWARD -i eni+ -d 169.254.169.254/32 -j DROP` exits 0 when it holds."
        )
    if existing:
        steps.append(
            "**What exists already:** before each deploy below, check that its first plan takes over and replaces "
            "nothing (see *Adopting what runs already*)."
        )
    steps.append(f"Deploy the cluster side (AWS and EKS credentials): {md_code(_deploy(spec_path, *cluster_side))}.")
    team_stacks = [s.name for s in stacks if s.team]
    steps.append(f"Deploy every team's stacks, in parallel: {md_code(_deploy(spec_path, *team_stacks))}.")
    keys = ", ".join(md_code(k) for k in cost.COST_ALLOCATION_TAG_KEYS)
    steps.append(
        f"**Billing (payer account, manual wait).** Tag keys {keys} appear in *Billing and Cost Management* → "
        "*Cost allocation tags* up to 24 hours after the first tagged resources exist; only then can they be "
        "activated. Then deploy with payer-account credentials: "
        f"{md_code(_deploy(spec_path, cost_stack))} (activates the "
        f"tags and creates the cost category {md_code(naming.cost_category_name(org))}). Cost "
        "Explorer shows costs by the "
        "category from the day of activation on; earlier spend is not attributed."
    )
    return steps


def _after_first_deployment(document: Document, r: _Runbook) -> None:
    spec, spec_path, existing, groups = r.spec, r.spec_path, r.existing, r.groups
    usage = spec.cost.usage_reports
    store = spec.identity.identity_center.identity_store_id
    if existing:
        document.add(*_adoption_section(spec, existing, spec_path))
    if usage.enabled:
        document.add(*_usage_report_section(spec))
    document.add(Paragraph("Check that a group reached Identity Center (needs `identitystore:ListGroups`):"))
    first = sorted(groups.values())[0]
    document.add(
        Code(
            f"aws identitystore list-groups --identity-store-id {store} \\\n"
            f"  --filters AttributePath=DisplayName,AttributeValue={first}"
        )
    )


def _submit_a_job_section(document: Document, r: _Runbook) -> None:
    spec = r.spec
    if spec.cluster.task_governance.enabled:
        governance = spec.cluster.task_governance
        first = spec.teams[0]
        team = first.name
        account = (
            f" \\\n  --service-account-name {naming.TEAM_SERVICE_ACCOUNT}" if first.workload_identity.enabled else ""
        )
        priority = (
            naming.workload_priority_class(governance.priority_classes[0].name) if governance.priority_classes else None
        )
        document.add(Heading("Submit a job (a team's scientists)"))
        document.add(
            Paragraph(
                "Task governance names each team's namespace and queue; the priority classes are Kueue "
                "WorkloadPriorityClasses named `<name>-priority`: "
                + (
                    ", ".join(md_code(naming.workload_priority_class(p.name)) for p in governance.priority_classes)
                    or "none"
                )
                + f". For team {md_code(team)}, from the command line or a Studio space of the team's domain:"
            )
        )
        document.add(
            Code(
                f"hyp create hyp-pytorch-job --job-name my-job --image <image> \\\n"
                f"  --namespace {naming.team_namespace(team)} --queue-name {naming.team_local_queue(team)}"
                + (f" \\\n  --priority {priority}" if priority else "")
                + account
            )
        )
        if first.workload_identity.enabled:
            bucket = naming.team_data_bucket_name(
                spec.organization.name, team, spec.organization.account_id, spec.organization.region
            )
            document.add(
                Paragraph(
                    f"With `--service-account-name {naming.TEAM_SERVICE_ACCOUNT}` the job's pods run as the team's "
                    f"workload role (EKS Pod Identity) and read and write the team's data"
                    + (
                        f", {md_code('s3://' + bucket + '/')}"
                        if first.data.enabled and not first.data.existing_bucket
                        else ""
                    )
                    + "; without it they run with no role of the team's."
                )
            )


def _endpoint_manifest(spec: PlatformSpec, team: str) -> str:
    """A JumpStart endpoint as a team member applies it: hyp 3.12.0's endpoint templates write no
    labels, so under task governance the manifest carries the team's queue (and priority) itself."""
    org = spec.organization.name
    inference = spec.cluster.inference
    labels = ""
    if spec.cluster.task_governance.enabled:
        labels = f"\n  labels:\n    {rbac.QUEUE_LABEL}: {naming.team_local_queue(team)}"
        if inference is not None and inference.priority_class:
            labels += f"\n    {rbac.PRIORITY_LABEL}: {naming.workload_priority_class(inference.priority_class)}"
    return (
        f"apiVersion: {addons.INFERENCE_API_GROUP}/v1\nkind: JumpStartModel\nmetadata:\n  name: llama\n"
        f"  namespace: {naming.team_namespace(team)}{labels}\nspec:\n  model:\n    modelId: <JumpStart model ID>\n"
        f"  server:\n    instanceType: ml.g5.8xlarge\n  sageMakerEndpoint:\n"
        f"    name: {naming.team_endpoint_prefix(org, team)}llama"
    )


def _add_ons_section(document: Document, r: _Runbook) -> None:
    """Endpoints, spaces and dashboards, as a team's members use them, and what the stacks leave to people."""
    spec = r.spec
    cluster = spec.cluster
    if cluster.inference is None and cluster.spaces is None and cluster.observability is None:
        return
    team = spec.teams[0].name
    namespace, queue = naming.team_namespace(team), naming.team_local_queue(team)
    document.add(Heading("Endpoints, spaces and dashboards (a team's members)"))
    manual: list[str] = []
    if cluster.inference is not None:
        prefix = naming.team_endpoint_prefix(spec.organization.name, team)
        org = spec.organization
        tls_bucket = naming.inference_tls_bucket_name(org.name, org.account_id, org.region)
        document.add(
            Paragraph(
                f"A team's endpoints are those named {md_code(prefix + '*')}: its roles describe and invoke those "
                "only, and its namespace admits an endpoint resource only with such a name and its own queue label. "
                "A model of the team's own is loaded from the claim `team-data` (the team's bucket, mounted with "
                "the pod's own credentials: `modelSourceType: kubernetesVolume`, `kubernetes.serviceAccountName: "
                "team-workload`, docs/team-journeys.md), not from the operator's S3 source, which is refused. "
                "HyperPod CLI 3.12.0's endpoint templates write no "
                "labels, so under task governance apply the resource with them (`kubectl apply -f llama.yaml`); "
                "list, describe, invoke and delete with `hyp`:"
            )
        )
        document.add(Code(_endpoint_manifest(spec, team), language="yaml"))
        document.add(
            Code(
                f"hyp list hyp-jumpstart-endpoint --namespace {namespace}\n"
                f'hyp invoke hyp-custom-endpoint --endpoint-name {prefix}llama --body \'{{"inputs": "Hello"}}\'\n'
                f"hyp delete hyp-jumpstart-endpoint --name llama --namespace {namespace}"
            )
        )
        manual += [
            "**Inference: TLS.** The operator writes each endpoint's self-signed certificate to "
            f"{md_code('s3://' + tls_bucket)}; a certificate of your own domain is an ACM certificate you request "
            "and validate (DNS), then name per endpoint (`--custom-certificate-acm-arn`, "
            "`--custom-certificate-domain-name`).",
            "**Inference: cert-manager.** The operator's webhooks need cert-manager: the training operator's "
            "settings install it (`cluster.training_operator.install_cert_manager`); where neither the stacks nor "
            "anyone installed it, install the `cert-manager` EKS add-on before the cluster stack.",
            "**Inference: gated JumpStart models** need their EULA accepted per endpoint (`--accept-eula`).",
        ]
    if cluster.spaces is not None:
        document.add(
            Paragraph(
                f"A space runs in the member's team namespace under the team's quota (`--queue-name {queue}`); "
                "open it with a port forward or a remote IDE:"
            )
        )
        document.add(
            Code(
                f"hyp create hyp-space --name notebook --display-name Notebook --namespace {namespace} \\\n"
                f"  --queue-name {queue}\n"
                f"hyp portforward hyp-space --name notebook --namespace {namespace} --local-port 8888"
            )
        )
        manual.append(
            "**Spaces: web UI and remote IDEs.** The browser UI needs a domain of yours, the add-on's router role "
            "and External DNS; remote IDEs (VS Code, Kiro over SSM) need the SSM managed-instance role (SageMaker "
            "developer guide, *Set up permissions*): neither is made by the stacks; port forwarding works without."
        )
    if cluster.observability is not None:
        document.add(
            Paragraph(
                "`hyp get-monitoring --grafana --prometheus` prints the workspaces' URLs for every team role. Every "
                "team reads every team's series: a Prometheus workspace's access is the whole workspace (IAM has no "
                "finer resource), and a Grafana viewer sees every dashboard of its workspace."
            )
        )
        manual.append(
            "**Observability: Grafana.** The teams' and platform admins' Identity Center groups are the workspace's "
            "viewers and admins; a member signs in from the access portal. HyperPod's dashboards and alert rules "
            "(aws/sagemaker-hyperpod-cluster-setup, `observability-assets-creation`) are imported by a workspace "
            "admin: the stacks make no Grafana API key."
        )
    document.add(Paragraph("What the stacks cannot do for you:"))
    document.add(Items(manual))


def _add_a_team_section(document: Document, r: _Runbook) -> None:
    spec_path, identity, access, cost_stack = r.spec_path, r.identity, r.access, r.cost_stack
    org = r.spec.organization.name
    document.add(Heading("Add a team"))
    example = "<team>"
    creates = r.plugin.creates_identity_center_groups
    if identity:
        before = f"Deploy {md_code(identity)} (the team's groups) and wait until they are provisioned; then deploy "
    elif creates:
        before = "Deploy "
    else:
        before = "Provision the team's groups into Identity Center; then deploy "
    created = " (it creates the team's groups in Identity Center: add their members there)" if creates else ""
    deploy_step = (
        f"{before}{md_code(access)}{created}, the two new stacks and {md_code(cost_stack)} (a new cost category rule)."
    )
    document.add(
        Items(
            [
                f"Add it to `teams` in {md_code(spec_path)}; "
                f"{md_code(f'hyperpod-teams validate {spec_path}')} checks that the "
                "quotas still fit.",
                f"{md_code(f'hyperpod-teams synth {spec_path}')}: two new stacks, "
                f"{md_code(naming.team_stack_name(org, example))} and "
                f"{md_code(naming.team_kubernetes_stack_name(org, example))}; no other team's stack changes.",
                deploy_step,
            ],
            ordered=True,
        )
    )


#: What a team's AWS stack holds that its kept data needs, as patterns of resource types: the domain
#: (home directories on EFS), the data bucket with its settings (versioning, encryption, policy:
#: destroyed alone, they would leave the bucket unencrypted and open to plain HTTP), the keys
#: both are encrypted with and their aliases, and the domain's security group with its rule out (the
#: domain's apps use it: EC2 refuses to delete a group in use). Taken out of the stack's state before
#: the stack is destroyed, they stay in the account (the runbook's "Remove a team").
KEPT_ON_REMOVAL = (
    "aws_sagemaker_domain",
    "aws_s3_bucket[a-z_]*",
    "aws_kms_key",
    "aws_kms_alias",
    "aws_security_group",
    "aws_vpc_security_group_egress_rule",
)


def kept_on_removal(resource_type: str) -> bool:
    """Whether a team stack's resource of this type stays when the team is removed."""
    return any(re.fullmatch(pattern, resource_type) for pattern in KEPT_ON_REMOVAL)


def keep_out_of_state_command(team_stack: str) -> str:
    """The commands that take KEPT_ON_REMOVAL out of a team stack's state (shell, from the app's
    folder after a synth): the destroy that follows leaves them in the account."""
    kept = "|".join(KEPT_ON_REMOVAL)
    return (
        f"cd cdktf.out/stacks/{team_stack} && terraform init -input=false\n"
        f"terraform state list | grep -E '^({kept})\\.' | xargs -r terraform state rm"
    )


def _remove_a_team_section(document: Document, r: _Runbook) -> None:
    spec_path = r.spec_path
    org = r.spec.organization.name
    example = "<team>"
    team_stack, k8s_stack = naming.team_stack_name(org, example), naming.team_kubernetes_stack_name(org, example)
    alias = f"alias/{naming.team_studio_key_alias(org, example)}"
    data_alias = f"alias/{naming.team_data_key_alias(org, example)}"
    account, region = r.spec.organization.account_id, r.spec.organization.region
    bucket = naming.team_data_bucket_name(org, example, account, region)
    document.add(Heading("Remove a team without losing its data"))
    document.add(
        Paragraph(
            "In this order: the team's stacks go while the spec still has the team (they read its groups "
            f"from {md_code(r.access)}, and its EKS access entries name the `AWSReservedSSO_*` roles that "
            "Identity Center deletes once the team's permission sets leave the account); the shared stacks "
            "change last. The team's SageMaker AI domain (home directories on EFS), its data bucket and the KMS "
            "keys they are encrypted with stay in the account: they carry `prevent_destroy`, so no plan can destroy "
            "them (a deleted key makes what it encrypted unreadable once its 30-day window ends)."
        )
    )
    document.add(
        Items(
            [
                "Let the team's running jobs finish (destroying its stack deletes its compute quota, and "
                f"task governance deletes the namespace {md_code(naming.team_namespace(example))} with what "
                "runs in it); copy what it keeps outside its home directories (S3 outputs, model artefacts).",
                f"With the spec still holding the team, {md_code(_cdktf(spec_path, 'synth'))}, then take the "
                "domain, the data bucket with its settings, the keys and their aliases and the domain's "
                "security group out of the team stack's state, so that the destroy leaves them where they are "
                "(the commands below the list).",
                f"{md_code(_cdktf(spec_path, 'destroy ' + k8s_stack))} and then "
                f"{md_code(_cdktf(spec_path, 'destroy ' + team_stack))} (the spec still has the team): its "
                "RBAC, compute quota, EKS access entries, execution role, application assignments and budget "
                "go; the plan must show no `aws_sagemaker_domain`, `aws_s3_bucket` or `aws_kms_key` "
                "(`hyperpod-teams report --plan` names them if it does).",
                f"Remove the team from {md_code(spec_path)}, synthesize, review (`hyperpod-teams report "
                f"--plan`) and deploy {md_code(r.access)}"
                + (f" and {md_code(r.identity)}" if r.identity else "")
                + f" and {md_code(r.cost_stack)}: the team's groups, permission sets (and with them the "
                "`AWSReservedSSO_*` roles) and cost category rule go. No other team's stack changes.",
            ],
            ordered=True,
        )
    )
    document.add(Paragraph("Step 2, from the folder of `cdktf.json`:"))
    document.add(Code(keep_out_of_state_command(team_stack)))
    document.add(
        Paragraph(
            f"What stays: the domain {md_code(naming.team_domain_name(org, example))}, its EFS home "
            f"directories, the bucket {md_code(bucket)}, the keys {md_code(alias)} and {md_code(data_alias)} and "
            f"the security group {md_code(naming.team_studio_security_group_name(org, example))}, "
            "tagged with the team, managed by no stack. When the organization decides to delete the data for "
            "good: delete the domain's spaces, apps and user profiles, then the domain with its home directories "
            "(and then its security group), "
            "empty and delete the bucket (every version), then schedule the keys' deletion (30 days, cancellable "
            "until then with `aws kms cancel-key-deletion`):"
        )
    )
    document.add(
        Code(
            "aws sagemaker delete-domain --domain-id <domain-id> --retention-policy HomeEfsFileSystem=Delete\n"
            f'aws s3api delete-objects --bucket {bucket} --delete "$(aws s3api list-object-versions --bucket '
            f"{bucket} --query '{{Objects: [Versions, DeleteMarkers][][].{{Key: Key, VersionId: VersionId}}}}' "
            '--output json)"  # repeat while versions are left (1,000 a call)\n'
            f"aws s3api delete-bucket --bucket {bucket}\n"
            f"aws kms schedule-key-deletion --key-id {alias} --pending-window-in-days 30\n"
            f"aws kms schedule-key-deletion --key-id {data_alias} --pending-window-in-days 30\n"
            f"aws kms delete-alias --alias-name {alias}\n"
            f"aws kms delete-alias --alias-name {data_alias}"
        )
    )


#: The open AWS provider bug that drops part of the cost category on an in-place update.
COST_CATEGORY_PROVIDER_BUG = "terraform-provider-aws#49410"


def cost_category_repair_command(spec: PlatformSpec) -> str:
    """The AWS CLI commands that write the team cost category's whole definition in one
    UpdateCostCategoryDefinition, found by its name (shell; the definition is the spec's)."""
    name = naming.cost_category_name(spec.organization.name)
    definition = json.dumps(cost.cost_category_definition(spec), separators=(",", ":"))
    query = f"CostCategoryReferences[?Name=='{name}'].CostCategoryArn"
    return (
        f'ARN=$(aws ce list-cost-category-definitions --query "{query}" --output text)\n'
        'aws ce update-cost-category-definition --cost-category-arn "$ARN" \\\n'
        f"  --cli-input-json {shlex.quote(definition)}"
    )


def _cost_category_repair_section(spec: PlatformSpec) -> list:
    cost_stack = naming.cost_stack_name(spec.organization.name)
    return [
        Heading("After a change to the cost category"),
        Paragraph(
            f"The AWS provider updates the cost category in place, and leaves out of the update its default value "
            f"or its split charge rule when that one did not change; AWS replaces the whole definition and clears "
            f"it ({COST_CATEGORY_PROVIDER_BUG}, open). Adding or removing a team, or changing a quota, does this: "
            f"the plan review warns, and each further apply of {md_code(cost_stack)} clears the other one. After "
            f"such a deploy, write the whole definition once with the AWS CLI (credentials of the payer account); "
            f"the next plan of {md_code(cost_stack)} then shows no change:"
        ),
        Code(cost_category_repair_command(spec)),
    ]


def render_runbook(spec: PlatformSpec, *, spec_path: str = "teams.yaml") -> str:
    from hyperpod_teams.document import to_markdown

    return to_markdown(build_runbook(spec, spec_path=spec_path))


def _usage_report_section(spec: PlatformSpec) -> list:
    """When usage data appears and how a month's chargeback is made from it."""
    org = spec.organization
    database, workgroup = usage_report.database_name(org.name), usage_report.workgroup_name(org.name)
    bucket = usage_report.bucket_name(org.name, org.account_id, org.region)
    return [
        Heading("Usage reports and chargeback"),
        Paragraph(
            f"The operator writes raw usage to `s3://{bucket}/raw/` from the moment its pods run on the HyperPod "
            "nodes. The daily aggregation "
            f"({md_code(usage_report.aggregation_function_name(org.name))}, 00:00 UTC) turns "
            "the day before into `summary_report` rows: the first summary appears the first midnight (UTC) after "
            "a whole day of data, so a report of the deployment day itself is incomplete. A failed run stays in "
            f"the queue `{usage_report.aggregation_function_name(org.name)}-failures` for 14 days; run a day "
            'again with the event `{"day": "YYYY-MM-DD"}`. Data is kept '
            f"{spec.cost.usage_reports.retention_days} days."
        ),
        Paragraph(
            "At the end of a month, write the summary report with the official generator (a clone of "
            "awslabs/sagemaker-hyperpod-usage-report, `report_generation/`), then the statement:"
        ),
        Code(
            "python run.py --type summary --format csv \\\n"
            "  --start-date 2026-11-01 --end-date 2026-11-30 \\\n"
            f"  --database-name {database} --database-workgroup-name {workgroup} \\\n"
            f"  --cluster-name {spec.cluster.name} --output-report-location s3://{bucket}/reports/csv/\n"
            f"aws s3 cp s3://{bucket}/reports/csv/summary-report-2026-11-01-2026-11-30.csv .\n"
            "hyperpod-teams chargeback teams.yaml --usage summary-report-2026-11-01-2026-11-30.csv \\\n"
            "  --cost-from cur-2026-11-00001.csv.gz --cost-from cur-2026-11-00002.csv.gz \\\n"
            "  --format csv --out chargeback-2026-11.csv"
        ),
    ]


def _adoption_section(spec: PlatformSpec, existing: list[Existing], spec_path: str) -> list:
    """How to adopt what runs already: where each identifier in the spec comes from, and how to
    see that the first plan of each stack imports and replaces nothing."""
    org = spec.organization.name
    importing = sorted({e.stack for e in existing if e.how == "imported"})
    kept = [e for e in existing if e.how == "kept as it is"]
    blocks: list = [
        Heading("Adopting what runs already"),
        Paragraph(f"{md_code(spec_path)} says these exist in the account already. " + ways_explained(existing)),
        Table(
            ["what", "spec field", "the stacks", "print the identifier with"],
            [
                [e.what, md_code(e.field), e.how, md_code(e.lookup) + (f"; then {e.then}" if e.then else "")]
                for e in existing
            ],
        ),
        Heading("Check the first plan before each deploy", level=3),
        Items(
            [
                "Deploy in the order above; the stacks that take something over are "
                + ", ".join(md_code(name) for name in importing or ["none"])
                + ". For each, before its deploy: "
                + md_code(f"hyperpod-teams synth {spec_path}")
                + ", then in `cdktf.out/stacks/<stack>`: `terraform init`, `terraform plan -out plan.tfplan` and "
                "`terraform show -json plan.tfplan > plan.json`.",
                md_code(f"hyperpod-teams report {spec_path} --plan cdktf.out/stacks/<stack>/plan.json")
                + ": its *Imports* table "
                "lists what the stack takes over (and what taking over changes: the description, tags, settings the "
                "spec decides); *Nothing is deleted or replaced* must follow. In Terraform's own output the same "
                "objects read `will be imported`, never `must be replaced`.",
                "A replacement of anything imported cannot reach AWS: each carries `prevent_destroy`, so such a plan "
                "stops with *Instance cannot be destroyed*. Read which attribute forces it (`terraform plan` marks it "
                "`# forces replacement`) and make the spec match what exists.",
                "After the first apply the `import` blocks are no-ops; they may stay.",
            ],
            ordered=True,
        ),
    ]
    if kept:
        blocks += [
            Heading("Kept as it is", level=3),
            Paragraph(
                "Terraform's AWS provider cannot import the Cloud Control resources the stacks use for these "
                "(`resource aws_cloudcontrolapi_resource doesn't support import`), and a second scheduler config or "
                "a second quota for the same team would conflict with what runs. So the stacks read them at every "
                "plan and stop the plan when they say other than the spec; the report's compute numbers are then "
                "what runs. To change one, change it in AWS (`aws sagemaker update-cluster-scheduler-config` / "
                f"`update-compute-quota`) and in {md_code(spec_path)} together. To hand one to the stacks for good, "
                "delete it in a quiet hour and remove "
                "its field from the spec: the next deploy of "
                f"{md_code(naming.cluster_stack_name(org))} or the team's stack "
                "creates it from the spec."
            ),
        ]
    return blocks
