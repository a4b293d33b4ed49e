"""The job controller: Volcano's job lifecycle, level-triggered over the database.

Entry points for the worker (an injected clock, as everywhere):

- ``reconcile_all(now=None) -> ReconcileReport``: every job, then every queue.
- ``reconcile_job(job_or_pk, now) -> JobResult``: one job.

Modules: ``reconcile`` (the pass), ``requests`` (events derived from rows,
Commands), ``policies`` (event/exitCode → action), ``delays`` (a policy's
``timeout``: persisted timers, fired once, cancelled when the pod recovers),
``states`` (the phase table and rules), ``actions`` (SyncJob / KillJob /
KillTarget), ``podgroup``, ``pods`` and ``plugins`` (rendering), ``ttl``,
``events``, ``context``; ``queue_commands`` (OpenQueue and CloseQueue Commands, handed to
the queue controller).

Contract with the scheduler and the node runtime: pods are created only after
the scheduler moved the PodGroup past Pending (Inqueue); to evict a pod, set its
``deletion_time`` (the controller sees ``PodEvicted`` and removes the row); to
delete a job's pod outright, call ``jobs.evictions.note_pod_deleted`` in the same
transaction (the API and the admin do), so the controller still sees
``PodEvicted``; a pod ends by its ``phase`` (Succeeded/Failed) and ``exit_code``.
Commands are deleted before they act (at most once), ``CommandIssued`` recorded.
"""

from __future__ import annotations

from jobs.controller.reconcile import JobResult, ReconcileReport, reconcile_all, reconcile_job

__all__ = ["JobResult", "ReconcileReport", "reconcile_all", "reconcile_job"]
