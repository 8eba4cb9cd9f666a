-- The aggregation queries of awslabs/sagemaker-hyperpod-usage-report at e71f39ae9e1152d865451d9873a4ee9e8467dc9c,
-- cloudformation/usage-report.yaml (AggregationLambda), copied verbatim by
-- tests/aws_models/copy_usage_report_queries.py. Apache-2.0, (c) Amazon.com, Inc. or its affiliates.
-- query: CRESCENDO_SUMMARY

      INSERT into "${UsageReportDatabase}".summary_report
      WITH latest_version_resource_states AS (
        SELECT * FROM (
          SELECT *, ROW_NUMBER() OVER (
              PARTITION BY instance_type, timestamp, namespace, team
              ORDER BY CAST(resource_version AS bigint) DESC
            ) AS row_num
          FROM "${UsageReportDatabase}".clusterqueue
        ) ranked
        WHERE row_num = 1 AND year = '{year}' AND month = '{month}' AND day = '{day}'
      ),
      resource_periods AS (
          SELECT DISTINCT
              CASE
                  WHEN ROW_NUMBER() OVER (PARTITION BY namespace, team, instance_type, year, month, day ORDER BY timestamp) = 1
                      AND (gpu_total > 0 OR cpu_total > 0 OR neuron_core_total > 0)
                  THEN DATE_TRUNC('DAY', timestamp)
                  ELSE timestamp
              END as period_start,
              CASE
                  WHEN LEAD(timestamp) OVER(
                      PARTITION BY namespace, team, instance_type, year, month, day
                      ORDER BY timestamp
                  ) IS NULL 
                  THEN DATE_ADD('DAY', 1, DATE_TRUNC('DAY', timestamp))
                  ELSE LEAD(timestamp) OVER(
                      PARTITION BY namespace, team, instance_type, year, month, day
                      ORDER BY timestamp
                  )
              END as period_end, namespace, team, instance_type, gpu_total, gpu_borrowed,
              cpu_total, cpu_borrowed, neuron_core_total, neuron_core_borrowed, cluster
          FROM latest_version_resource_states
      ),
      consolidated_periods AS (
          SELECT 
              DATE(period_start) as report_date, namespace, team, instance_type, gpu_total, gpu_borrowed,
              cpu_total, cpu_borrowed, neuron_core_total, neuron_core_borrowed, period_start, period_end,
              -- Calculate utilization hours for each resource type
              (CAST(DATE_DIFF('second', period_start, period_end) AS DOUBLE) / 3600) * gpu_total as total_gpu_hours,
              (CAST(DATE_DIFF('second', period_start, period_end) AS DOUBLE) / 3600) * (gpu_total - gpu_borrowed) as allocated_gpu_hours,
              (CAST(DATE_DIFF('second', period_start, period_end) AS DOUBLE) / 3600) * gpu_borrowed as borrowed_gpu_hours,
              (CAST(DATE_DIFF('second', period_start, period_end) AS DOUBLE) / 3600) * cpu_total as total_cpu_hours,
              (CAST(DATE_DIFF('second', period_start, period_end) AS DOUBLE) / 3600) * (cpu_total - cpu_borrowed) as allocated_cpu_hours,
              (CAST(DATE_DIFF('second', period_start, period_end) AS DOUBLE) / 3600) * cpu_borrowed as borrowed_cpu_hours,
              (CAST(DATE_DIFF('second', period_start, period_end) AS DOUBLE) / 3600) * neuron_core_total as total_neuron_hours,
              (CAST(DATE_DIFF('second', period_start, period_end) AS DOUBLE) / 3600) * (neuron_core_total - neuron_core_borrowed) as allocated_neuron_hours,
              (CAST(DATE_DIFF('second', period_start, period_end) AS DOUBLE) / 3600) * neuron_core_borrowed as borrowed_neuron_hours,
              cluster
          FROM resource_periods
          WHERE period_end IS NOT NULL
      ),
      daily_summary AS (
          SELECT report_date, namespace, team, instance_type,
              SUM(total_neuron_hours) as total_neuron_core_utilization_hours,
              SUM(allocated_neuron_hours) as allocated_neuron_core_utilization_hours,
              SUM(borrowed_neuron_hours) as borrowed_neuron_core_utilization_hours,
              SUM(total_gpu_hours) as total_gpu_utilization_hours,
              SUM(allocated_gpu_hours) as allocated_gpu_utilization_hours,
              SUM(borrowed_gpu_hours) as borrowed_gpu_utilization_hours,
              SUM(total_cpu_hours) as total_vcpu_utilization_hours,
              SUM(allocated_cpu_hours) as allocated_vcpu_utilization_hours,
              SUM(borrowed_cpu_hours) as borrowed_vcpu_utilization_hours,
              CAST(YEAR(report_date) AS VARCHAR) as year,
              LPAD(CAST(MONTH(report_date) AS VARCHAR), 2, '0') as month,
              LPAD(CAST(DAY(report_date) AS VARCHAR), 2, '0') as day,
              cluster
          FROM consolidated_periods
          GROUP BY 
              report_date, namespace, team, instance_type, cluster
      )
      SELECT
          report_date, namespace, team, instance_type,
          total_neuron_core_utilization_hours,
          allocated_neuron_core_utilization_hours,
          borrowed_neuron_core_utilization_hours,
          total_gpu_utilization_hours,
          allocated_gpu_utilization_hours,
          borrowed_gpu_utilization_hours,
          total_vcpu_utilization_hours,
          allocated_vcpu_utilization_hours,
          borrowed_vcpu_utilization_hours,
          year, month, day, cluster
      FROM daily_summary;
    
-- query: CRESCENDO_DETAILED

        Insert into "${UsageReportDatabase}".detailed_report
        WITH latest_version_workload AS (
          SELECT * FROM (
            SELECT *, ROW_NUMBER() OVER (
                PARTITION BY workload_name, timestamp, namespace, team, instance_type
                ORDER BY CAST(resource_version AS bigint) DESC
              ) AS row_num
            FROM "${UsageReportDatabase}".workload
          ) ranked
          WHERE row_num = 1
        ),
        workload_state_changes AS (
            SELECT DISTINCT
                workload_name, timestamp, namespace, team, status, instance_type, task_priority_class,
                CPU, GPU, neuron_core, admitted, finished, year, month, day, cluster
            FROM latest_version_workload
            WHERE year = '{year}' AND month = '{month}' AND day = '{day}'
        ),

        running_periods AS (
            SELECT 
                workload_name, timestamp as period_start,
                CASE 
                  WHEN LEAD(timestamp) OVER(
                      PARTITION BY workload_name, instance_type, year, month, day
                      ORDER BY timestamp
                  ) is NULL and status = 'QuotaReserved-True' 
                  THEN DATE_ADD('DAY', 1, DATE_TRUNC('DAY', timestamp))
                  ELSE COALESCE(LEAD(timestamp) OVER(
                          PARTITION BY workload_name, instance_type, year, month, day
                          ORDER BY timestamp
                      ), timestamp) 
                END as period_end,
                namespace, status,
                CASE 
                  WHEN LEAD(status) OVER(
                      PARTITION BY workload_name, instance_type, year, month, day
                      ORDER BY timestamp
                  ) is NULL and status = 'QuotaReserved-True'
                  THEN 'QuotaReserved-True'
                  ELSE LEAD(status) OVER(
                      PARTITION BY workload_name, instance_type, year, month, day
                      ORDER BY timestamp
                  )
                END as next_status,
                team, instance_type, task_priority_class, CPU, GPU, neuron_core,
                admitted, finished, year, month, day, cluster
            FROM workload_state_changes
        ),

        filtered_running_periods AS (
            SELECT *, LAG(period_end) OVER (PARTITION BY workload_name, instance_type ORDER BY period_start) AS prev_period_end
            FROM running_periods
            WHERE admitted = true
        ),

        running_grouped AS (
            SELECT *,
                CASE 
                    WHEN prev_period_end IS NULL THEN 1
                    WHEN date_diff('second', prev_period_end, period_start) > 0 THEN 1
                    ELSE 0
                END AS is_new_group
            FROM filtered_running_periods
        ),

        grouped_with_ids AS (
            SELECT *, SUM(is_new_group) OVER (PARTITION BY workload_name, instance_type ORDER BY period_start ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS group_id
            FROM running_grouped
        ),

        continuous_running_periods AS (
            SELECT
                workload_name, group_id, MIN(period_start) AS period_start, MAX(period_end) AS period_end, namespace,
                CASE 
                    WHEN bool_or(finished) THEN 'Finished'
                    WHEN bool_or(next_status = 'Failed') OR bool_or(next_status IS NULL) THEN 'Failed'
                    WHEN bool_or(status = 'QuotaReserved-True' AND next_status = 'Evicted-True') THEN 'Preempted'
                    ELSE 'Running'
                END AS status, team, instance_type, task_priority_class, CPU, GPU, neuron_core, year, month, day, cluster
            FROM grouped_with_ids
            GROUP BY 
              workload_name, group_id, namespace, team, instance_type, task_priority_class, CPU, GPU, neuron_core, 
              year, month, day, cluster
        ),
        team_grouped_utilization AS (
            SELECT
                workload_name, group_id, namespace, team, instance_type, task_priority_class,
                MIN(period_start) AS period_start, MAX(period_end) AS period_end, MAX(status) AS status,
                SUM(date_diff('second', period_start, period_end) / 3600.0 * CPU) AS cpu_utilization_hours,
                SUM(date_diff('second', period_start, period_end) / 3600.0 * GPU) AS gpu_utilization_hours,
                SUM(date_diff('second', period_start, period_end) / 3600.0 * neuron_core) AS neuron_utilization_hours,
                COUNT(DISTINCT workload_name) AS workload_count,
                SUM(CPU) AS cpu_count, SUM(GPU) AS gpu_count, SUM(neuron_core) AS neuron_count,
                year, month, day, cluster
            FROM continuous_running_periods
            GROUP BY 
                workload_name, group_id, namespace, team, instance_type, task_priority_class,
                year, month, day, cluster
        )
        SELECT DATE(period_start) as report_date, period_start, period_end, namespace, team, workload_name as task_name,
            instance_type as instance, workload_count as instance_count, status, neuron_utilization_hours as utilized_neuron_core_hours, 
            CAST(neuron_count as double) as utilized_neuron_core_count, gpu_utilization_hours as utilized_gpu_hours, 
            CAST(gpu_count as double) as utilized_gpu_count, cpu_utilization_hours as utilized_vcpu_hours, 
            CAST(cpu_count as double) as utilized_vcpu_count, task_priority_class as priority_class, 
            year, month, day, cluster
        FROM team_grouped_utilization
        ORDER BY report_date, task_name, instance;
    
-- query: NON_CRESCENDO_SUMMARY

    INSERT INTO "${UsageReportDatabase}".summary_report
    WITH latest_pod_state_changes AS (
      SELECT *
      FROM (
        SELECT
          *,
          ROW_NUMBER() OVER (
            PARTITION BY pod, timestamp, namespace, owner, instance_type
            ORDER BY CAST(resource_version AS bigint) DESC
          ) AS row_num
        FROM "${UsageReportDatabase}".pod
      ) ranked
      WHERE row_num = 1
    ),
    pod_state_changes AS (
        SELECT DISTINCT
            pod, timestamp, namespace, status, owner, instance_type, job_type, CPU, GPU,
            neuron_core, year, month, day, cluster
        FROM latest_pod_state_changes
        WHERE year = '{year}' AND month = '{month}' AND day = '{day}'
        AND status != 'Unknown'
    ),
    running_periods AS (
        SELECT 
            pod,
            CASE
                WHEN ROW_NUMBER() OVER (PARTITION BY pod, year, month, day ORDER BY timestamp) = 1
                    AND status = 'Running'
                THEN DATE_TRUNC('DAY', timestamp)
                ELSE timestamp
            END as period_start,
            CASE
                WHEN LEAD(timestamp) OVER(
                    PARTITION BY pod, instance_type, year, month, day
                    ORDER BY timestamp
                ) IS NULL 
                AND status = 'Running'
                THEN DATE_ADD('DAY', 1, DATE_TRUNC('DAY', timestamp))
                ELSE LEAD(timestamp) OVER(
                    PARTITION BY pod, instance_type, year, month, day
                    ORDER BY timestamp
                )
            END as period_end,
            status, instance_type, namespace, CPU, GPU, neuron_core, owner, year, month, day, cluster
        FROM pod_state_changes
    ),
    utilization_calc AS (
        SELECT
            DATE(period_start) as report_date,
            namespace,
            '' as team,
            instance_type,
            SUM(
                CASE 
                    WHEN status = 'Running' AND period_end IS NOT NULL 
                    THEN (CAST(DATE_DIFF('second', period_start, period_end) AS DOUBLE) / 3600) * neuron_core
                    ELSE 0 
                END
            ) as total_neuron_core_utilization_hours,
            0.0 as allocated_neuron_core_utilization_hours,
            0.0 as borrowed_neuron_core_utilization_hours,
            SUM(
                CASE 
                    WHEN status = 'Running' AND period_end IS NOT NULL 
                    THEN (CAST(DATE_DIFF('second', period_start, period_end) AS DOUBLE) / 3600) * GPU
                    ELSE 0 
                END
            ) as total_gpu_utilization_hours,
            0.0 as allocated_gpu_utilization_hours,
            0.0 as borrowed_gpu_utilization_hours,
            SUM(
                CASE 
                    WHEN status = 'Running' AND period_end IS NOT NULL 
                    THEN (CAST(DATE_DIFF('second', period_start, period_end) AS DOUBLE) / 3600) * CPU
                    ELSE 0 
                END
            ) as total_vcpu_utilization_hours,
            0.0 as allocated_vcpu_utilization_hours,
            0.0 as borrowed_vcpu_utilization_hours,
            CAST(YEAR(DATE(period_start)) AS VARCHAR) as year,
            LPAD(CAST(MONTH(DATE(period_start)) AS VARCHAR), 2, '0') as month,
            LPAD(CAST(DAY(DATE(period_start)) AS VARCHAR), 2, '0') as day,
            cluster
        FROM running_periods
        GROUP BY 
            DATE(period_start),
            namespace, instance_type, owner, year, month, day, cluster
    )
    SELECT
        report_date,
        namespace,
        team,
        instance_type,
        total_neuron_core_utilization_hours,
        allocated_neuron_core_utilization_hours,
        borrowed_neuron_core_utilization_hours,
        total_gpu_utilization_hours,
        allocated_gpu_utilization_hours,
        borrowed_gpu_utilization_hours,
        total_vcpu_utilization_hours,
        allocated_vcpu_utilization_hours,
        borrowed_vcpu_utilization_hours,
        year,
        month,
        day,
        cluster
    FROM utilization_calc;
    