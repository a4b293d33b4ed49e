"""DelayedAction: a policy action armed with a ``timeout``, waiting for its time.

Volcano's controller keeps these timers in memory (``delayActionMap``, one per job and pod):
a worker restart forgets them. Ours are rows, so a timer survives a restart and, being
marked fired in the same transaction that executes it, fires exactly once. One row per job
and pod name, as Volcano keys them; arming the same action again for the pod keeps the first.
A fired row stays while the condition that armed it still holds (our controller sees a
failed pod on every pass, Volcano's informer only once), so the same condition never arms
it twice; it goes when the condition ends.
"""

from __future__ import annotations

from django.db import models

from jobs.models.job import Job

__all__ = ["DelayedAction"]


class DelayedAction(models.Model):
    """``action`` for ``job``, due at ``due``, armed by ``event`` of pod ``pod_name``."""

    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="delayed_actions")
    task_name = models.CharField(max_length=253, blank=True)
    pod_name = models.CharField(max_length=253, blank=True, help_text="empty: the job's own")
    pod_uid = models.UUIDField(null=True, blank=True)
    event = models.CharField(max_length=32)
    action = models.CharField(max_length=32)
    version = models.IntegerField(default=0, help_text="the job version of the arming pod")
    armed_at = models.DateTimeField()
    due = models.DateTimeField(db_index=True)
    fired_at = models.DateTimeField(null=True, blank=True, help_text="set when executed")

    class Meta:
        ordering = ["due", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["job", "pod_name"], name="one_delayed_action_per_pod")
        ]

    def __str__(self) -> str:
        return (
            f"{self.action} after {self.event} of {self.pod_name or 'the job'} (job #{self.job_id})"
        )
