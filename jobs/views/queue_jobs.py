"""A queue's jobs, the fragment its page loads: the waiting line in the engine's order, why
each job waits, the queue's jobs by phase, and what guards hold (jobs over a ResourceQuota,
pods a PodDisruptionBudget or a cool-down protects).

The queue's page belongs to the queues app, below this one; it shows the jobs of the queue by
loading this fragment (``hx-get``), which the same roles may read as the page itself.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone

from accounts.roles import role_required
from jobs.guards import queue_guards
from jobs.selectors import queue_jobs_by_phase, queue_line
from queues.models import Queue
from queues.share_status import StoredShare

__all__ = ["queue_jobs"]


@role_required()
def queue_jobs(request: HttpRequest, name: str) -> HttpResponse:
    """Render the jobs of queue ``name`` the user may read (the section's content)."""
    queue = get_object_or_404(Queue, name=name)
    share = StoredShare.from_json(queue.share_status)
    line, hidden = queue_line(request.user, name, queue.waiting_line, share.waiting)
    context = {
        "queue": queue,
        "line": line,
        "hidden": hidden,
        "jobs_by_phase": queue_jobs_by_phase(name),
        "guards": queue_guards(request.user, name, timezone.now()),
    }
    response = render(request, "jobs/_queue_jobs.html", context)
    response["Vary"] = "HX-Request, HX-Target"
    return response
