"""The training-job controller: what the Kubeflow training operator does with Volcano as gang.

One pass per job, in its own transaction with its row locked, level-triggered (a pass over
a settled job writes nothing):

1. A finished job: delete it (pods, PodGroup) once ``ttlSecondsAfterFinished`` has passed;
   otherwise delete pods by ``cleanPodPolicy`` (All: every pod; Running: the pending and
   running ones; None: none). Stop. The PodGroup stays while the job does (the operator
   deletes it at the end): pods belong to their job through it, and the console shows it.
2. ``Created`` on the first pass, ``startTime`` = now.
3. The PodGroup, named after the job: minMember = ``schedulingPolicy.minAvailable``, else
   all replicas; queue and priorityClassName from ``schedulingPolicy``; minResources from
   it, else what the first minMember pods request.
4. Failed pods: a replica whose restartPolicy is OnFailure or Always (ExitCode with a
   retryable code, 128 and above) is deleted to be created again (``Restarting``), counted
   against ``backoffLimit``; past it, or any other failure, the job is ``Failed``.
5. ``activeDeadlineSeconds`` past ``startTime``: ``Failed``.
6. Missing pods are created (all at once: Volcano's gang holds them until the group fits),
   then each replica's Service (``_create_missing_services``).
7. ``replicaStatuses`` counted; ``Running`` while the leading replica (Master, Chief,
   Launcher; else the Workers) runs, ``Succeeded`` when it has succeeded.

The PodGroup and every pod carry the job as their controller owner reference, as the
operator sets them. Each step records the operator's events on the job (``training.events``):
``SuccessfulCreatePod`` per pod, ``SuccessfulDeletePod`` per pod it deletes,
``<Kind>Running`` / ``<Kind>Succeeded`` / ``<Kind>Failed`` / ``<Kind>Restarting`` with the
condition's message; conditions and events use the operator's reasons and messages.

Jobs that are gone leave PodGroups behind: those, and their pods, are deleted at the end
of each pass (Kubernetes' garbage collector following ownerReferences).
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction

from apis.quantity import parse_quantity
from apis.wire import Manifest
from core.manifests.pod_template import pod_requests
from core.models import (
    ClassTable,
    Pod,
    PodPhase,
    Service,
    priority_class_table,
    priority_class_values,
)
from core.services import ensure_owned_service
from kube.changes import record_rows
from kube.garbage import link_created, note_owner_change
from kube.models import ChangeType
from queues.models import PodGroup, PodGroupPhase
from training import conditions as c
from training import events
from training.frameworks import FRAMEWORKS, Framework
from training.models import TrainingJob
from training.wiring import (
    controller_ref,
    render_replica_pod,
    replica_labels,
    replica_port,
    replicas_of,
)

__all__ = ["OPERATOR_LABEL", "TrainingReport", "reconcile_training_job", "reconcile_training_jobs"]

logger = logging.getLogger(__name__)

OPERATOR_LABEL = "training.kubeflow.org/operator-name"
JOB_LABEL = "training.kubeflow.org/job-name"
ACTIVE = (PodPhase.PENDING, PodPhase.RUNNING)


@dataclass
class TrainingReport:
    """What one pass over every training job did."""

    jobs: int = 0
    changed: list[str] = field(default_factory=list)
    pods_created: int = 0
    pods_deleted: int = 0
    deleted: list[str] = field(default_factory=list)


def reconcile_training_jobs(now: dt.datetime) -> TrainingReport:
    """Reconcile every PyTorchJob, TFJob and MPIJob, then collect orphaned PodGroups.

    The PodGroups and pods of every training job are read in two queries, not per job. A job
    whose rows (itself, its PodGroup, its pods) are exactly as after its last pass that wrote
    nothing is skipped without a lock, unless the clock matters to it (activeDeadlineSeconds
    or ttlSecondsAfterFinished): a level-triggered pass over unchanged rows is a no-op, so the
    skip only saves time (the memo lives in the process, as the VolcanoJob controller's does).
    A finished job with no TTL and no active pod left is skipped too.
    """
    report = TrainingReport()
    classes = priority_class_values()
    groups = {
        (g.namespace, g.name): g
        for g in PodGroup.objects.filter(labels__has_key=OPERATOR_LABEL, job__isnull=True)
    }
    pods_of: dict[int, dict[str, Pod]] = {}
    for pod in Pod.objects.filter(
        pod_group__labels__has_key=OPERATOR_LABEL, pod_group__job__isnull=True
    ).order_by("name"):
        pods_of.setdefault(pod.pod_group_id or 0, {})[pod.name] = pod
    present: set[tuple[str, str, str]] = set()
    for framework in FRAMEWORKS.values():
        for job in framework.model._default_manager.all():
            present.add((framework.kind, job.namespace, job.name))
            group = groups.get((job.namespace, job.name))
            pods = pods_of.get(group.pk, {}) if group is not None else {}
            active = any(pod.phase in ACTIVE for pod in pods.values())
            if _settled(job.conditions, job.spec) and not active:
                continue
            key = (framework.kind, job.pk)
            seen = _fingerprint(job, group, pods)
            if _unchanged.get(key) == seen and not _timed(job):
                continue
            with transaction.atomic():
                # Lock the row; only its version is read back (the spec's JSON was read above).
                locked = framework.model._default_manager.select_for_update().filter(pk=job.pk)
                version = locked.values_list("resource_version", flat=True).first()
                if version is None:
                    continue
                current = job
                read: dict[str, Pod] | None = pods
                if version != job.resource_version:  # changed since the read: read it again
                    current, group, read = locked.get(), None, None
                wrote = reconcile_training_job(framework, current, now, classes=classes,
                                               report=report, group=group, pods=read)  # fmt: skip
            if wrote:
                _unchanged.pop(key, None)
            else:
                _unchanged[key] = seen
    _collect_orphans(report, groups.values(), present)
    return report


# (kind, pk) → the fingerprint of a job's rows after a pass that wrote nothing.
_unchanged: dict[tuple[str, int], tuple[Any, ...]] = {}


def _fingerprint(job: TrainingJob, group: PodGroup | None, pods: dict[str, Pod]) -> tuple[Any, ...]:
    return (
        job.uid,
        job.resource_version,
        None if group is None else (group.pk, group.resource_version),
        tuple(sorted((pod.pk, pod.resource_version) for pod in pods.values())),
    )


def _timed(job: TrainingJob) -> bool:
    """Return whether the clock alone can change what a pass does to ``job``."""
    run = job.spec.get("runPolicy") or {}
    return (
        run.get("activeDeadlineSeconds") is not None
        or run.get("ttlSecondsAfterFinished") is not None
    )


def _settled(conditions: list[dict[str, Any]], spec: dict[str, Any]) -> bool:
    """Return whether a finished job waits for nothing but its pods (no TTL to run out)."""
    finished = any(
        cond.get("type") in (c.SUCCEEDED, c.FAILED) and cond.get("status") == "True"
        for cond in conditions or []
    )
    return finished and (spec.get("runPolicy") or {}).get("ttlSecondsAfterFinished") is None


def reconcile_training_job(
    framework: Framework,
    job: TrainingJob,
    now: dt.datetime,
    *,
    classes: tuple[dict[str, int], int] | None = None,
    report: TrainingReport | None = None,
    group: PodGroup | None = None,
    pods: dict[str, Pod] | None = None,
) -> bool:
    """Run one pass over ``job`` (steps 1-7 of the module docstring); return whether it wrote.

    ``group`` and ``pods`` are the job's PodGroup and pods when the caller read them already
    (``pods`` None: read them here).
    """
    report = report if report is not None else TrainingReport()
    report.jobs += 1
    classes = classes or priority_class_values()
    before = _status(job)
    counts = (report.pods_created, report.pods_deleted, len(report.changed), len(report.deleted))
    if pods is None:
        group = PodGroup.objects.filter(
            namespace=job.namespace, name=job.name, job__isnull=True
        ).first()
        pods = (
            {pod.name: pod for pod in Pod.objects.filter(pod_group=group).order_by("name")}
            if group is not None
            else {}
        )
    else:
        pods = dict(pods)
    run = job.spec.get("runPolicy") or {}
    if job.finished:  # 1.
        if _ttl_expired(job, run, now):
            report.pods_deleted += _delete_pods(list(pods.values()))
            if group is not None:
                group.delete()
            job.delete()
            report.deleted.append(f"{framework.kind}/{job.namespace}/{job.name}")
            return True
        report.pods_deleted += _clean_pods(framework, job, run, pods, now)
        _count(framework, job, pods)
        _save_if_changed(job, before, report)
        return counts != _counts(report)
    if not job.conditions:  # 2.
        c.set_condition(job, c.CREATED, f"{framework.kind}Created",
                        f"{framework.kind} {job.name} is created.", now)  # fmt: skip
    if job.start_time is None:
        job.start_time = now
    group, group_written = _ensure_pod_group(framework, job, group, classes)  # 3.
    failed = _handle_failures(framework, job, run, pods, now, report)  # 4.
    if not failed and _deadline_passed(job, run, now):  # 5.
        _transition(framework, job, c.FAILED, f"Job {job.name} has failed because it was "
                    "active longer than specified deadline", now)  # fmt: skip
    if not _finished(job):
        report.pods_created += _create_missing(framework, job, group, pods, classes, now)  # 6.
        _create_missing_services(framework, job, now)
        if not failed:  # a pass that restarted pods shows Restarting until the next one
            _progress(framework, job, pods, now)  # 7.
    if _finished(job):
        job.completion_time = job.completion_time or now
        report.pods_deleted += _clean_pods(framework, job, run, pods, now)
    _count(framework, job, pods)
    _save_if_changed(job, before, report)
    return group_written or counts != _counts(report)


def _transition(
    framework: Framework,
    job: TrainingJob,
    kind: str,
    message: str,
    now: dt.datetime,
    *,
    warning: bool = False,
) -> None:
    """Set condition ``kind`` with reason ``<Kind><kind>``, and record it as an event.

    The operator records the event with the condition's reason and message when the job
    enters that state; a Restarting job is recorded on every restart (the event's count
    goes up), as the operator records each one.
    """
    reason = f"{framework.kind}{kind}"
    changed = c.set_condition(job, kind, reason, message, now)
    if changed or kind == c.RESTARTING:
        events.record(framework, job, reason, message, now, warning=warning)


def _counts(report: TrainingReport) -> tuple[int, int, int, int]:
    return (report.pods_created, report.pods_deleted, len(report.changed), len(report.deleted))


def _finished(job: TrainingJob) -> bool:
    """Return ``job.finished`` (a call, so a condition set in between is seen)."""
    return job.finished


def _status(job: TrainingJob) -> Manifest:
    return {
        "conditions": [dict(x) for x in job.conditions],
        "replicaStatuses": dict(job.replica_statuses),
        "start": job.start_time,
        "completion": job.completion_time,
        "restarts": job.restarts,
    }


def _save_if_changed(job: TrainingJob, before: Manifest, report: TrainingReport) -> None:
    if _status(job) != before:
        job.save(
            update_fields=[
                "conditions", "replica_statuses", "start_time", "completion_time", "restarts"
            ]
        )  # fmt: skip
        report.changed.append(f"{job.namespace}/{job.name}")


def _ttl_expired(job: TrainingJob, run: dict[str, Any], now: dt.datetime) -> bool:
    ttl = run.get("ttlSecondsAfterFinished")
    if ttl is None or job.completion_time is None:
        return False
    return bool(job.completion_time + dt.timedelta(seconds=int(ttl)) <= now)


def _deadline_passed(job: TrainingJob, run: dict[str, Any], now: dt.datetime) -> bool:
    deadline = run.get("activeDeadlineSeconds")
    if deadline is None or job.start_time is None:
        return False
    return bool(job.start_time + dt.timedelta(seconds=int(deadline)) <= now)


def _delete_pods(pods: list[Pod]) -> int:
    for pod in pods:
        pod.delete()
    return len(pods)


def _clean_pods(
    framework: Framework,
    job: TrainingJob,
    run: dict[str, Any],
    pods: dict[str, Pod],
    now: dt.datetime,
) -> int:
    """Delete pods of a finished job by ``cleanPodPolicy``; return how many."""
    policy = run.get("cleanPodPolicy") or "None"
    if policy == "All":
        doomed = list(pods.values())
    elif policy == "Running":
        doomed = [pod for pod in pods.values() if pod.phase in ACTIVE]
    else:
        return 0
    for pod in doomed:
        pods.pop(pod.name, None)
        events.pod_deleted(framework, job, pod.name, now)
    return _delete_pods(doomed)


def min_member(framework: Framework, job: TrainingJob) -> int:
    """Return the gang's size: ``schedulingPolicy.minAvailable``, else every replica."""
    scheduling = (job.spec.get("runPolicy") or {}).get("schedulingPolicy") or {}
    if scheduling.get("minAvailable") is not None:
        return int(scheduling["minAvailable"])
    return sum(max(int(r.get("replicas") or 0), 0) for _, r in replicas_of(framework, job))


def _min_resources(framework: Framework, job: TrainingJob, members: int) -> dict[str, int]:
    scheduling = (job.spec.get("runPolicy") or {}).get("schedulingPolicy") or {}
    if scheduling.get("minResources"):
        return {k: parse_quantity(v, field=k) for k, v in scheduling["minResources"].items()}
    total: dict[str, int] = {}
    left = members
    for _, replica in replicas_of(framework, job):
        take = min(max(int(replica.get("replicas") or 0), 0), left)
        left -= take
        per_pod = pod_requests((replica.get("template") or {}).get("spec") or {})
        for name, milli in per_pod.items():
            total[name] = total.get(name, 0) + milli * take
    return {name: milli for name, milli in sorted(total.items()) if milli}


def _ensure_pod_group(
    framework: Framework,
    job: TrainingJob,
    group: PodGroup | None,
    classes: tuple[dict[str, int], int],
) -> tuple[PodGroup, bool]:
    """Return the job's PodGroup, created or brought in line, and whether it was written.

    The job is the group's controller owner, as the operator creates it; a group made
    before it carried the reference gets it (other references a client added stay).
    """
    members = min_member(framework, job)
    wanted = {
        "min_member": members,
        "min_resources": _min_resources(framework, job, members),
        "queue": job.queue or "default",
        "priority_class_name": job.priority_class_name,
    }
    if group is None:
        created = PodGroup.objects.create(
            namespace=job.namespace,
            name=job.name,
            phase=PodGroupPhase.PENDING,
            labels={JOB_LABEL: job.name, OPERATOR_LABEL: f"{framework.kind.lower()}-controller"},
            annotations={"training.kubeflow.org/job-kind": framework.kind},
            owner_references=[controller_ref(framework, job)],
            **wanted,
        )
        return created, True
    owner = controller_ref(framework, job)
    refs = list(group.owner_references or [])
    if owner not in refs:
        others = [ref for ref in refs if not ref.get("controller")]
        note_owner_change(group, refs)
        wanted["owner_references"] = [owner, *others]
    drift = [name for name, value in wanted.items() if getattr(group, name) != value]
    if drift:
        for name in drift:
            setattr(group, name, wanted[name])
        group.save(update_fields=drift)
    return group, bool(drift)


def _retryable(policy: str, pod: Pod) -> bool:
    if policy in ("OnFailure", "Always"):
        return True
    return policy == "ExitCode" and (pod.exit_code or 0) >= 128


def _handle_failures(
    framework: Framework,
    job: TrainingJob,
    run: dict[str, Any],
    pods: dict[str, Pod],
    now: dt.datetime,
    report: TrainingReport,
) -> bool:
    """Restart or fail on failed pods (step 4); return whether any pod had failed."""
    specs = dict(replicas_of(framework, job))
    failed = [pod for pod in pods.values() if pod.phase == PodPhase.FAILED]
    if not failed:
        return False
    limit = run.get("backoffLimit")
    if framework.kind != "MPIJob":  # the common pod reconciler's; MPI's controller is its own
        for pod in failed:
            events.pod_exited(framework, job, pod.namespace, pod.name, pod.exit_code or 0, now)
    for pod in failed:
        kind = _type_of(framework, pod)
        policy = str((specs.get(kind) or {}).get("restartPolicy") or "Never")
        if not _retryable(policy, pod):
            count = sum(_type_of(framework, other) == kind for other in failed)
            _transition(framework, job, c.FAILED, _failed_message(framework, job, count, kind), now)
            return True
    if limit is not None and job.restarts + len(failed) > int(limit):
        _transition(framework, job, c.FAILED, f"Job {job.name} has failed because it has "
                    "reached the specified backoff limit", now)  # fmt: skip
        return True
    for pod in failed:
        pods.pop(pod.name, None)
        events.pod_deleted(framework, job, pod.name, now)
    report.pods_deleted += _delete_pods(failed)
    job.restarts += len(failed)
    kinds = sorted({_type_of(framework, pod) for pod in failed})
    if framework.kind == "TFJob":  # the common pod reconciler's message; TF has none of its own
        message = f"job {job.name} is restarting because {', '.join(kinds)} replica(s) failed."
    else:
        message = (f"{framework.kind} {job.name} is restarting because {len(failed)} "
                   f"{', '.join(kinds)} replica(s) failed.")  # fmt: skip
    _transition(framework, job, c.RESTARTING, message, now, warning=True)
    return True


def _failed_message(framework: Framework, job: TrainingJob, count: int, kind: str) -> str:
    """Return the operator's message for a job failed by ``count`` failed ``kind`` replicas."""
    if framework.kind == "TFJob":
        return (f"TFJob {job.namespace}/{job.name} has failed because {count} {kind} "
                "replica(s) failed.")  # fmt: skip
    return f"{framework.kind} {job.name} is failed because {count} {kind} replica(s) failed."


def _type_of(framework: Framework, pod: Pod) -> str:
    return framework.normalise(pod.task_name) or pod.task_name


def _create_missing(
    framework: Framework,
    job: TrainingJob,
    group: PodGroup,
    pods: dict[str, Pod],
    classes: tuple[dict[str, int], int],
    now: dt.datetime,
) -> int:
    """Create the job's missing replica pods, owned by the job; return how many."""
    new = []
    table: ClassTable | None = None  # read once, when a pod is to be made
    for kind, replica in replicas_of(framework, job):
        for index in range(max(int(replica.get("replicas") or 0), 0)):
            name = framework.pod_name(job.name, kind, index)
            if name not in pods:
                table = table or priority_class_table()
                pod = render_replica_pod(framework, job, kind, index, group, classes, table)
                pod.uid = uuid.uuid4()
                new.append(pod)
    if not new:
        return 0
    created = Pod.objects.bulk_create(new)
    # bulk_create sends no signals: record the new pods so watchers see them ADDED, and
    # their owner links so that deleting the job deletes them.
    record_rows(Pod, [pod.pk for pod in created], ChangeType.ADDED)
    link_created(created)
    for pod in created:
        pods[pod.name] = pod
        events.pod_created(framework, job, _type_of(framework, pod), pod.name, now)
    return len(created)


def _create_missing_services(framework: Framework, job: TrainingJob, now: dt.datetime) -> None:
    """Create each replica's headless Service ``<job>-<type>-<index>`` that is missing.

    The operator makes one per replica pod (``clusterIP: None``, the pod's replica labels as
    selector, the framework's port), so ``<job>-master-0`` resolves to that pod, and records
    ``SuccessfulCreateService`` "Created service: <name>". The MPI operator wires its hosts
    through the hostfile instead and makes none. The job owns them: they go with it.
    """
    if framework.kind == "MPIJob":
        return
    existing = set(
        Service.objects.filter(
            namespace=job.namespace, name__startswith=f"{job.name}-"
        ).values_list("name", flat=True)
    )
    for kind, replica in replicas_of(framework, job):
        port = {"name": framework.port_name, "port": replica_port(framework, replica)}
        for index in range(max(int(replica.get("replicas") or 0), 0)):
            name = framework.pod_name(job.name, kind, index)
            if name in existing:
                continue
            labels = replica_labels(framework, job, kind, index)
            if ensure_owned_service(job, name, selector=labels, ports=[port], labels=labels):
                events.service_created(framework, job, name, now)


def _count(framework: Framework, job: TrainingJob, pods: dict[str, Pod]) -> None:
    statuses: dict[str, dict[str, int]] = {}
    for kind, _ in replicas_of(framework, job):
        statuses[kind] = {}
    for pod in pods.values():
        counts = statuses.setdefault(_type_of(framework, pod), {})
        key = {PodPhase.RUNNING: "active", PodPhase.SUCCEEDED: "succeeded",
               PodPhase.FAILED: "failed"}.get(PodPhase(pod.phase))  # fmt: skip
        if key:
            counts[key] = counts.get(key, 0) + 1
    job.replica_statuses = statuses


def _progress(
    framework: Framework, job: TrainingJob, pods: dict[str, Pod], now: dt.datetime
) -> None:
    """Set Running or Succeeded from the leading replica type (step 7)."""
    specs = dict(replicas_of(framework, job))
    leader = next((kind for kind in framework.leaders if kind in specs), None)
    if leader is None:
        return
    wanted = max(int(specs[leader].get("replicas") or 0), 0)
    mine = [pod for pod in pods.values() if _type_of(framework, pod) == leader]
    succeeded = sum(pod.phase == PodPhase.SUCCEEDED for pod in mine)
    running = sum(pod.phase == PodPhase.RUNNING for pod in mine)
    # The operator's messages: a PyTorchJob led by its Master and an MPIJob by its Launcher
    # name the job alone; Worker-led PyTorchJobs and TFJobs name it with its namespace.
    if leader in ("Master", "Launcher") and framework.kind != "TFJob":
        done, going = f"{framework.kind} {job.name} is successfully completed.", job.name
    else:
        going = f"{job.namespace}/{job.name}"
        done = f"{framework.kind} {going} successfully completed."
    if wanted and succeeded >= wanted:
        _transition(framework, job, c.SUCCEEDED, done, now)
    elif running:
        _transition(framework, job, c.RUNNING, f"{framework.kind} {going} is running.", now)


def _collect_orphans(
    report: TrainingReport, groups: Iterable[PodGroup], present: set[tuple[str, str, str]]
) -> None:
    """Delete the PodGroups (and pods) of training jobs that no longer exist.

    ``groups`` were read before the jobs (``present``): a group whose job is not among them
    lost its job, since only this controller creates them, after its job exists.
    """
    for group in groups:
        kind = str(group.annotations.get("training.kubeflow.org/job-kind", ""))
        if kind not in FRAMEWORKS or (kind, group.namespace, group.name) in present:
            continue
        with transaction.atomic():
            report.pods_deleted += _delete_pods(list(Pod.objects.filter(pod_group=group)))
            PodGroup.objects.filter(pk=group.pk).delete()
