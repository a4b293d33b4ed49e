"""Resourcequota plugin: enqueue admits a job only within its namespace's ResourceQuotas.

Volcano's counterpart: ``pkg/scheduler/plugins/resourcequota``. A PodGroup with
``spec.minResources`` is enqueueable only if, for every ResourceQuota of its namespace,
``status.used`` + the minResources of PodGroups this session already enqueued in that namespace +
its own minResources, on the resource names both it and the quota name, stays within
``status.hard``. Names match exactly, as Kubernetes' quota arithmetic does: a quota on
``requests.cpu`` limits a PodGroup only through a ``requests.cpu`` entry of its minResources (which
Volcano's job controller writes). Both hooks sit under ``enableJobEnqueued``; no arguments.

A refusal is recorded as Volcano does, a ``Normal`` event with reason ``Unschedulable`` on the
PodGroup, whose text names the quota and the resources it runs out of.
"""

from __future__ import annotations

from apis.quantity import format_quantity
from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.quota_info import QuotaInfo
from scheduler.engine.api.resource import MEMORY, Resource
from scheduler.engine.api.types import PERMIT, REJECT
from scheduler.engine.framework import Plugin, Session, register_plugin

__all__ = ["ResourceQuotaPlugin", "quota_refusal"]

UNSCHEDULABLE = "Unschedulable"  # scheduling.PodGroupUnschedulableType, the event's reason


def _requested(job: JobInfo) -> Resource | None:
    return job.quota_min_resources if job.quota_min_resources is not None else job.min_resources


def _mask(amounts: Resource, names: set[str]) -> dict[str, int]:
    return {name: value for name, value in amounts.items() if name in names}


def _list(amounts: dict[str, int]) -> str:
    """Return a resource list as Go prints a map (``map[cpu:2 memory:1Gi]``, keys sorted)."""
    parts = (
        f"{name}:{format_quantity(value, binary=name.endswith(MEMORY))}"
        for name, value in sorted(amounts.items())
    )
    return f"map[{' '.join(parts)}]"


def quota_refusal(quota: QuotaInfo, requested: Resource, pending: Resource) -> str | None:
    """Return why ``requested`` (on top of ``pending``) exceeds ``quota``, or None if it fits."""
    limited = set(quota.hard.names())
    asked = _mask(requested, limited)
    used = quota.used + pending
    exceeded = sorted(name for name in asked if used.get(name) + asked[name] > quota.hard.get(name))
    if not exceeded:
        return None
    names = set(exceeded)
    return (
        f"resource quota insufficient, requested: {_list(_mask(requested, names))}, "
        f"used: {_list(_mask(quota.used, names))}, limited: {_list(_mask(quota.hard, names))}"
        f" (ResourceQuota {quota.uid})"
    )


@register_plugin
class ResourceQuotaPlugin(Plugin):
    """Enqueue vote against the namespace's ResourceQuota status."""

    name = "resourcequota"

    def on_session_open(self, ssn: Session) -> None:
        """Register the enqueue vote and the enqueued callback."""
        self._ssn = ssn
        # namespace -> minResources of the PodGroups enqueued in it during this session
        self._pending: dict[str, Resource] = {}
        ssn.add_job_enqueueable_fn(self.name, self._enqueueable)
        ssn.add_job_enqueued_fn(self.name, self._enqueued)

    def _enqueueable(self, job: JobInfo) -> int:
        requested = _requested(job)
        if requested is None:
            return PERMIT
        pending = self._pending.get(job.namespace, Resource())
        for quota in self._ssn.cluster.quotas_of(job.namespace):
            message = quota_refusal(quota, requested, pending)
            if message is not None:
                self._ssn.record_pod_group_event(job.uid, "Normal", UNSCHEDULABLE, message)
                return REJECT
        return PERMIT

    def _enqueued(self, job: JobInfo) -> None:
        requested = _requested(job)
        if requested is None or not self._ssn.cluster.quotas_of(job.namespace):
            return
        self._pending[job.namespace] = self._pending.get(job.namespace, Resource()) + requested
