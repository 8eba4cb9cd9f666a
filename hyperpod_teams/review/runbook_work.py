"""The runbook's sections on the teams' work: submitting a job, serving a model (with its endpoint
manifest), the add-ons, and HyperPod usage reporting.

Pure layer.
"""

from __future__ import annotations

from hyperpod_teams import addons, naming, rbac, usage_report
from hyperpod_teams.document import Code, Document, Heading, Items, Paragraph, md_code
from hyperpod_teams.review.runbook_base import Runbook
from hyperpod_teams.spec.models import PlatformSpec


def submit_a_job_section(document: Document, r: Runbook) -> None:
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


def add_ons_section(document: Document, r: Runbook) -> None:
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
        tls_bucket = naming.inference_tls_bucket_name(
            org.name, org.account_id, org.region, cluster=spec.cluster_qualifier
        )
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


def usage_report_section(spec: PlatformSpec) -> list:
    """When usage data appears and how a month's chargeback is made from it."""
    org = spec.organization
    owner = naming.cluster_owner(org.name, spec.cluster_qualifier)
    database, workgroup = usage_report.database_name(owner), usage_report.workgroup_name(owner)
    bucket = usage_report.bucket_name(owner, org.account_id, org.region)
    report = f"{bucket}/reports/csv/summary-report-2026-11-01-2026-11-30.csv"
    return [
        Heading("Usage reports and chargeback"),
        Paragraph(
            f"The operator writes raw usage to `s3://{bucket}/raw/` from the moment its pods run on the HyperPod "
            "nodes. The daily aggregation "
            f"({md_code(usage_report.aggregation_function_name(owner))}, 00:00 UTC) turns "
            "the day before into `summary_report` rows: the first summary appears the first midnight (UTC) after "
            "a whole day of data, so a report of the deployment day itself is incomplete. A failed run stays in "
            f"the queue `{usage_report.aggregation_function_name(owner)}-failures` for 14 days; run a day "
            'again with the event `{"day": "YYYY-MM-DD"}`. Data is kept '
            f"{spec.cost.usage_reports.retention_days} days."
        ),
        Paragraph(
            "At the end of a month, write the summary report with the official generator (a clone of "
            "awslabs/sagemaker-hyperpod-usage-report, `report_generation/`), then the statement. Download the "
            "report into a folder named as its bucket: the report names its cluster only, and the bucket's name "
            "holds the account and Region, so `chargeback` can refuse a report of another account's cluster of "
            "the same name:"
        ),
        Code(
            "python run.py --type summary --format csv \\\n"
            "  --start-date 2026-11-01 --end-date 2026-11-30 \\\n"
            f"  --database-name {database} --database-workgroup-name {workgroup} \\\n"
            f"  --cluster-name {spec.cluster.name} --output-report-location s3://{bucket}/reports/csv/\n"
            f"aws s3 cp s3://{report} {bucket}/reports/csv/\n"
            f"hyperpod-teams chargeback teams.yaml --usage {report} \\\n"
            "  --cost-from cur-2026-11-00001.csv.gz --cost-from cur-2026-11-00002.csv.gz \\\n"
            "  --format csv --out chargeback-2026-11.csv"
        ),
    ]
