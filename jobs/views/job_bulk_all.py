"""Acting on every job a filter matches (Lookout's "cancel all matching"): the matching set is
counted and fixed when the user confirms, then worked through in small batches, one request
each, so a progress bar moves and no request runs long whatever the set's size.

The set is kept in the user's session under a random run id: a run belongs to whoever started
it, and a batch request names only the run, never the jobs. Each batch checks again that each
job still matches the filter (a job that finished meanwhile is listed, not touched) and acts
through ``job_act_bulk``: each job in its own transaction, each refusal with its reason.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.roles import SUBMITTERS, role_required
from jobs.selectors import job_list
from jobs.services import BULK_ACTIONS, job_act_bulk

__all__ = ["BATCH", "FILTERS", "MAX_MATCHING", "filter_text", "job_bulk_all", "job_bulk_all_step"]

FILTERS = ("queue", "phase", "mine", "q")
BATCH = 20  # jobs per request: each is a few writes, so a batch answers well under a second
MAX_MATCHING = 5000  # one run's ceiling: beyond it, narrow the filter
MAX_LISTED = 200  # refusals kept for the page; the count stays exact
_RUN = "jobs-bulk-run-"


def filter_text(filters: Mapping[str, str], namespace: str) -> str:
    """Return the filter as the confirmation names it: ``phase=Running, queue=research``."""
    parts = [f"namespace={namespace}"] if namespace else []
    for name in FILTERS:
        value = filters.get(name, "")
        if value:
            parts.append("mine" if name == "mine" else f"{name}={value}")
    return ", ".join(parts)


def _progress(request: HttpRequest, run: str, state: Mapping[str, Any]) -> HttpResponse:
    total = len(state["keys"])
    context = {
        "run": run,
        "total": total,
        "processed": state["offset"],
        "done": state["done"],
        "refused": state["refused"],
        "refused_count": state["refused_count"],
        "finished": state["offset"] >= total,
        "action": state["action"],
        "counted": state.get("counted"),
    }
    return render(request, "jobs/_bulk_all_progress.html", context)


def _error(request: HttpRequest, message: str) -> HttpResponse:
    context = {"error": message, "outcome": None}
    return render(request, "jobs/_bulk_result.html", context, status=400)


@role_required(*SUBMITTERS)
@require_POST
def job_bulk_all(request: HttpRequest) -> HttpResponse:
    """Fix the set of jobs the posted filter matches now and answer its first progress bar."""
    action = request.POST.get("action", "")
    queue = request.POST.get("target_queue", "").strip()
    if action not in BULK_ACTIONS:
        return _error(request, _("Choose an action: abort, resume, delete or move."))
    if action == "move" and not queue:
        return _error(request, _("Choose the queue to move the jobs to."))
    namespace = request.POST.get("namespace", "").strip()
    filters = {name: request.POST.get(name, "") for name in FILTERS}
    matching = job_list(request.user, namespace=namespace, filters=filters).order_by(
        "namespace", "name"
    )
    keys = [f"{ns}/{name}" for ns, name in matching.values_list("namespace", "name")[:MAX_MATCHING]]
    if not keys:
        return _error(request, _("No job matches this filter any more."))
    counted = request.POST.get("counted", "")
    run = secrets.token_urlsafe(9)
    state = {
        "action": action,
        "queue": queue,
        "namespace": namespace,
        "filters": filters,
        "keys": keys,
        "offset": 0,
        "done": 0,
        "refused": [],
        "refused_count": 0,
        # What the page counted when it asked: jobs that changed before the confirmation
        # make the fixed set differ, and the progress says so.
        "counted": int(counted) if counted.isdigit() else None,
    }
    request.session[_RUN + run] = state
    return _progress(request, run, state)


@role_required(*SUBMITTERS)
@require_POST
def job_bulk_all_step(request: HttpRequest) -> HttpResponse:
    """Act on the run's next batch and answer the progress bar (which asks again until done)."""
    run = request.POST.get("run", "")
    state = request.session.get(_RUN + run)
    if not isinstance(state, dict):
        return _error(request, _("This bulk action is over or was started elsewhere."))
    start = state["offset"]
    batch = [tuple(key.split("/", 1)) for key in state["keys"][start : start + BATCH]]
    still = set(
        job_list(request.user, namespace=state["namespace"], filters=state["filters"])
        .filter(namespace__in={ns for ns, _n in batch}, name__in={n for _ns, n in batch})
        .values_list("namespace", "name")
    )
    refused: list[tuple[str, str]] = [
        (f"{ns}/{name}", _("no longer matches the filter"))
        for ns, name in batch
        if (ns, name) not in still
    ]
    keys = [(ns, name) for ns, name in batch if (ns, name) in still]
    if keys:
        outcome = job_act_bulk(
            keys=keys, action=state["action"], user=request.user, queue=state["queue"]
        )
        refused.extend(outcome.refused)
        state["done"] += len(outcome.done)
    state["offset"] = start + len(batch)
    state["refused_count"] += len(refused)
    room = MAX_LISTED - len(state["refused"])
    state["refused"].extend([list(item) for item in refused[: max(room, 0)]])
    if state["offset"] >= len(state["keys"]):
        del request.session[_RUN + run]  # finished: the last answer shows the whole outcome
    else:
        request.session[_RUN + run] = state
    return _progress(request, run, state)
