"""Admission of Jobs: Volcano's webhook, ValidatingAdmissionPolicy and CRD rules, with defaults.

Every entry point that stores a Job (``manage.py apply``, the
admin forms, the services, the REST API) goes through these functions, so the
same object is refused the same way everywhere, before anything is written.

The stable API (what the REST API builds its 422 ``Status`` from)::

    from jobs.admission import admit_job
    from kube.admission_causes import AdmissionError

    try:
        loaded = admit_job(manifest_or_job, old=stored_job_or_None)
    except AdmissionError as exc:
        exc.causes   # [Cause(field="spec.tasks[1].replicas", reason=CauseType.INVALID, message=...)]
        [cause.as_status_cause() for cause in exc.causes]   # details.causes[] entries
    loaded.instance, loaded.children   # the defaulted Job and its TaskSpecs, unsaved

- ``admit_job(obj, *, tasks=None, old=None) -> Loaded``: ``obj`` is a manifest
  (dict), a ``Loaded`` from ``kube.manifests.load_manifest``, or a ``Job`` (with
  ``tasks``, else its stored tasks). Defaults are filled in place. A malformed
  manifest is an ``AdmissionError`` too (one ``FieldValueInvalid`` cause).
- ``queues.admission`` does the same for PodGroups and Queues, ``core.admission`` for bare
  Pods (Volcano's disruption budget annotations).
- ``validate_job`` / ``validate_job_update`` return a
  ``Causes`` list without raising, for previews (``dryRun``).

``AdmissionError`` subclasses ``ManifestError``: ``field`` is the first cause's
path and ``str()`` lists every cause, so callers that print manifest errors
print admission refusals unchanged.
"""

from __future__ import annotations

from jobs.admission.job import admit_job, default_job, validate_job, validate_job_update

__all__ = ["admit_job", "default_job", "validate_job", "validate_job_update"]
