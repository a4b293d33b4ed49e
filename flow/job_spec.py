"""A Volcano Job spec read where it is not a Job: a JobTemplate's spec, a CronJob's template.

Both are Volcano's ``JobSpec`` type, so they are read by the Job kind itself (every key known,
pod templates as for any pod, quantities parse, the CRD's defaults filled in) and written back
in Volcano's spelling. Errors name the field where it sits in the outer manifest
(``spec.jobTemplate.spec.tasks[0].replicas``).
"""

from __future__ import annotations

import copy
from typing import Any

from apis.errors import ManifestError
from jobs.manifests.job import JobKind

__all__ = ["check_job_patch", "job_from_spec", "read_job_spec"]

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


_PLACEHOLDER = {"name": "patched", "image": "patched"}


def check_job_patch(patch: Any, *, at: str) -> None:
    """Raise ``ManifestError`` at ``at`` when ``patch`` is not a fragment of a Job spec.

    A patch names only what it changes: a task without its template, a container by its name
    alone. So the fragment is read as a Job spec with what it leaves out stood in for (a
    container, an image), and everything it does say must read as in a Job: known keys,
    types, minimums, quantities.
    """
    if not isinstance(patch, dict):
        raise ManifestError(at, "expected an object")
    fragment = copy.deepcopy(patch)
    for task in fragment.get("tasks") or []:
        if not isinstance(task, dict):
            continue
        task.setdefault("name", "patched")
        template = task.setdefault("template", {})
        if isinstance(template, dict):
            spec = template.setdefault("spec", {})
            if isinstance(spec, dict):
                containers = spec.setdefault("containers", [dict(_PLACEHOLDER)])
                for container in containers if isinstance(containers, list) else []:
                    if isinstance(container, dict):
                        container.setdefault("image", "patched")
    read_job_spec(fragment, at=at)
