"""Pod admission (``admit_pod.go``): the job disruption budget annotations of Volcano's pods.

For a pod whose schedulerName is Volcano's, ``volcano.sh/jdb-min-available`` and
``volcano.sh/jdb-max-unavailable`` are mutually exclusive, and each is a positive
integer or a percentage strictly between 0% and 100%.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from jobs.admission.causes import Causes
from jobs.manifests.pod import PodKind
from jobs.models import Pod
from scheduler.engine.errors import ManifestError
from scheduler.manifest_kinds import Loaded

__all__ = ["JDB_MAX_UNAVAILABLE", "JDB_MIN_AVAILABLE", "admit_pod", "validate_pod"]

JDB_MIN_AVAILABLE = "volcano.sh/jdb-min-available"
JDB_MAX_UNAVAILABLE = "volcano.sh/jdb-max-unavailable"
VOLCANO = "volcano"
_INTEGER = re.compile(r"^[1-9]\d*$")
_PERCENT = re.compile(r"^([1-9]\d?)%$")


def validate_pod(pod: Pod) -> Causes:
    """Return every violation of ``pod``'s disruption budget annotations."""
    causes = Causes()
    if pod.scheduler_name != VOLCANO:
        return causes
    present = [key for key in (JDB_MIN_AVAILABLE, JDB_MAX_UNAVAILABLE) if key in pod.annotations]
    if len(present) == 2:
        causes.forbidden(
            f"metadata.annotations[{JDB_MAX_UNAVAILABLE}]",
            f"not allowed to configure {JDB_MIN_AVAILABLE} and {JDB_MAX_UNAVAILABLE} together",
        )
    for key in present:
        value = pod.annotations[key]
        if not (_INTEGER.match(value) or _PERCENT.match(value)):
            causes.invalid(
                f"metadata.annotations[{key}]",
                f"{value!r}: must be a positive integer or a percentage between 1% and 99%",
            )
    return causes


def admit_pod(obj: Mapping[str, Any] | Loaded | Pod, *, old: Pod | None = None) -> Loaded:
    """Return ``obj`` as a valid loaded Pod; raise ``AdmissionError`` otherwise (CREATE only)."""
    if isinstance(obj, Pod):
        loaded = Loaded(PodKind(), obj)
    elif isinstance(obj, Loaded):
        loaded = obj
    else:
        try:
            loaded = PodKind().load(obj)
        except ManifestError as exc:
            causes = Causes()
            causes.invalid(exc.field, exc.message)
            causes.raise_if_any(kind="Pod")
            raise
    if old is None:
        validate_pod(loaded.instance).raise_if_any(kind="Pod", name=loaded.instance.name)
    return loaded
