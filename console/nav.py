"""The console's navigation: one entry per page, lit up once its URL name exists.

Pages are built by different apps at different times; an entry whose URL name does not
resolve yet is shown greyed out instead of breaking every page.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.urls import NoReverseMatch, reverse
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

__all__ = ["NAV", "NavEntry", "NavItem", "nav_items"]


@dataclass(frozen=True, slots=True)
class NavEntry:
    """One place in the navigation: its label, URL name and the URL prefix it owns."""

    label: str | Promise
    url_name: str
    icon: str
    roles: frozenset[str] = frozenset()  # empty: every role sees the entry


@dataclass(frozen=True, slots=True)
class NavItem:
    """A navigation entry as the template shows it."""

    label: str | Promise
    url: str | None
    active: bool
    icon: str


NAV: tuple[NavEntry, ...] = (
    NavEntry(_("Overview"), "overview", "◎"),
    NavEntry(_("Jobs"), "jobs:job_list", "▤"),
    NavEntry(_("Submit"), "jobs:job_submit", "+"),
    NavEntry(_("Queues"), "queues:queue_list", "≡"),
    NavEntry(_("Nodes"), "scheduler:node_list", "▦"),
    NavEntry(_("Scheduler"), "scheduler:policy", "⚙"),
    NavEntry(_("Metrics"), "monitoring:dashboard", "∿"),
    NavEntry(_("Audit"), "console:audit", "✎", frozenset({"operator", "admin"})),
)


def nav_items(path: str, roles: frozenset[str] | None = None) -> list[NavItem]:
    """Return the navigation for a page at ``path``: the longest matching prefix is active.

    Entries limited to some roles are left out for a user holding none of them (``roles``
    None: no user, every entry).
    """
    resolved: list[tuple[NavEntry, str | None]] = []
    for entry in NAV:
        if entry.roles and roles is not None and not entry.roles & roles:
            continue
        try:
            resolved.append((entry, reverse(entry.url_name)))
        except NoReverseMatch:
            resolved.append((entry, None))
    best = ""
    for _entry, url in resolved:
        if url and (path == url or (url != "/" and path.startswith(url))) and len(url) > len(best):
            best = url
    return [NavItem(e.label, url, bool(url) and url == best, e.icon) for e, url in resolved]
