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
    # Other pages the entry owns (the Workflows entry owns the CronJobs page too).
    also: tuple[str, ...] = ()


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
    # One entry for both lists (the page's tabs switch between them): a phone's menu stays short.
    NavEntry(_("Pods"), "jobs:pod_list", "◫", also=("jobs:podgroup_list",)),
    NavEntry(_("Quotas"), "jobs:quota_list", "◔"),
    NavEntry(_("Submit"), "jobs:job_submit", "+", frozenset({"submitter", "operator", "admin"})),
    NavEntry(_("Workflows"), "flow:flow_list", "⇶", also=("flow:cronjob_list",)),
    NavEntry(_("Queues"), "queues:queue_list", "≡"),
    NavEntry(_("Nodes"), "scheduler:node_list", "▦"),
    NavEntry(_("Topology"), "scheduler:hypernode_list", "⋔"),
    NavEntry(_("Scheduler"), "scheduler:policy", "⚙", also=("scheduler:health",)),
    NavEntry(_("Metrics"), "monitoring:dashboard", "∿"),
    NavEntry(_("Audit"), "console:audit", "✎", frozenset({"operator", "admin"})),
)


def nav_items(path: str, roles: frozenset[str] | None = None) -> list[NavItem]:
    """Return the navigation for a page at ``path``: the longest matching prefix is active.

    Entries limited to some roles are left out for a user holding none of them (``roles``
    None: no user, every entry).
    """
    resolved: list[tuple[NavEntry, str | None, list[str]]] = []
    for entry in NAV:
        if entry.roles and roles is not None and not entry.roles & roles:
            continue
        owned = [url for name in (entry.url_name, *entry.also) if (url := _url(name))]
        resolved.append((entry, _url(entry.url_name), owned))
    best, active = "", None
    for entry, _own_url, owned in resolved:
        for url in owned:
            matches = path == url or (url != "/" and path.startswith(url))
            if matches and len(url) > len(best):
                best, active = url, entry
    return [NavItem(e.label, url, e is active, e.icon) for e, url, _owned in resolved]


def _url(name: str) -> str | None:
    """Return the URL named ``name``, or None when no app serves it."""
    try:
        return reverse(name)
    except NoReverseMatch:
        return None
