"""The Metrics pages: charts of the recorded history (or Prometheus), and each chart's data.

``dashboard`` renders one section's charts (the range, queues, resource and section come from
the query string, ``monitoring.ranges``); its ``metrics-charts`` region refreshes when a new
session is recorded, so the charts extend without a reload. ``chart_data`` answers one chart
as Plotly JSON, or as CSV with ``?format=csv`` (``figure_csv``), for scripts and curl.
Every view needs a console role, like the other pages; the data is cluster-wide (queues and
the scheduler's own figures), which every role may read.
"""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone

from accounts.roles import role_required
from console.charts import figure_csv, figure_data
from console.render import render_page
from monitoring.panels import Reader, panel, panels_of
from monitoring.prometheus import PrometheusError
from monitoring.ranges import RANGES, SECTIONS, MetricsQuery, QueryError, parse_query
from monitoring.recorder import HISTORY_TOPIC
from monitoring.sources import current_source

__all__ = ["chart_data", "dashboard"]

FRAGMENTS = ("metrics-charts",)
RESOURCES = ("cpu", "memory", "nvidia.com/gpu", "pods")


def _queue_names() -> list[str]:
    # By app registry, not an import: the queues app may import monitoring for its own charts.
    model = apps.get_model("queues", "Queue")
    return list(model.objects.order_by("name").values_list("name", flat=True))


def _base_context(request: HttpRequest) -> dict[str, Any]:
    return {
        "ranges": [*RANGES, "custom"],
        "sections": SECTIONS,
        "resources": RESOURCES,
        "all_queues": _queue_names(),
        "live_topic": HISTORY_TOPIC,
    }


@role_required()
def dashboard(request: HttpRequest) -> HttpResponse:
    """Render the Metrics page: one section's charts for the range and queues asked for."""
    context = _base_context(request)
    section = request.GET.get("section", "latency")
    try:
        query = parse_query(request.GET, now=timezone.now())
    except QueryError as exc:
        context.update(error=exc, query=None, section=section, source=_source_or_none())
        return render_page(request, "monitoring/dashboard.html", context, status=400)
    try:  # a Prometheus that does not answer is said on the page, never a 500
        source = current_source()
        reader = Reader(source, query)
        figures = [(p.name, p.wide, figure_data(p.build(reader))) for p in panels_of(query.section)]
    except PrometheusError as exc:
        context.update(error=exc, query=query, section=query.section, figures=[],
                       source=_source_or_none(), query_string=request.GET.urlencode())  # fmt: skip
        return render_page(request, "monitoring/dashboard.html", context, status=502)
    context.update(query=query, section=query.section, figures=figures, source=source,
                   query_string=request.GET.urlencode())  # fmt: skip
    return render_page(request, "monitoring/dashboard.html", context, fragments=FRAGMENTS)


def _source_or_none() -> Any:
    """Return the configured source for its label, or None when even that is refused."""
    try:
        return current_source()
    except PrometheusError:
        return None


@role_required()
def chart_data(request: HttpRequest, name: str) -> HttpResponse:
    """Return one chart's figure as JSON, or its traces as CSV (``?format=csv``)."""
    chart = panel(name)
    if chart is None:
        raise Http404(f"no chart named {name!r}")
    wanted = request.GET.get("format", "") or "json"
    if wanted not in ("json", "csv"):
        return JsonResponse({"error": "format: choose json or csv", "field": "format"}, status=400)
    try:
        query: MetricsQuery = parse_query(request.GET, now=timezone.now())
    except QueryError as exc:
        if wanted == "csv":
            return HttpResponse(f"{exc}\n", status=400, content_type="text/plain; charset=utf-8")
        return JsonResponse({"error": str(exc), "field": exc.field}, status=400)
    try:
        figure = chart.build(Reader(current_source(), query))
    except PrometheusError as exc:
        if wanted == "csv":
            return HttpResponse(f"{exc}\n", status=502, content_type="text/plain; charset=utf-8")
        return JsonResponse({"error": str(exc), "field": "PROMETHEUS_URL"}, status=502)
    if wanted == "csv":
        response = HttpResponse(figure_csv(figure), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{name}-{query.range}.csv"'
        return response
    return JsonResponse(figure_data(figure))
