"""PodEviction: a job's pod that someone other than its controller deleted, not yet reacted to.

Volcano's controller sees every pod deletion through its informer and raises ``PodEvicted``
for the pod's job. Our controller is level-triggered and a deleted row leaves nothing to
see, so whoever deletes a job's pod (a DELETE through the API, ``kubectl delete pod``) leaves
one of these rows in the same transaction; the controller's next pass over the job turns each
into a ``PodEvicted`` request and deletes it. The controller's own deletions (restart, scale
down, cleanup) leave none.
"""

from __future__ import annotations

from django.db import models

from jobs.models.job import Job

__all__ = ["PodEviction"]


class PodEviction(models.Model):
    """One deleted pod of ``job``: its name, task and the job version it was created for."""

    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="pod_evictions")
    pod_name = models.CharField(max_length=253)
    task_name = models.CharField(max_length=253, blank=True)
    version = models.IntegerField(default=0)
    deleted_at = models.DateTimeField()

    class Meta:
        ordering = ["deleted_at", "pk"]

    def __str__(self) -> str:
        return f"{self.pod_name} (job #{self.job_id})"
