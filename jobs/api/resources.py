"""The jobs app's resources: Job and Command.

What may change after creation (Volcano's job update rule) is admission's to
judge (``jobs.admission.validate_job_update``), reached through the store.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch

from jobs.manifests.command import CommandKind
from jobs.manifests.job import JobKind
from jobs.models import TaskSpec
from kube.resources import Resource

__all__ = ["COMMANDS", "JOBS", "JOB_EXAMPLE"]

# Volcano's smallest example job (nginx that sleeps), in the default queue.
JOB_EXAMPLE: dict[str, Any] = {
    "apiVersion": "batch.volcano.sh/v1alpha1",
    "kind": "Job",
    "metadata": {"name": "job-1"},
    "spec": {
        "minAvailable": 1,
        "schedulerName": "volcano",
        "queue": "default",
        "policies": [{"event": "PodEvicted", "action": "RestartJob"}],
        "tasks": [
            {
                "replicas": 1,
                "name": "nginx",
                "policies": [{"event": "TaskCompleted", "action": "CompleteJob"}],
                "template": {
                    "spec": {
                        "containers": [
                            {
                                "command": ["sleep", "10m"],
                                "image": "nginx:latest",
                                "name": "nginx",
                                "resources": {
                                    "requests": {"cpu": "1"},
                                    "limits": {"cpu": "1"},
                                },
                            }
                        ],
                        "restartPolicy": "Never",
                    }
                },
            }
        ],
    },
}

JOBS = Resource(
    manifest=JobKind(),
    plural="jobs",
    group="batch.volcano.sh",
    version="v1alpha1",
    access="jobs",
    field_selectors={
        "metadata.name": "name",
        "metadata.namespace": "namespace",
        "spec.queue": "queue",
        "status.state.phase": "phase",
    },
    # Ordered by index alone: TaskSpec's default ordering would join jobs_job for each page.
    prefetch_related=(Prefetch("tasks", queryset=TaskSpec.objects.order_by("index")),),
    status_subresource=True,
    example=JOB_EXAMPLE,
    creator_field="creator",  # the console's "my jobs"
)
COMMANDS = Resource(
    manifest=CommandKind(),
    plural="commands",
    group="bus.volcano.sh",
    version="v1alpha1",
    access="commands",
    field_selectors={"metadata.name": "name", "metadata.namespace": "namespace"},
    creator_field="issuer",
)
