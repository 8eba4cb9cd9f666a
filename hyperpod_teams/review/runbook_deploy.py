"""The runbook's first deployment: the stacks in order, the identity provider's and Identity Center's
manual steps, the cluster's and the teams', what to do after the first deployment, and what an
adopted cluster needs.

Pure layer.
"""

from __future__ import annotations

from hyperpod_teams import addons, cost, dependencies_chart, naming, usage_report
from hyperpod_teams.adoption import Existing, ways_explained
from hyperpod_teams.document import Code, Document, Heading, Items, Paragraph, Table, md_code
from hyperpod_teams.plugins import IDENTITY_CENTER_VARIABLES, SAML_OUTPUTS
from hyperpod_teams.review.runbook_base import RUNBOOK_CLI, Runbook, deploy_command, engine_command, naming_the_spec
from hyperpod_teams.review.runbook_work import usage_report_section
from hyperpod_teams.spec.loading import SPEC_CONTEXT_KEY, SPEC_ENV
from hyperpod_teams.spec.models import PlatformSpec
from hyperpod_teams.stack_plan import deploy_waves


def intro_section(document: Document, r: Runbook) -> None:
    spec_path, plugin, stacks = r.spec_path, r.plugin, r.stacks
    document.add(
        Paragraph(
            f"From {md_code(spec_path)}: {len(stacks)} stacks, identity provider "
            f"{md_code(plugin.name)}. Run the commands from the "
            "folder of `cdktf.json`, with the credentials each step names, in this order: each step deploys only "
            f"its own stacks, those of earlier steps being in place already. Each {md_code(RUNBOOK_CLI.get())} command "
            f"names the spec with {md_code(SPEC_ENV)} (or set the context key {md_code(SPEC_CONTEXT_KEY)} in "
            f"`cdktf.json` to it once): {RUNBOOK_CLI.get()} "
            "runs the app, which reads the spec from there."
        )
    )


def deploy_order_section(document: Document, r: Runbook) -> None:
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


def identity_steps(r: Runbook) -> list[str]:
    """From synthesis to the permission sets: the IdP, Identity Center's identity source and
    provisioning, which the other stacks wait for."""
    spec_path, plugin, identity, access, groups = r.spec_path, r.plugin, r.identity, r.access, r.groups
    steps: list[str] = [
        f"Synthesize and review: {md_code(f'hyperpod-teams validate {spec_path}')}, "
        f"{md_code(f'hyperpod-teams synth {spec_path}')}, {md_code(f'hyperpod-teams report {spec_path}')}; "
        f"{md_code(engine_command(spec_path, 'diff'))} shows each stack's plan.",
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
            "Deploy the identity provider's side with the IdP's credentials: "
            f"{md_code(deploy_command(spec_path, identity))}.",
            "**Identity source, part 2 (manual).** Read the outputs: `"
            + engine_command(spec_path, f"output {identity}")
            + "` "
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
    steps += [naming_the_spec(step, spec_path) for step in plugin.provisioning_steps(identity)]
    listed = " ".join(md_code(name) for name in sorted(groups.values()))
    if plugin.creates_identity_center_groups:
        # Nothing to wait for: the access stack creates the groups it would otherwise look up.
        steps.append(
            "Deploy the groups, permission sets and assignments with Identity Center account credentials: "
            f"{md_code(deploy_command(spec_path, access))}. It creates the groups in Identity Center: {listed}; "
            "then add "
            "their members there (users provisioned by SCIM or by hand)."
        )
        return steps
    steps.append(
        f"**Wait for provisioning** before deploying {md_code(access)}: its group lookups fail until every group is in "
        f"Identity Center (check each with the command below). The groups: {listed}."
    )
    steps.append(
        "Deploy the permission sets and assignments with Identity Center account credentials: "
        f"{md_code(deploy_command(spec_path, access))}."
    )
    return steps


def cluster_and_team_steps(r: Runbook) -> list[str]:
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
    steps.append(
        f"Deploy the cluster side (AWS and EKS credentials): {md_code(deploy_command(spec_path, *cluster_side))}."
    )
    team_stacks = [s.name for s in stacks if s.team]
    steps.append(f"Deploy every team's stacks, in parallel: {md_code(deploy_command(spec_path, *team_stacks))}.")
    keys = ", ".join(md_code(k) for k in cost.COST_ALLOCATION_TAG_KEYS)
    steps.append(
        f"**Billing (payer account, manual wait).** Tag keys {keys} appear in *Billing and Cost Management* → "
        "*Cost allocation tags* up to 24 hours after the first tagged resources exist; only then can they be "
        "activated. Then deploy with payer-account credentials: "
        f"{md_code(deploy_command(spec_path, cost_stack))} (activates the "
        f"tags and creates the cost category {md_code(naming.cost_category_name(org))}). Cost "
        "Explorer shows costs by the "
        "category from the day of activation on; earlier spend is not attributed."
    )
    return steps


def after_first_deployment(document: Document, r: Runbook) -> None:
    spec, spec_path, existing, groups = r.spec, r.spec_path, r.existing, r.groups
    usage = spec.cost.usage_reports
    store = spec.identity.identity_center.identity_store_id
    if existing:
        document.add(*_adoption_section(spec, existing, spec_path))
    if usage.enabled:
        document.add(*usage_report_section(spec))
    document.add(Paragraph("Check that a group reached Identity Center (needs `identitystore:ListGroups`):"))
    first = sorted(groups.values())[0]
    document.add(
        Code(
            f"aws identitystore list-groups --identity-store-id {store} \\\n"
            f"  --filters AttributePath=DisplayName,AttributeValue={first}"
        )
    )


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
