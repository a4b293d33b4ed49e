"""``job view``: a job described section by section, then its events, as vcctl lays it out.

vcctl's ``PrintJobInfo`` indents two spaces per level and aligns values with a tab; the
sections (Name … Kind, Metadata, Spec with each task's containers, Status, Events) are kept
so a reader used to vcctl finds each field where they expect it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from vcctl.printers import human_duration, parse_time

__all__ = ["describe_events", "describe_job"]

Object = Mapping[str, Any]


class _Lines:
    """An indented text builder: ``add(level, "Key:\\tvalue")``."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def add(self, level: int, text: str) -> None:
        self.lines.append("  " * level + text)

    def text(self) -> str:
        return "".join(line + "\n" for line in self.lines)


def _json_or_none(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True) if value else "<none>"


def describe_job(job: Object) -> str:
    """Return the description ``job view`` prints for one job (without events)."""
    out = _Lines()
    meta, spec, status = job.get("metadata") or {}, job.get("spec") or {}, job.get("status") or {}
    out.add(0, f"Name:       \t{meta.get('name', '')}")
    out.add(0, f"Namespace:  \t{meta.get('namespace', '')}")
    out.add(0, f"Labels:     \t{_json_or_none(meta.get('labels'))}")
    out.add(0, f"Annotations:\t{_json_or_none(meta.get('annotations'))}")
    out.add(0, f"API Version:\t{job.get('apiVersion', '')}")
    out.add(0, f"Kind:       \t{job.get('kind', '')}")
    out.add(0, "Metadata:")
    out.add(1, f"Creation Timestamp:\t{meta.get('creationTimestamp', '')}")
    out.add(1, f"Generate Name:     \t{meta.get('generateName', '')}")
    out.add(1, f"Generation:        \t{meta.get('generation', 0)}")
    out.add(1, f"Resource Version:  \t{meta.get('resourceVersion', '')}")
    out.add(1, f"UID:               \t{meta.get('uid', '')}")
    out.add(0, "Spec:")
    out.add(1, f"Min Available:     \t{spec.get('minAvailable', 0)}")
    out.add(1, "Plugins:")
    for name, arguments in sorted((spec.get("plugins") or {}).items()):
        out.add(2, f"{name.capitalize()}:\t{arguments}")
    out.add(1, f"Queue:             \t{spec.get('queue', '')}")
    out.add(1, f"Scheduler Name:    \t{spec.get('schedulerName', '')}")
    out.add(1, "Tasks:")
    for task in spec.get("tasks") or []:
        _describe_task(out, task)
    _describe_status(out, status)
    return out.text()


def _describe_task(out: _Lines, task: Object) -> None:
    template = task.get("template") or {}
    pod = template.get("spec") or {}
    out.add(2, f"Name:\t{task.get('name', '')}")
    out.add(2, f"Replicas:\t{task.get('replicas', 0)}")
    if "minAvailable" in task:
        out.add(2, f"Min Available:\t{task['minAvailable']}")
    out.add(2, "Template:")
    out.add(3, "Spec:")
    out.add(4, "Containers:")
    for container in pod.get("containers") or []:
        out.add(5, "Command:")
        for word in container.get("command") or []:
            out.add(6, str(word))
        out.add(5, f"Image:\t{container.get('image', '')}")
        out.add(5, f"Name: \t{container.get('name', '')}")
        out.add(5, "Ports:")
        for port in container.get("ports") or []:
            out.add(6, f"Container Port:\t{port.get('containerPort', '')}")
            out.add(6, f"Name:          \t{port.get('name', '')}")
        resources = container.get("resources") or {}
        out.add(5, "Resources:")
        for section in ("limits", "requests"):
            out.add(6, f"{section.capitalize()}:")
            values = resources.get(section) or {}
            out.add(7, f"Cpu:   \t{values.get('cpu', '0')}")
            out.add(7, f"Memory:\t{values.get('memory', '0')}")
        out.add(6, f"Working Dir:\t{container.get('workingDir', '')}")
    out.add(4, f"Restart Policy:   \t{pod.get('restartPolicy', '')}")


def _describe_status(out: _Lines, status: Object) -> None:
    out.add(0, "Status:")
    for key, label in (
        ("succeeded", "Succeeded:    "),
        ("pending", "Pending:      "),
        ("running", "Running:      "),
        ("failed", "Failed:       "),
        ("terminating", "Terminating:  "),
        ("unknown", "Unknown:      "),
        ("retryCount", "RetryCount:   "),
        ("minAvailable", "Min Available:"),
        ("version", "Version:      "),
    ):
        # vcctl prints a count only when it is non-zero.
        if status.get(key):
            out.add(1, f"{label}\t{status[key]}")
    out.add(1, "State:")
    out.add(2, f"Phase:\t{(status.get('state') or {}).get('phase', '')}")
    resources = status.get("controlledResources") or {}
    if resources:
        out.add(1, "Controlled Resources:")
        for key, value in sorted(resources.items()):
            out.add(2, f"{key}: \t{value}")
    conditions = status.get("conditions") or []
    if conditions:
        out.add(1, "Conditions:")
        out.add(2, "Status\tTransitionTime")
        for condition in conditions:
            out.add(
                2, f"{condition.get('status', '')} \t{condition.get('lastTransitionTime', '')} "
            )


def describe_events(events: Sequence[Object], *, now: datetime) -> str:
    """Return the Events section: Type, Reason, Age, From, Message (or ``<none>``)."""
    if not events:
        return "Events: \t<none>\n"
    header = f"{'Type':<15}\t{'Reason':<40}\t{'Age':<30}\t{'From':<40}\tMessage\n"
    rule = "\t".join(f"{'-------':<{w}}" for w in (15, 40, 30, 40)) + "\t-------\n"
    lines = ["Events:\n", header, rule]
    for event in events:
        first = parse_time(event.get("firstTimestamp") or event.get("eventTime"))
        last = parse_time(event.get("lastTimestamp")) or first
        age = human_duration(now - first) if first else "<unknown>"
        count = event.get("count") or 1
        if count > 1 and last:
            age = f"{human_duration(now - last)} (x{count} over {age})"
        source = event.get("source") or {}
        origin = ", ".join(str(s) for s in (source.get("component"), source.get("host")) if s)
        lines.append(
            f"{event.get('type', ''):<15}\t{event.get('reason', ''):<40}\t{age:<30}\t"
            f"{origin:<40}\t{str(event.get('message', '')).strip()}\n"
        )
    return "".join(lines)
