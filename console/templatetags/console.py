"""Template tags of the console: sortable headers, table links, quantities, phases."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.html import format_html
from django.utils.translation import gettext as _

from console import units
from console.links import console_url
from console.tables import Table

register = template.Library()


@register.simple_tag
def sort_header(table: Table, key: str, label: str, css: str = "") -> str:
    """Return a ``<th>`` whose link sorts by ``key`` (flipping when already sorted by it)."""
    arrow, sort = "", "none"
    if table.sort == key:
        arrow, sort = ("▼", "descending") if table.descending else ("▲", "ascending")
    return format_html(
        '<th scope="col" class="{}" aria-sort="{}"><a class="sort" href="{}">{} '
        '<span class="arrow" aria-hidden="true">{}</span></a></th>',
        css, sort, table.sort_url(key), label, arrow,
    )  # fmt: skip


@register.simple_tag
def sort_link(table: Table, key: str, label: str) -> str:
    """Return a link sorting by ``key`` outside a table (a tree's column heads), saying the
    current sort in words for screen readers as ``aria-sort`` would in a ``<th>``."""
    arrow, state = "", ""
    if table.sort == key:
        arrow = "▼" if table.descending else "▲"
        state = _("sorted descending") if table.descending else _("sorted ascending")
    return format_html(
        '<a class="sort" href="{}">{} <span class="arrow" aria-hidden="true">{}</span>'
        '<span class="visually-hidden">{}</span></a>',
        table.sort_url(key), label, arrow, state,
    )  # fmt: skip


@register.simple_tag
def table_url(table: Table, **changes: Any) -> str:
    """Return the table's URL with ``changes`` applied (keeps every other filter)."""
    return table.url(**changes)


@register.filter
def phase_class(phase: Any) -> str:
    """Return the badge class of a phase or state (``Running`` → ``badge-running``)."""
    return f"badge-{str(phase or 'unknown').lower()}"


@register.filter
def percent(part: Any, whole: Any) -> float:
    """Return ``part`` as a percentage of ``whole`` (0 when ``whole`` is 0), capped at 100."""
    try:
        p, w = float(part or 0), float(whole or 0)
    except (TypeError, ValueError):
        return 0.0
    return 0.0 if w <= 0 else round(min(100.0, 100.0 * p / w), 1)


@register.filter
def get_item(mapping: Any, key: Any) -> Any:
    """Return ``mapping[key]`` (None when missing): dictionaries keyed by ids in templates."""
    try:
        return mapping.get(key)
    except AttributeError:
        return None


@register.filter
def ago(moment: Any) -> str:
    """Return how long ago ``moment`` was, in words ("just now" under a minute)."""
    from django.utils import timezone
    from django.utils.timesince import timesince
    from django.utils.translation import gettext

    if moment is None:
        return ""
    if (timezone.now() - moment).total_seconds() < 60:
        return gettext("just now")
    return gettext("%(time)s ago") % {"time": timesince(moment, depth=1)}


@register.filter
def amount(milli: Any, resource: str = "cpu") -> str:
    """Return a milli-unit amount for reading (``console.units.amount``)."""
    return units.amount(milli, resource)


@register.filter
def page_of(name: str, kind: str) -> str:
    """Return the console page of the ``kind`` object ``name`` (``ns/name`` if namespaced), or ""."""
    return console_url(kind, name) or ""


@register.filter
def quantity(milli: Any, resource: str = "cpu") -> str:
    """Return a milli-unit amount with its unit (``console.units.quantity``): ``2.5 cores``."""
    return units.quantity(milli, resource)


@register.filter
def plain(value: Any) -> str:
    """Return a JSON value as a person reads it: ``cpu 12, memory 8Gi``; ``none`` when empty."""
    from django.utils.translation import gettext

    if value is None or value == {} or value == [] or value == "":
        return gettext("none")
    if isinstance(value, dict):
        return ", ".join(f"{k} {plain(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(plain(v) for v in value)
    if isinstance(value, bool):
        return gettext("yes") if value else gettext("no")
    return str(value)
