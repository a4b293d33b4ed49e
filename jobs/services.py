"""Writes to jobs' rows (HackSoft style: ``<entity>_<verb>(*, ...)``).

The console never moves a job between phases itself: it issues a bus Command,
which the job controller consumes (Volcano's vcctl ``job suspend/resume`` path).
A Job (or PodGroup) is created, changed and deleted through the API server's own write
(``kube.store``), whoever asks: admission, resourceVersion and generation, the audit log
and the change stream are the same for the demo, the console and kubectl.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from accounts.audit import audit_record
from accounts.roles import can
from jobs.api.resources import JOBS
from jobs.models import Command, CommandAction, Job, TargetKind
from kube.bodies import MERGE_PATCH
from kube.status import KubeError
from kube.store import object_create, object_delete, object_patch, object_replace
from queues.api.resources import PODGROUPS
from queues.models import PodGroup

__all__ = [
    "ACTION_PHASES",
    "BULK_ACTIONS",
    "CONSOLE_ACTIONS",
    "BulkOutcome",
    "command_issue",
    "job_act",
    "job_act_bulk",
    "job_actions",
    "job_move",
    "job_submit",
    "job_update",
    "pod_group_create",
]

# What the console offers on a job: a bus Command for each, or the job deleted.
CONSOLE_ACTIONS: dict[str, CommandAction | None] = {
    "abort": CommandAction.ABORT_JOB,
    "resume": CommandAction.RESUME_JOB,
    "restart": CommandAction.RESTART_JOB,
    "delete": None,
}
# The phases in which each Command can still change the job (Volcano's state machine: a
# finished job only tears down leftovers, Resume is for an aborted one); delete is always there.
ACTION_PHASES: dict[str, frozenset[str]] = {
    "abort": frozenset({"", "Pending", "Running", "Restarting", "Completing"}),
    "resume": frozenset({"Aborting", "Aborted"}),
    "restart": frozenset({"", "Pending", "Running"}),
}

# What a bulk request may do to many jobs: restart is left out (one job at a time, on its page);
# "move" changes spec.queue through the API's patch, so admission decides as it does for kubectl.
BULK_ACTIONS = ("abort", "resume", "delete", "move")


def job_actions(job: Job) -> list[str]:
    """Return the console actions that can change ``job`` in its phase, in the buttons' order."""
    return [
        action
        for action in CONSOLE_ACTIONS
        if action not in ACTION_PHASES or job.phase in ACTION_PHASES[action]
    ]


@dataclass(frozen=True, slots=True)
class BulkOutcome:
    """What one bulk request did: each job's result, for the "N of M done" line."""

    done: list[str]
    refused: list[tuple[str, str]]  # (namespace/name, why)

    @property
    def total(self) -> int:
        """Return how many jobs the request named."""
        return len(self.done) + len(self.refused)


def job_submit(*, manifest: Mapping[str, Any], user: Any | None = None) -> Job:
    """Create the job of ``manifest`` (in its namespace, else ``default``) as the API does.

    Raises ``KubeError``: 422 naming every field admission refuses, 404 when the namespace
    does not exist, 409 when the name is taken; then nothing is stored.
    """
    namespace = str((manifest.get("metadata") or {}).get("namespace") or "default")
    created = object_create(JOBS, manifest, namespace=namespace, dry_run=False, user=user)
    return Job.objects.get(namespace=namespace, name=created["metadata"]["name"])


def job_update(*, job: Job, manifest: Mapping[str, Any]) -> Job:
    """Replace ``job``'s spec with ``manifest``'s as the API does: only the fields Volcano lets
    change may differ (``KubeError`` 422 naming each other one; nothing is stored then)."""
    with transaction.atomic():
        stored = Job.objects.select_for_update().get(pk=job.pk)
        object_replace(JOBS, stored, manifest, dry_run=False)
    stored.refresh_from_db()
    return stored


def pod_group_create(*, manifest: Mapping[str, Any]) -> PodGroup:
    """Create a PodGroup as the API does (its queue must exist and be Open; ``KubeError``)."""
    namespace = str((manifest.get("metadata") or {}).get("namespace") or "default")
    created = object_create(PODGROUPS, manifest, namespace=namespace, dry_run=False)
    return PodGroup.objects.get(namespace=namespace, name=created["metadata"]["name"])


def command_issue(*, job: Job, action: CommandAction, issuer: Any | None = None) -> Command:
    """Create a Command asking the controller to apply ``action`` to ``job``."""
    # Like metadata.generateName: a readable prefix and a random suffix.
    name = f"{job.name[:200]}-{action.lower()}-{secrets.token_hex(3)}"
    return Command.objects.create(
        namespace=job.namespace,
        name=name,
        action=action,
        target_kind=TargetKind.JOB,
        target_name=job.name,
        target_uid=job.uid,
        issuer=issuer if issuer is not None and issuer.is_authenticated else None,
    )


def job_act(*, job: Job, action: str, user: Any) -> None:
    """Abort, resume or restart ``job`` (a Command for the controller) or delete it.

    Raises ``PermissionError`` when ``user`` may not write jobs in its namespace and
    ``ValueError`` for an unknown action; then nothing is written.
    """
    if action not in CONSOLE_ACTIONS:
        raise ValueError(f"unknown action {action!r}")
    if not can(user, "jobs", write=True, namespace=job.namespace):
        raise PermissionError(f"you may not change jobs in the namespace {job.namespace}")
    command = CONSOLE_ACTIONS[action]
    if command is not None:
        with transaction.atomic():
            command_issue(job=job, action=command, issuer=user)
        return
    # The API's own delete path, so the console deletes exactly as kubectl does.
    object_delete(JOBS, job, dry_run=False)


def job_move(*, job: Job, queue: str, user: Any) -> None:
    """Move ``job`` to ``queue`` as ``kubectl patch vcjob --type merge`` on spec.queue would.

    Volcano's job admission lets an update change only the scaling fields, so this is
    refused for a stored job (``KubeError`` carrying admission's message); it goes through the
    API's own patch so the console never allows what kubectl is refused, nor the reverse.
    Raises ``PermissionError`` when ``user`` may not write jobs in the job's namespace.
    """
    if not can(user, "jobs", write=True, namespace=job.namespace):
        raise PermissionError(f"you may not change jobs in the namespace {job.namespace}")
    with transaction.atomic():
        stored = Job.objects.select_for_update().get(pk=job.pk)
        patch = {"spec": {"queue": queue}}
        object_patch(JOBS, stored, patch, content_type=MERGE_PATCH, dry_run=False)


def job_act_bulk(
    *, keys: list[tuple[str, str]], action: str, user: Any, queue: str = ""
) -> BulkOutcome:
    """Apply ``action`` to each job named by ``(namespace, name)``, each on its own.

    One job refused (no grant, gone meanwhile, refused by admission) does not stop the others;
    each job's write is its own transaction, so what is reported done is done. ``queue`` is
    the target of "move".
    """
    if action not in BULK_ACTIONS and action not in CONSOLE_ACTIONS:
        raise ValueError(f"unknown action {action!r}")
    done: list[str] = []
    refused: list[tuple[str, str]] = []
    found = {
        (j.namespace, j.name): j
        for j in Job.objects.filter(
            namespace__in={ns for ns, _ in keys}, name__in={n for _, n in keys}
        )
    }
    for namespace, name in keys:
        key = f"{namespace}/{name}"
        job = found.get((namespace, name))
        if job is None or not can(user, "jobs", write=False, namespace=namespace):
            refused.append((key, "not found"))
            continue
        if action != "move" and action not in job_actions(job):
            refused.append((key, f"{action} does nothing to a job that is {job.phase}"))
            continue
        try:
            if action == "move":
                job_move(job=job, queue=queue, user=user)
            else:
                job_act(job=job, action=action, user=user)
        except (PermissionError, KubeError) as exc:
            refused.append((key, str(exc)))
            continue
        done.append(key)
    if done:  # one entry per bulk action: operators see who touched which jobs at once
        audit_record(
            action=f"bulk {action}",
            kind="Job",
            name=f"{len(done)} job(s)",
            after={"jobs": ", ".join(done[:50]) + (" …" if len(done) > 50 else "")},
        )
    return BulkOutcome(done, refused)
