"""The scheduler's recorded history: what charts read, kept in the database, no extra service.

What is recorded, after every session (``monitoring.recorder.record_session``, run by the
worker through the after-session hook this app registers; the scheduler builds the figures,
``scheduler.session_sample``): each queue's allocated, deserved, guarantee and capability per resource (milli-units,
as the engine holds them), its share (the sharing plugin's: proportion or capacity), weight and
PodGroups Pending/Inqueue/Running and pods pending and running; the running jobs' DRF shares (the top N jobs with their
dominant resource, and per queue the count, mean and max share), read from the drf plugin by a
session observer that changes nothing (the scheduler's); the session's end-to-end, per-action and per-plugin
latency, also as counts in Volcano's latency buckets (``monitoring.latency``); binds, evictions (in total, by action: preempt, reclaim, and by queue), pipelined pods and
unschedulable jobs and tasks.

Why compact: one row per session (``HistorySample``), not one per queue, job or pod. Its queue
figures are columns stored as NumPy blocks, the rest as small JSON parts, all zlib'd
(``monitoring.codec``). A week of 1-second sessions would be 604,800 rows; the tiers below keep
about 6,000 (3,600 + 1,440 + 1,008), about 6 KiB each with 100 queues (``bench/history.py``),
and a reader reads at most a day's per-minute rows. Ten thousand running jobs cost the top N
plus one line per queue, not 10,000 entries.

Downsampling (``monitoring.merge``): tiers ``resolution:keep`` (``VOLCANO_HISTORY_TIERS``,
default per session for an hour, per minute for a day, per ten minutes for a week). Once a
minute at most the worker merges the whole buckets of each tier into the next coarser one and
deletes samples older than their tier keeps. The merge rule per field: mean (weighted by
sessions) for load (allocated, deserved, share, PodGroup counts, DRF mean share, latencies),
max for peaks (``share_max``, ``e2e_max``, DRF max share), last for settings (weight,
guarantee, capability) and the top jobs, sum for counts (binds, evictions, pipelined,
unschedulable, and the latency buckets' counts, so a rolled-up point's p50/p95/p99 are
those of its sessions within one bucket, not quantiles of means). Readers (``monitoring.history``) choose the tier from the range asked for.
"""
