"""Command admission: a Command may do only what its creator may do, to a target it may reach.

A bus Command is an indirect write: the controller that takes it acts with its own rights.
Volcano leaves that to RBAC on the command's creator; here, as the console's and the API's
direct actions do, the Command is refused before it is stored unless

- its action applies to its target's kind (job actions to a Job, OpenQueue/CloseQueue to a
  Queue): otherwise 422 at ``target``;
- its target exists (404, as reading it would answer) and, for a Job, lives in the Command's
  own namespace (the job controller looks only there): a job of that name or uid elsewhere is
  422 at ``target`` when the creator may see that namespace, and 404 when it may not (a
  refusal must not tell who cannot read a namespace what it holds);
- its creator may do the action itself: change jobs in the target's namespace, or change
  queues (operators and admins): otherwise 403.

Writes with nobody acting (``manage.py apply``, the controllers) are trusted with their
roles, but not with a target that does not fit: those are refused as admission errors.
"""

from __future__ import annotations

from typing import Any

from accounts.roles import allowed_namespaces, can
from jobs.models import Command, CommandAction, Job, TargetKind
from kube.actor import current_actor
from kube.admission_causes import AdmissionError, Cause, CauseType
from kube.status import KubeError
from queues.models import Queue

__all__ = ["JOB_ACTIONS", "QUEUE_ACTIONS", "admit_command"]

QUEUE_ACTIONS = frozenset({CommandAction.OPEN_QUEUE, CommandAction.CLOSE_QUEUE})
JOB_ACTIONS = frozenset(CommandAction) - QUEUE_ACTIONS
# The resource each target kind is, for Status messages as kube-apiserver words them.
_RESOURCE = {
    TargetKind.JOB: ("jobs", "batch.volcano.sh"),
    TargetKind.QUEUE: ("queues", "scheduling.volcano.sh"),
}


def _refuse(message: str) -> AdmissionError:
    return AdmissionError([Cause("target", CauseType.INVALID, message)])


def _not_found(kind: TargetKind, name: str, user: Any | None) -> Exception:
    plural, group = _RESOURCE[kind]
    message = f'{plural}.{group} "{name}" not found'
    if user is None:
        return AdmissionError([Cause("target.name", CauseType.NOT_FOUND, message)])
    return KubeError(404, message, kind=plural, name=name, group=group)


def _forbidden(command: Command, user: Any, kind: TargetKind, namespace: str | None) -> KubeError:
    plural, group = _RESOURCE[kind]
    where = f' in the namespace "{namespace}"' if namespace else ""
    return KubeError(
        403,
        f'commands.bus.volcano.sh "{command.name}" is forbidden: User "{user.get_username()}" '
        f'cannot update resource "{plural}" in API group "{group}"{where} '
        f"({command.action} acts on the {kind.value.lower()} with its creator's rights)",
        kind="commands",
        name=command.name,
        group="bus.volcano.sh",
    )


def _may_read(user: Any | None, namespace: str) -> bool:
    if user is None:
        return True
    allowed = allowed_namespaces(user)
    return allowed is None or namespace in allowed


def _check_job_target(command: Command, user: Any | None) -> None:
    own = command.namespace
    if command.target_uid is not None:
        stored = Job.objects.filter(uid=command.target_uid).values_list("namespace", "name")
        found = stored.first()
        if found is None or not _may_read(user, found[0]):
            raise _not_found(TargetKind.JOB, command.target_name, user)
        if found != (own, command.target_name):
            raise _refuse(f"uid {command.target_uid} is the job {found[0]}/{found[1]}, "
                          f"not {own}/{command.target_name}")  # fmt: skip
    elif not Job.objects.filter(namespace=own, name=command.target_name).exists():
        elsewhere = Job.objects.filter(name=command.target_name).values_list("namespace", flat=True)
        seen = sorted(ns for ns in elsewhere if _may_read(user, ns))
        if not seen:
            raise _not_found(TargetKind.JOB, command.target_name, user)
        raise _refuse(
            f"the job {command.target_name} is in the namespace {seen[0]}: a Command acts "
            f"only on jobs in its own namespace ({own})"
        )
    if user is not None and not can(user, "jobs", write=True, namespace=own):
        raise _forbidden(command, user, TargetKind.JOB, own)


def _check_queue_target(command: Command, user: Any | None) -> None:
    if user is not None and not can(user, "queues", write=True):
        raise _forbidden(command, user, TargetKind.QUEUE, None)
    queues = Queue.objects.filter(name=command.target_name)
    if command.target_uid is not None:
        queues = queues.filter(uid=command.target_uid)
    if not queues.exists():
        raise _not_found(TargetKind.QUEUE, command.target_name, user)


def admit_command(command: Command) -> None:
    """Refuse ``command`` unless its action fits its target and its creator may do it."""
    kind = TargetKind(command.target_kind)
    action = CommandAction(command.action)
    if action in QUEUE_ACTIONS and kind is not TargetKind.QUEUE:
        raise _refuse(f"{action} acts on a Queue, not a {kind}")
    if action in JOB_ACTIONS and kind is not TargetKind.JOB:
        raise _refuse(f"{action} acts on a Job, not a {kind}")
    user = current_actor()
    if user is None and command.issuer_id is not None:
        user = command.issuer
    if kind is TargetKind.JOB:
        _check_job_target(command, user)
    else:
        _check_queue_target(command, user)
