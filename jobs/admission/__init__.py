"""Admission: Volcano's webhook, ValidatingAdmissionPolicy and CRD rules, with its defaults.

Every entry point that stores a Job, Queue or PodGroup (``manage.py apply``, the
admin forms, the services, the REST API) goes through these functions, so the
same object is refused the same way everywhere, before anything is written.

The stable API (what the REST API builds its 422 ``Status`` from)::

    from jobs.admission import AdmissionError, admit_job

    try:
        loaded = admit_job(manifest_or_job, old=stored_job_or_None)
    except AdmissionError as exc:
        exc.causes   # [Cause(field="spec.tasks[1].replicas", reason=CauseType.INVALID, message=...)]
        [cause.as_status_cause() for cause in exc.causes]   # details.causes[] entries
    loaded.instance, loaded.children   # the defaulted Job and its TaskSpecs, unsaved

- ``admit_job(obj, *, tasks=None, old=None) -> Loaded``: ``obj`` is a manifest
  (dict), a ``Loaded`` from ``jobs.manifests.load_manifest``, or a ``Job`` (with
  ``tasks``, else its stored tasks). Defaults are filled in place. A malformed
  manifest is an ``AdmissionError`` too (one ``FieldValueInvalid`` cause).
- ``admit_pod_group(obj, *, old=None) -> Loaded``: the same for PodGroups, and
  ``admit_pod`` for bare Pods (Volcano's disruption budget annotations).
- ``queues.admission.admit_queue(obj, *, old=None) -> Loaded`` and
  ``queues.admission.admit_queue_delete(queue)`` for queues.
- ``validate_job`` / ``validate_job_update`` / ``validate_pod_group`` return a
  ``Causes`` list without raising, for previews (``dryRun``).

``AdmissionError`` subclasses ``ManifestError``: ``field`` is the first cause's
path and ``str()`` lists every cause, so callers that print manifest errors
print admission refusals unchanged.
"""

from __future__ import annotations

from jobs.admission.causes import AdmissionError, Cause, Causes, CauseType
from jobs.admission.job import admit_job, default_job, validate_job, validate_job_update
from jobs.admission.pod import admit_pod, validate_pod
from jobs.admission.pod_group import admit_pod_group, validate_pod_group

__all__ = [
    "AdmissionError",
    "Cause",
    "CauseType",
    "Causes",
    "admit_job",
    "admit_pod",
    "admit_pod_group",
    "default_job",
    "validate_job",
    "validate_job_update",
    "validate_pod",
    "validate_pod_group",
]
