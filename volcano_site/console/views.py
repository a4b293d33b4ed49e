"""The console's own pages: a first Overview (the job console's issue grows it).

It also shows the shape every console page follows: a view that reads through selectors,
``render_page`` with the page's live regions as fragments, and no writes.
"""

from __future__ import annotations

from django.db.models import Count
from django.http import HttpRequest, HttpResponse

from jobs.models import Job
from scheduler.models import SessionRecord
from volcano_site.console.namespaces import current_namespace, restrict
from volcano_site.console.render import render_page
from volcano_site.roles import role_required

__all__ = ["overview"]

FRAGMENTS = ("overview-jobs", "overview-sessions")


@role_required()
def overview(request: HttpRequest) -> HttpResponse:
    """Render the Overview: jobs by phase and the last sessions, live."""
    namespace = current_namespace(request)
    jobs = restrict(Job.objects.all(), request.user, namespace)
    by_phase = dict(
        jobs.order_by().values_list("phase").annotate(n=Count("pk")).values_list("phase", "n")
    )
    sessions = list(SessionRecord.objects.order_by("-started_at", "-pk")[:10])
    context = {"by_phase": sorted(by_phase.items()), "sessions": sessions}
    return render_page(request, "console/overview.html", context, fragments=FRAGMENTS)
