"""The scheduler's health page: is it scheduling, who leads, do the controllers keep up, and
what is misconfigured, each with a link to the page that fixes it.

Every role sees the verdict (whether jobs get scheduled at all concerns everyone). The leader,
the workers, the controllers' lag and the misconfigurations are for operators and admins: they
are the ones who can act on them (the fix links lead to queue and policy pages where only they
may write), and holder names are host names and process ids.

The verdict region also refreshes every 15 s on its own: a stopped scheduler announces nothing,
so a page that waited for the next session would keep saying "last session 1 s ago" forever.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from accounts.roles import OPERATORS, role_required, roles_of
from console.render import render_page
from scheduler.health import Health, health

__all__ = ["scheduler_health"]

FRAGMENTS = ("health-verdict", "health-details")


def sees_details(request: HttpRequest) -> bool:
    """Return whether the user may see the leader, workers, lag and misconfigurations."""
    return bool(roles_of(request.user) & OPERATORS)


@role_required()
def scheduler_health(request: HttpRequest) -> HttpResponse:
    """Render the health page (or one of its live regions)."""
    full = sees_details(request)
    report: Health | None = None

    def get() -> Health:
        nonlocal report
        if report is None:
            report = health(full=full)
        return report

    context = {"health": get, "tab": "health"}
    return render_page(request, "scheduler/health.html", context, fragments=FRAGMENTS)
