"""A Volcano Job spec read where it is not a Job: a JobTemplate's spec, a CronJob's template.

Both are Volcano's ``JobSpec`` type, so they are read by the Job kind itself (every key known,
pod templates as for any pod, quantities parse, the CRD's defaults filled in) and written back
in Volcano's spelling. Errors name the field where it sits in the outer manifest
(``spec.jobTemplate.spec.tasks[0].replicas``).
"""

from __future__ import annotations

from typing import Any

from apis.errors import ManifestError
from jobs.manifests.job import JobKind

__all__ = ["job_from_spec", "read_job_spec"]

_JOB_KIND = JobKind()


def _document(spec: Any, name: str, namespace: str) -> dict[str, Any]:
    return {
        "apiVersion": JobKind.api_version,
        "kind": JobKind.kind,
        "metadata": {"name": name or "template", "namespace": namespace or "default"},
        "spec": spec,
    }


def read_job_spec(spec: Any, *, at: str, name: str = "", namespace: str = "") -> dict[str, Any]:
    """Return ``spec`` checked as a Volcano Job spec, with its defaults, or raise at ``at``."""
    try:
        loaded = _JOB_KIND.load(_document(spec, name, namespace))
    except ManifestError as exc:
        field = exc.field
        if field == "spec" or field.startswith("spec."):
            field = at + field[len("spec") :]
        raise ManifestError(field, exc.message) from exc
    written: dict[str, Any] = _JOB_KIND.dump(loaded.instance, loaded.children)["spec"]
    return written


def job_from_spec(spec: dict[str, Any], *, name: str, namespace: str) -> dict[str, Any]:
    """Return the manifest of a Volcano Job called ``name`` whose spec is ``spec``."""
    return _document(spec, name, namespace)
