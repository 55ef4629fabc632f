-- Question (HTA tutorial, "Communication computation overlap"): how much of the time spent
-- in communication kernels is overlapped by computation kernels, per rank?
--   (time spent computing while communicating) / (time spent communicating)
-- Higher is better: communication that no computation hides leaves the GPU waiting on data.
-- HTA: get_comm_comp_overlap(), for every job.
SELECT job, rank, round(comp_comm_overlap_pctg, 2) AS comp_comm_overlap_pct
FROM hta_comm_comp_overlap
ORDER BY job, rank;
