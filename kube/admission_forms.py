"""Admission in Django forms: the admin (and any ModelForm) refuses what the webhooks refuse.

``AdmissionModelForm`` is a ModelForm base for a kind's admin form (Queue, PodGroup); after
Django's own cleaning it runs the kind's admission (``admit``, which each form names) on the
would-be row (against the stored row when editing) and puts each cause on its form field
(``spec.weight`` → ``weight``), or on the form when no field matches. A job's task inline does
the same for a job and its tasks (``jobs.admission.forms``).

Defaults are filled into the instances being saved, as ``apply`` and the API do.
"""

from __future__ import annotations

from typing import Any

from django import forms

from kube.admission_causes import AdmissionError

__all__ = ["AdmissionModelForm", "model_field"]

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


def model_field(path: str) -> str | None:
    """Return the model field a wire path points into (``spec.deserved.cpu`` → ``deserved``)."""
    for prefix, name in _WIRE_FIELDS.items():
        if path == prefix or path.startswith((f"{prefix}.", f"{prefix}[")):
            return name
    return None


class AdmissionModelForm(forms.ModelForm):  # type: ignore[type-arg]
    """A ModelForm that runs its kind's admission after Django's validation."""

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
        """Run the kind's admission on ``instance`` (defaults filled in place).

        Raise ``AdmissionError`` naming every refused field.
        """
        raise NotImplementedError
