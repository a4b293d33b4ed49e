"""Admission in the admin's job form: a job is admitted together with its tasks.

``TaskSpecAdmissionFormSet`` is the base formset of a job's task inline. The check runs here,
where both the job and its tasks are known: ``spec.tasks[i].replicas`` goes to that task's
``replicas`` field, and the job-level causes (``spec.queue: ...``) above the inline. Defaults
are filled into the instances being saved, as ``apply`` and the API do.
"""

from __future__ import annotations

import re

from django import forms
from django.core.exceptions import ValidationError

from jobs.admission.job import admit_job
from jobs.models import Job, TaskSpec
from kube.admission_causes import AdmissionError

__all__ = ["TaskSpecAdmissionFormSet"]

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
        # Stored tasks keep their order; new ones follow in the order they were entered.
        kept.sort(key=lambda form: (form.instance.index is None, form.instance.index or 0))
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
