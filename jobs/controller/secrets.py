"""The ssh plugin's Secret ``<job>-ssh``: written beside the pods, deleted by every full kill.

Volcano's ssh plugin creates the Secret in ``OnJobAdd`` and deletes it in
``OnJobDelete`` (every full kill: restart, abort, completion, termination), so
each incarnation of a job (``status.version``) gets a new key pair and all the
pods of one version share it. Here the Secret is written in the same transaction
as the first pods that mount it (a Pending job that is never admitted holds no
key), stamped with the job version it belongs to; a pod created later for the
same version (RestartPod, RestartTask, scale-up) reuses it, and one left from an
older version (a kill that did not delete it) is given new keys. The pods only
name it in a ``secret`` volume; the key material lives in this row alone.
"""

from __future__ import annotations

import uuid

from core.models import Secret, SecretType
from jobs.controller.context import JOB_VERSION, JobContext
from jobs.controller.plugins import generate_key_pair, ssh_secret_name

__all__ = ["delete_ssh_secret", "ensure_ssh_secret"]


def ensure_ssh_secret(ctx: JobContext) -> Secret | None:
    """Return the job's ssh Secret for its current version, writing it if missing or stale.

    ``None`` when the job has no ssh plugin. Call it inside the pass's transaction,
    before creating pods that mount it.
    """
    job = ctx.job
    if "ssh" not in job.plugins:
        return None
    if ctx.ssh_secret is not None:
        return ctx.ssh_secret
    name = ssh_secret_name(job)
    version = str(job.version)
    secret = Secret.objects.filter(namespace=job.namespace, name=name).first()
    if (
        secret is not None
        and secret.job_id == job.pk
        and secret.annotations.get(JOB_VERSION) == version
    ):
        ctx.ssh_secret = secret
        return secret
    data = Secret.encode(generate_key_pair(job, ctx.tasks))
    labels = {"volcano.sh/job-name": job.name, "volcano.sh/job-namespace": job.namespace}
    if secret is None:
        secret = Secret(namespace=job.namespace, name=name, uid=uuid.uuid4())
    secret.job = job
    secret.type = SecretType.OPAQUE
    secret.data = data
    secret.labels = labels
    secret.annotations = {**secret.annotations, JOB_VERSION: version}
    secret.save()
    ctx.ssh_secret = secret
    ctx.changed = True
    return secret


def delete_ssh_secret(ctx: JobContext) -> bool:
    """Delete the job's ssh Secret (Volcano's ssh ``OnJobDelete``); return whether there was one."""
    job = ctx.job
    ctx.ssh_secret = None
    if "ssh" not in job.plugins:
        return False
    deleted, _ = Secret.objects.filter(
        namespace=job.namespace, name=ssh_secret_name(job), job=job
    ).delete()
    if deleted:
        ctx.changed = True
    return bool(deleted)
