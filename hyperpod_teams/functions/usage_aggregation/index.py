"""The daily aggregation of HyperPod usage data, run by Lambda (`<org>-hyperpod-usage-aggregation`).

It does what the official setup's aggregation function does for clusters with task governance
(awslabs/sagemaker-hyperpod-usage-report, cloudformation/usage-report.yaml, its CRESCENDO_SUMMARY
and CRESCENDO_DETAILED queries): register the raw tables' new partitions, then write one day's
rows of the two tables HyperPod's report generator reads.

`summary_report`, from the Kueue ClusterQueue snapshots the operator recorded: each snapshot's
allocation holds from its time until the next snapshot of the same namespace, team and instance
type, the last one until midnight; the day's first snapshot holds from midnight (it carries the
state of the day before). Hours are that duration times the GPUs, vCPUs or NeuronCores in use;
allocated is total minus borrowed.

`detailed_report`, from the Kueue Workload states: one row per task and continuous run. Each
state holds until the task's next state; the day's last one until midnight if the task still
holds its quota (`QuotaReserved-True`), else it ends where it is. The admitted states, back to
back, make a run; its hours are the run's duration times the task's GPUs, vCPUs or NeuronCores,
its counts those resources. Its status, as the reference decides it: Finished if the task
finished in the run; Failed if the run ended in `Failed` or without a next state; Preempted if
a reserved quota was followed by an eviction (`Evicted-True`); else Running (past midnight).
A task whose resources change within a run counts its largest (the reference sums the levels).

Both are our own SQL with the reference's meaning; tests/test_usage_aggregation_sql.py runs them
beside the reference's queries on the same rows.

The event may name the day to aggregate, {"day": "2026-11-02"} (to fill a gap); by default it is
yesterday in UTC. Written for the Lambda Python runtime: boto3 and the standard library only.
"""

from __future__ import annotations

import datetime
import os
import re
import time

SUMMARY_INSERT = """
INSERT INTO "{database}".summary_report
WITH latest AS (
  SELECT *, ROW_NUMBER() OVER (
      PARTITION BY cluster, namespace, team, instance_type, "timestamp"
      ORDER BY CAST(resource_version AS bigint) DESC) AS version_rank
  FROM "{database}".clusterqueue
  WHERE year = '{year}' AND month = '{month}' AND day = '{day}'
),
snapshots AS (
  SELECT cluster, namespace, team, instance_type, "timestamp",
    gpu_total, gpu_borrowed, cpu_total, cpu_borrowed, neuron_core_total, neuron_core_borrowed,
    ROW_NUMBER() OVER (PARTITION BY cluster, namespace, team, instance_type ORDER BY "timestamp") AS position,
    LEAD("timestamp") OVER (PARTITION BY cluster, namespace, team, instance_type ORDER BY "timestamp") AS until
  FROM latest
  WHERE version_rank = 1
),
periods AS (
  SELECT *,
    CAST(date_diff('millisecond',
      CASE WHEN position = 1 THEN date_trunc('day', "timestamp") ELSE "timestamp" END,
      COALESCE(until, date_trunc('day', "timestamp") + INTERVAL '1' DAY)) AS double) / 3600000.0 AS hours
  FROM snapshots
)
SELECT DATE '{date}' AS report_date, namespace, team, instance_type,
  SUM(hours * neuron_core_total), SUM(hours * (neuron_core_total - neuron_core_borrowed)),
  SUM(hours * neuron_core_borrowed),
  SUM(hours * gpu_total), SUM(hours * (gpu_total - gpu_borrowed)), SUM(hours * gpu_borrowed),
  SUM(hours * cpu_total), SUM(hours * (cpu_total - cpu_borrowed)), SUM(hours * cpu_borrowed),
  '{year}', '{month}', '{day}', cluster
FROM periods
GROUP BY namespace, team, instance_type, cluster
"""

DETAILED_INSERT = """
INSERT INTO "{database}".detailed_report
WITH latest AS (
  SELECT *, ROW_NUMBER() OVER (
      PARTITION BY cluster, namespace, team, workload_name, instance_type, "timestamp"
      ORDER BY CAST(resource_version AS bigint) DESC) AS version_rank
  FROM "{database}".workload
  WHERE year = '{year}' AND month = '{month}' AND day = '{day}'
),
states AS (
  SELECT cluster, namespace, team, workload_name, instance_type, task_priority_class,
    CPU, GPU, neuron_core, admitted, finished, status, "timestamp" AS since,
    COALESCE(
      LEAD("timestamp") OVER (PARTITION BY cluster, namespace, workload_name, instance_type ORDER BY "timestamp"),
      CASE WHEN status = 'QuotaReserved-True' THEN date_trunc('day', "timestamp") + INTERVAL '1' DAY
        ELSE "timestamp" END) AS until,
    COALESCE(
      LEAD(status) OVER (PARTITION BY cluster, namespace, workload_name, instance_type ORDER BY "timestamp"),
      CASE WHEN status = 'QuotaReserved-True' THEN status END) AS next_status
  FROM latest
  WHERE version_rank = 1
),
admitted_states AS (
  SELECT *,
    CASE WHEN LAG(until) OVER (PARTITION BY cluster, namespace, workload_name, instance_type ORDER BY since) = since
      THEN 0 ELSE 1 END AS starts_a_run,
    CAST(date_diff('millisecond', since, until) AS double) / 3600000.0 AS hours
  FROM states
  WHERE admitted
),
runs AS (
  SELECT *, SUM(starts_a_run) OVER (
      PARTITION BY cluster, namespace, workload_name, instance_type ORDER BY since
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS run
  FROM admitted_states
)
SELECT DATE '{date}' AS report_date, MIN(since), MAX(until), namespace, team, workload_name, instance_type,
  COUNT(DISTINCT workload_name),
  CASE
    WHEN bool_or(finished) THEN 'Finished'
    WHEN bool_or(next_status = 'Failed' OR next_status IS NULL) THEN 'Failed'
    WHEN bool_or(status = 'QuotaReserved-True' AND next_status = 'Evicted-True') THEN 'Preempted'
    ELSE 'Running'
  END,
  SUM(hours * neuron_core), MAX(neuron_core), SUM(hours * GPU), MAX(GPU), SUM(hours * CPU), MAX(CPU),
  task_priority_class,
  '{year}', '{month}', '{day}', cluster
FROM runs
GROUP BY cluster, namespace, team, workload_name, instance_type, task_priority_class, run
"""

_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def day_to_aggregate(event: dict, now: datetime.datetime) -> datetime.date:
    requested = (event or {}).get("day")
    if requested is None:
        return (now - datetime.timedelta(days=1)).date()
    if not isinstance(requested, str) or not _DAY.match(requested):
        raise ValueError(f"event.day must be a date such as 2026-11-02, not {requested!r}")
    return datetime.date.fromisoformat(requested)


def queries(database: str, raw_tables: list[str], day: datetime.date) -> list[str]:
    """The statements of one run, in order: partition repairs, then the day's summary and details."""
    repairs = [f"MSCK REPAIR TABLE `{table}`" for table in raw_tables]
    values = {
        "database": database,
        "date": day.isoformat(),
        "year": f"{day.year:04d}",
        "month": f"{day.month:02d}",
        "day": f"{day.day:02d}",
    }
    return [*repairs, SUMMARY_INSERT.format(**values), DETAILED_INSERT.format(**values)]


def run_query(athena, query: str, database: str, workgroup: str, poll_seconds: float = 2.0) -> str:
    started = athena.start_query_execution(
        QueryString=query, QueryExecutionContext={"Database": database}, WorkGroup=workgroup
    )
    execution_id = started["QueryExecutionId"]
    while True:
        status = athena.get_query_execution(QueryExecutionId=execution_id)["QueryExecution"]["Status"]
        if status["State"] == "SUCCEEDED":
            return execution_id
        if status["State"] in ("FAILED", "CANCELLED"):
            reason = status.get("StateChangeReason", "no reason given")
            raise RuntimeError(f"query {execution_id} {status['State']}: {reason}\n{query.strip()[:200]}")
        time.sleep(poll_seconds)


def handler(event, context, athena=None, now=None):
    if athena is None:
        import boto3  # the Lambda runtime has it; the module loads without it

        athena = boto3.client("athena")
    day = day_to_aggregate(event, now or datetime.datetime.now(datetime.UTC))
    database, workgroup = os.environ["DATABASE"], os.environ["WORKGROUP"]
    executions = [
        run_query(athena, query, database, workgroup)
        for query in queries(database, os.environ["RAW_TABLES"].split(","), day)
    ]
    return {"day": day.isoformat(), "query_execution_ids": executions}
