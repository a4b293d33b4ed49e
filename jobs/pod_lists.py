"""Reads for the Pods and PodGroups lists and the "pod issues" roll-up (HackSoft's selectors).

The jobs app serves these pages because it sits above both owners (core's Pod, queues'
PodGroup) and owns the job pages a row links to. Each list returns the rows a user may read
in a fixed number of queries (a count and one page, the owner and node joined), whatever the
number of rows; the roll-up is one aggregate query (``core.pod_issues``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.db.models import Q, QuerySet
from django.urls import reverse
from django.utils.functional import Promise

from console.namespaces import restrict
from core.models import Pod
from core.pod_issues import ISSUES, issue_counts, issue_filter, issue_labels
from queues.models import PodGroup

__all__ = [
    "PODGROUP_FILTERS",
    "PODGROUP_SORTS",
    "POD_FILTERS",
    "POD_SORTS",
    "IssueRow",
    "Owner",
    "PodGroupRow",
    "PodRow",
    "latest_condition",
    "owner_of",
    "pending_reason",
    "pod_issue_rollup",
    "pod_list",
    "pod_rows",
    "podgroup_list",
    "podgroup_rows",
]

POD_FILTERS = ("phase", "node", "issue", "job", "q")
PODGROUP_FILTERS = ("phase", "queue", "q")
# Each sort ends on a unique field so rows keep their order between live refreshes. Age
# ascending is the youngest first, as ``kubectl get pods --sort-by`` reads it.
POD_SORTS: Mapping[str, tuple[str, ...]] = {
    "name": ("name", "namespace", "id"),
    "phase": ("phase", "name", "id"),
    "node": ("node__name", "name", "id"),
    "restarts": ("restart_count", "name", "id"),
    "age": ("-created_at", "-id"),
}
PODGROUP_SORTS: Mapping[str, tuple[str, ...]] = {
    "name": ("name", "namespace", "id"),
    "phase": ("phase", "name", "id"),
    "queue": ("queue", "name", "id"),
    "min": ("min_member", "name", "id"),
    "running": ("running", "name", "id"),
    "age": ("-created_at", "-id"),
}
# The Kubeflow kinds' console pages are named by their plural (training:training_detail).
TRAINING_PLURALS = {"PyTorchJob": "pytorchjobs", "TFJob": "tfjobs", "MPIJob": "mpijobs"}
POD_COLUMNS = (
    "id", "namespace", "name", "phase", "reason", "restart_count", "back_off_until",
    "created_at", "deletion_time", "conditions", "pod_ip", "owner_references", "node_id",
    "job_id", "job__namespace", "job__name", "node__name",
)  # fmt: skip
PODGROUP_COLUMNS = (
    "id", "namespace", "name", "phase", "queue", "min_member", "running", "succeeded", "failed",
    "conditions", "created_at", "owner_references", "job_id", "job__namespace", "job__name",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Owner:
    """The job a pod or PodGroup belongs to, with its console page."""

    kind: str
    name: str
    url: str


@dataclass(frozen=True, slots=True)
class PodRow:
    """A pod as the list shows it."""

    pod: Pod
    owner: Owner | None
    node: str
    why_pending: str


@dataclass(frozen=True, slots=True)
class PodGroupRow:
    """A PodGroup as the list shows it, with its latest condition."""

    group: PodGroup
    owner: Owner | None
    condition: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class IssueRow:
    """One line of the roll-up: the issue, how many pods have it, the Pods list of them."""

    issue: str
    label: str | Promise
    count: int
    url: str


def pod_list(user: Any, *, namespace: str = "", filters: Mapping[str, str]) -> QuerySet[Pod]:
    """Return the pods ``user`` may read, narrowed by the list's filters (unordered)."""
    pods = restrict(Pod.objects.all(), user, namespace)
    if phase := filters.get("phase", ""):
        pods = pods.filter(phase=phase)
    if node := filters.get("node", "").strip():
        pods = pods.filter(node__name=node)
    if job := filters.get("job", "").strip():
        pods = pods.filter(job__name=job)
    if issue := filters.get("issue", ""):
        condition = issue_filter(issue)
        pods = pods.filter(condition) if condition is not None else pods
    if text := filters.get("q", "").strip():
        pods = pods.filter(Q(name__icontains=text) | Q(namespace__icontains=text))
    return pods.select_related("job", "node").only(*POD_COLUMNS)


def podgroup_list(
    user: Any, *, namespace: str = "", filters: Mapping[str, str]
) -> QuerySet[PodGroup]:
    """Return the PodGroups ``user`` may read, narrowed by the list's filters (unordered)."""
    groups = restrict(PodGroup.objects.all(), user, namespace)
    if phase := filters.get("phase", ""):
        groups = groups.filter(phase=phase)
    if queue := filters.get("queue", "").strip():
        groups = groups.filter(queue=queue)
    if text := filters.get("q", "").strip():
        groups = groups.filter(Q(name__icontains=text) | Q(namespace__icontains=text))
    return groups.select_related("job").only(*PODGROUP_COLUMNS)


def owner_of(obj: Pod | PodGroup) -> Owner | None:
    """Return the job owning ``obj``: its Volcano Job (the foreign key) or a Kubeflow job.

    Read from what the row already holds (the joined job, ``ownerReferences``): no query.
    """
    if obj.job_id is not None and obj.job is not None:
        job = obj.job
        url = reverse("jobs:job_detail", args=(job.namespace, job.name))
        return Owner("Job", job.name, url)
    for ref in obj.owner_references or []:
        plural = TRAINING_PLURALS.get(str(ref.get("kind", ""))) if isinstance(ref, dict) else None
        if plural and ref.get("name"):
            url = reverse("training:training_detail", args=(plural, obj.namespace, ref["name"]))
            return Owner(str(ref["kind"]), str(ref["name"]), url)
    return None


def pending_reason(pod: Pod) -> str:
    """Return why a Pending pod is not placed: its ``PodScheduled=False`` message ("" if none)."""
    if pod.phase != "Pending":
        return ""
    for cond in pod.conditions or []:
        if not isinstance(cond, dict) or cond.get("type") != "PodScheduled":
            continue
        if cond.get("status") == "False":
            return str(cond.get("message") or cond.get("reason") or "")
    return ""


def latest_condition(conditions: Iterable[Any]) -> dict[str, Any] | None:
    """Return the condition that changed last (by ``lastTransitionTime``; ties: the later)."""
    latest: dict[str, Any] | None = None
    for cond in conditions:
        if not isinstance(cond, dict):
            continue
        if latest is None or str(cond.get("lastTransitionTime") or "") >= str(
            latest.get("lastTransitionTime") or ""
        ):
            latest = cond
    return latest


def pod_rows(pods: Iterable[Pod]) -> list[PodRow]:
    """Return the list's rows of a page of pods (from the joined rows: no query)."""
    rows = []
    for pod in pods:
        node = pod.node.name if pod.node_id is not None and pod.node is not None else ""
        rows.append(PodRow(pod, owner_of(pod), node, pending_reason(pod)))
    return rows


def podgroup_rows(groups: Iterable[PodGroup]) -> list[PodGroupRow]:
    """Return the list's rows of a page of PodGroups (from the joined rows: no query)."""
    return [PodGroupRow(g, owner_of(g), latest_condition(g.conditions or [])) for g in groups]


def pod_issue_rollup(pods: QuerySet[Pod], **link: str) -> list[IssueRow]:
    """Return each issue's count among ``pods`` and the Pods list link of them (one query).

    ``link`` are the Pods list's parameters that select the same pods (``namespace``, ``job``),
    so a count and the page behind it agree.
    """
    counts = issue_counts(pods)
    labels = issue_labels()
    base = reverse("jobs:pod_list")
    params = {k: v for k, v in link.items() if v}
    return [
        IssueRow(issue, labels[issue], counts[issue],
                 f"{base}?{urlencode({**params, 'issue': issue})}")
        for issue in ISSUES
    ]  # fmt: skip
