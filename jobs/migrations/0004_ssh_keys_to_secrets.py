"""Move the ssh plugin's keys out of pod annotations into one Secret ``<job>-ssh`` per job.

Earlier versions wrote the ssh Secret's files (``id_rsa``, ``id_rsa.pub``,
``authorized_keys``, ``config``) on every pod as ``ssh.volcano.sh/<file>``
annotations, so whoever could read a pod read the private key. Each job gets
the keys of its newest pods (highest ``volcano.sh/job-version``) as a Secret
owned by it, and every ``ssh.volcano.sh/`` annotation is removed from the pods.
Reversing copies a job's Secret back onto its pods and deletes the Secret.
"""

from __future__ import annotations

import base64
import uuid
from typing import Any

from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

SSH_PREFIX = "ssh.volcano.sh/"
SSH_FILES = ("id_rsa", "id_rsa.pub", "authorized_keys", "config")
JOB_VERSION = "volcano.sh/job-version"
BATCH = 500


def _version(annotations: dict[str, Any]) -> int:
    value = str(annotations.get(JOB_VERSION, "0"))
    return int(value) if value.isdigit() else 0


def _secret_name(pod: Any) -> str:
    job_name = pod.job.name if pod.job_id is not None else ""
    return f"{job_name or pod.annotations.get('volcano.sh/job-name') or pod.name}-ssh"


def keys_to_secrets(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    pod_model = apps.get_model("jobs", "Pod")
    secret_model = apps.get_model("jobs", "Secret")
    newest: dict[tuple[str, str], tuple[int, Any]] = {}  # (namespace, secret) → (version, pod)
    changed = []
    pods = (
        pod_model.objects.filter(annotations__has_key=f"{SSH_PREFIX}id_rsa")
        .select_related("job")
        .order_by("pk")
    )
    for pod in pods.iterator(chunk_size=BATCH):
        key = (pod.namespace, _secret_name(pod))
        version = _version(pod.annotations)
        if key not in newest or version >= newest[key][0]:
            newest[key] = (version, pod)
        changed.append(pod)
    for (namespace, name), (version, pod) in newest.items():
        files = {f: pod.annotations[f"{SSH_PREFIX}{f}"] for f in SSH_FILES if f"{SSH_PREFIX}{f}" in pod.annotations}
        data = {f: base64.b64encode(value.encode()).decode() for f, value in files.items()}
        labels = {}
        if pod.job_id is not None:
            labels = {"volcano.sh/job-name": pod.job.name, "volcano.sh/job-namespace": namespace}
        secret_model.objects.update_or_create(
            namespace=namespace,
            name=name,
            defaults={
                "job_id": pod.job_id,
                "data": data,
                "labels": labels,
                "annotations": {JOB_VERSION: str(version)},
            },
            create_defaults={
                "job_id": pod.job_id,
                "data": data,
                "labels": labels,
                "annotations": {JOB_VERSION: str(version)},
                "uid": uuid.uuid4(),
            },
        )
    for pod in changed:
        pod.annotations = {
            k: v for k, v in pod.annotations.items() if not k.startswith(SSH_PREFIX)
        }
    pod_model.objects.bulk_update(changed, ["annotations"], batch_size=BATCH)


def secrets_to_keys(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    pod_model = apps.get_model("jobs", "Pod")
    secret_model = apps.get_model("jobs", "Secret")
    for secret in secret_model.objects.filter(job__isnull=False, name__endswith="-ssh"):
        files = {k: base64.b64decode(v).decode() for k, v in secret.data.items()}
        pods = list(pod_model.objects.filter(job_id=secret.job_id))
        for pod in pods:
            pod.annotations = {
                **pod.annotations,
                **{f"{SSH_PREFIX}{k}": v for k, v in files.items()},
            }
        pod_model.objects.bulk_update(pods, ["annotations"], batch_size=BATCH)
        secret.delete()


class Migration(migrations.Migration):
    dependencies = [("jobs", "0003_secret")]

    operations = [migrations.RunPython(keys_to_secrets, secrets_to_keys)]
