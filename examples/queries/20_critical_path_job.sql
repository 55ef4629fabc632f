-- Question (beyond HTA): which ranks and which operators held the job's step? The job's
-- critical path of the first ProfilerStep across ranks: every rank's graph (HTA's rules)
-- joined at the collectives, where a collective ends on every rank only after its last
-- rank arrives; the waiting is not on the path, the work that made the others wait is.
-- hta-sqlite: hta_critical_path_job_summary and hta_critical_path_job (HTA has one rank at
-- a time only).
SELECT job, rank, bound_by,
       round(duration_us, 3) AS duration_us,
       round(percentage, 2)  AS pct
FROM hta_critical_path_job_summary
WHERE bound_by <> ''
ORDER BY job, duration_us DESC;

-- Each job's path: its ten biggest events, and where it crosses ranks (src_rank <> rank).
SELECT job, rank, name, bound_by, us, edges, crossings
FROM (SELECT job, rank, name, bound_by, round(sum(weight_us), 3) AS us, count(*) AS edges,
             sum(src_rank <> rank) AS crossings,
             row_number() OVER (PARTITION BY job ORDER BY sum(weight_us) DESC) AS pos
      FROM hta_critical_path_job
      WHERE name <> ''
      GROUP BY job, rank, name, bound_by)
WHERE pos <= 10
ORDER BY job, pos;
