"""Admission in Django forms: the admin (and any ModelForm) refuses what the webhooks refuse.

- ``AdmissionModelForm``: a ModelForm base for Queue and PodGroup forms; after
  Django's own cleaning it runs the kind's admission on the would-be row
  (against the stored row when editing) and puts each cause on its form field
  (``spec.weight`` → ``weight``), or on the form when no field matches.
- ``TaskSpecAdmissionFormSet``: the base formset of a job's task inline. A job
  is admitted with its tasks, so the check runs here, where both are known:
  ``spec.tasks[i].replicas`` goes to that task's ``replicas`` field, and the
  job-level causes (``spec.queue: ...``) above the inline.

Defaults are filled into the instances being saved, as ``apply`` and the API do.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from django import forms
from django.core.exceptions import ValidationError

from jobs.admission.causes import AdmissionError
from jobs.admission.job import admit_job
from jobs.admission.pod_group import admit_pod_group
from jobs.models import Job, PodGroup, TaskSpec

__all__ = ["AdmissionModelForm", "TaskSpecAdmissionFormSet", "model_field"]

# wire path (its first segments) → model field
_WIRE_FIELDS = {
    "metadata.name": "name",
    "metadata.namespace": "namespace",
    "metadata.annotations": "annotations",
    "metadata.labels": "labels",
    "spec.weight": "weight",
    "spec.capability": "capability",
    "spec.deserved": "deserved",
    "spec.guarantee": "guarantee",
    "spec.parent": "parent",
    "spec.priority": "priority",
    "spec.dequeueStrategy": "dequeue_strategy",
    "spec.reclaimable": "reclaimable",
    "status.state": "state",
    "spec.queue": "queue",
    "spec.minMember": "min_member",
    "spec.minResources": "min_resources",
    "spec.minTaskMember": "min_task_member",
    "spec.priorityClassName": "priority_class_name",
    "spec.minAvailable": "min_available",
    "spec.maxRetry": "max_retry",
}
_TASK_FIELDS = {
    "name": "name",
    "replicas": "replicas",
    "minAvailable": "min_available",
    "maxRetry": "max_retry",
    "template": "template",
    "policies": "policies",
    "dependsOn": "depends_on",
    "topologyPolicy": "topology_policy",
}
_TASK_PATH = re.compile(r"^spec\.tasks\[(\d+)\]\.(\w+)")


def model_field(path: str) -> str | None:
    """Return the model field a wire path points into (``spec.deserved.cpu`` → ``deserved``)."""
    for prefix, name in _WIRE_FIELDS.items():
        if path == prefix or path.startswith((f"{prefix}.", f"{prefix}[")):
            return name
    return None


class AdmissionModelForm(forms.ModelForm):  # type: ignore[type-arg]
    """A ModelForm that runs its kind's admission after Django's validation."""

    kind: ClassVar[str] = ""  # "Queue" or "PodGroup"; set by subclasses

    def _post_clean(self) -> None:  # Django fills the instance here
        super()._post_clean()  # type: ignore[misc]
        if self.errors:
            return
        model = type(self.instance)
        old = (
            None if self.instance._state.adding else model._default_manager.get(pk=self.instance.pk)
        )
        try:
            self.admit(self.instance, old)
        except AdmissionError as exc:
            for cause in exc.causes:
                name = model_field(cause.field)
                target = name if name in self.fields else None
                self.add_error(target, str(cause) if target is None else cause.message)

    def admit(self, instance: Any, old: Any) -> None:
        """Run admission on ``instance`` (defaults filled in place); raise ``AdmissionError``."""
        if isinstance(instance, PodGroup):
            admit_pod_group(instance, old=old)
            return
        from queues.admission import admit_queue

        admit_queue(instance, old=old)


class TaskSpecAdmissionFormSet(forms.BaseInlineFormSet):  # type: ignore[type-arg]
    """The task inline of a job: admits the job together with its tasks."""

    def clean(self) -> None:
        super().clean()
        if any(form.errors for form in self.forms):
            return
        kept = [
            form
            for form in self.forms
            if form.has_changed() or form.instance.pk is not None
            if not (self.can_delete and form.cleaned_data.get("DELETE"))
        ]
        kept.sort(key=lambda form: form.instance.index)
        job: Job = self.instance
        tasks: list[TaskSpec] = [form.instance for form in kept]
        old = None if job._state.adding else Job.objects.get(pk=job.pk)
        try:
            admit_job(job, tasks=tasks, old=old)
        except AdmissionError as exc:
            problems = []
            for cause in exc.causes:
                match = _TASK_PATH.match(cause.field)
                if match and int(match.group(1)) < len(kept):
                    form = kept[int(match.group(1))]
                    name = _TASK_FIELDS.get(match.group(2), "")
                    if name in form.fields:
                        form.add_error(name, cause.message)
                        continue
                problems.append(str(cause))
            if problems:
                raise ValidationError(problems) from exc
            raise ValidationError("the job's tasks were refused; see the fields") from exc
