"""A flow step's ``dependsOn.probe``: what its targets' tasks must show before the step starts.

Volcano's API declares three kinds of probe (``taskStatusList``, ``tcpSocketList``,
``httpGetList``) and its design calls them a "probe type dependency"; its controller does not
evaluate them yet (it waits for every target job to be Completed). Here a step with a probe
waits for the probe instead of for its targets' completion, so a step can start beside a
target that is still running (an evaluator once the trainer's parameter server is up):

- ``taskStatusList``: every pod of the named task of a target job is in ``phase`` (a pod
  phase: Pending, Running, Succeeded, Failed), as the job's ``status.taskStatusCount`` says.
- ``tcpSocketList`` and ``httpGetList``: a pod of the named task of a target job is Running
  and one of its containers declares that ``containerPort``. The simulated pods have no network
  of their own: a Running simulated container is taken to listen on the ports it declares and
  to answer any HTTP path, which is what a real probe of a healthy server would see.

Every entry must pass, against any of the step's targets.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["needs_pods", "probe_passes"]


def needs_pods(probe: Mapping[str, Any] | None) -> bool:
    """Return whether ``probe`` looks at pods (TCP or HTTP entries), not only job status."""
    return bool(probe and (probe.get("tcpSocketList") or probe.get("httpGetList")))


def _task_in_phase(task_status_count: Mapping[str, Any], task: str, phase: str) -> bool:
    counts = (task_status_count.get(task) or {}).get("phase") or {}
    total = sum(int(n) for n in counts.values())
    return total > 0 and int(counts.get(phase, 0)) == total


def _declares_port(spec: Mapping[str, Any], port: int) -> bool:
    return any(
        int(declared.get("containerPort", -1)) == port
        for container in spec.get("containers") or []
        for declared in container.get("ports") or []
    )


def probe_passes(
    probe: Mapping[str, Any],
    targets: Iterable[Any],
    running_pods: Mapping[tuple[int, str], list[dict[str, Any]]],
) -> bool:
    """Return whether every entry of ``probe`` holds for one of the ``targets`` (Job rows).

    ``running_pods`` maps (job id, task name) to the specs of that task's Running pods.
    """
    jobs = list(targets)
    for entry in probe.get("taskStatusList") or []:
        task, phase = entry.get("taskName", ""), entry.get("phase", "")
        if not any(_task_in_phase(job.task_status_count or {}, task, phase) for job in jobs):
            return False
    for entry in [*(probe.get("tcpSocketList") or []), *(probe.get("httpGetList") or [])]:
        task, port = entry.get("taskName", ""), int(entry.get("port") or 0)
        if not any(
            _declares_port(spec, port)
            for job in jobs
            for spec in running_pods.get((job.pk, task), [])
        ):
            return False
    return True
