"""Admission of JobTemplates, JobFlows and CronJobs: Volcano's webhooks, every cause at once.

- A JobFlow's steps must form a DAG over names that are steps of the flow (Volcano's
  ``jobflows/validate``: "jobflow Flow is not DAG: vertex is not defined: x"). Like Volcano's
  webhook, it does not refuse two steps of one name, nor a template that does not exist yet
  (the step waits for it), nor look inside a patch beyond its shape.
- A CronJob's name leaves room for the suffix of the jobs it makes (52 of 63 characters), its
  schedule parses as a standard cron expression without ``TZ``, and its time zone is an IANA
  zone (``cronjobs/validate``).
- A JobTemplate is a Job spec (its shape is the manifest's to check); Volcano runs no webhook
  for it.
"""

from __future__ import annotations

import re
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from flow.models import CronJob, JobFlow, JobTemplate
from flow.schedule import ScheduleError, parse_schedule
from kube.admission_causes import Causes

__all__ = [
    "CRON_NAME_MAX",
    "admit_cron_job",
    "admit_job_flow",
    "admit_job_template",
    "flow_dag_error",
    "validate_cron_job",
    "validate_job_flow",
]

# Volcano's cron job names leave 11 characters of 63 for the jobs' "-<minutes since epoch>".
CRON_NAME_MAX = 52
_ZONE_PART = re.compile(r"^[A-Za-z.\-_0-9+]{1,14}$")


def admit_job_template(template: JobTemplate, *, old: Any | None) -> None:
    """Accept any well-formed template: Volcano checks a JobTemplate only by its CRD schema."""
    del template, old


def admit_job_flow(flow: JobFlow, *, old: Any | None) -> None:
    """Raise ``AdmissionError`` naming every rule ``flow`` breaks."""
    validate_job_flow(flow).raise_if_any(kind="JobFlow", name=flow.name)


def flow_dag_error(flows: list[dict[str, Any]]) -> str:
    """Return Volcano's words for why ``flows`` are not a DAG, or "" when they are one."""
    graph = {
        str(step.get("name")): list((step.get("dependsOn") or {}).get("targets") or [])
        for step in flows
    }
    for targets in graph.values():
        for target in targets:
            if target not in graph:
                return f"jobflow Flow is not DAG: vertex is not defined: {target}"
    done: set[str] = set()
    visiting: set[str] = set()

    def cyclic(name: str) -> bool:
        if name in done:
            return False
        if name in visiting:
            return True
        visiting.add(name)
        if any(cyclic(target) for target in graph[name]):
            return True
        visiting.discard(name)
        done.add(name)
        return False

    return "jobflow Flow is not DAG" if any(cyclic(name) for name in graph) else ""


def validate_job_flow(flow: JobFlow) -> Causes:
    """Return every violation of Volcano's JobFlow rules."""
    causes = Causes()
    if message := flow_dag_error(flow.flows):
        causes.invalid("spec.flows", message)
    return causes


def admit_cron_job(cron: CronJob, *, old: Any | None) -> None:
    """Raise ``AdmissionError`` naming every rule ``cron`` breaks."""
    validate_cron_job(cron).raise_if_any(kind="CronJob", name=cron.name)


def validate_cron_job(cron: CronJob) -> Causes:
    """Return every violation of Volcano's CronJob rules."""
    causes = Causes()
    if len(cron.name) > CRON_NAME_MAX:
        causes.invalid(
            "metadata.name",
            f"cronJob name must be no more than {CRON_NAME_MAX} characters to accommodate "
            "job name suffix (max 63 total)",
        )
    if not cron.schedule:
        causes.required("spec.schedule", "schedule is required, but got empty")
    elif "TZ" in cron.schedule:
        causes.invalid(
            "spec.schedule",
            "schedule should not contain TZ or CRON_TZ, TZ should only be set in the "
            "timeZone field",
        )
    else:
        try:
            parse_schedule(cron.schedule)
        except ScheduleError:
            causes.invalid("spec.schedule", "schedule is not a valid cron expression")
    if message := time_zone_error(cron.time_zone):
        causes.invalid("spec.timeZone", message)
    return causes


def time_zone_error(zone: str) -> str:
    """Return why ``zone`` is not an IANA time zone Volcano accepts, or "" (unset is fine)."""
    if not zone:
        return ""
    if any(
        part in (".", "..") or part.startswith("-") or not _ZONE_PART.match(part)
        for part in zone.split("/")
    ):
        return "unknown timeZone"
    if zone.lower() == "local":
        return "timeZone can't be Local, and must be defined in https://www.iana.org/time-zones"
    try:
        ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        return "invalid timeZone"
    return ""
