"""Where an object lives in the console: the page its app registered (``Entry.console_page``).

The audit log and Submit name objects by kind and name only; the registry knows which app
shows a kind, so no page here hard-codes another app's URLs.
"""

from __future__ import annotations

from django.urls import NoReverseMatch, reverse

from kube import registry
from kube.registry import Entry

__all__ = ["console_url", "entry_url"]


def entry_url(entry: Entry, namespace: str, name: str) -> str | None:
    """Return the console page of ``name`` (in ``namespace`` for a namespaced kind), if any."""
    if not entry.console_page:
        return None
    kwargs = {"name": name}
    if entry.resource.namespaced:
        kwargs["namespace"] = namespace
    try:
        return reverse(entry.console_page, kwargs=kwargs)
    except NoReverseMatch:  # a name the page's URL pattern does not take
        return None


def console_url(kind: str, qualified_name: str) -> str | None:
    """Return the page of the ``kind`` object the audit log names (``namespace/name``)."""
    for entry in registry.entries():
        if entry.resource.kind != kind or not entry.console_page:
            continue
        namespace, _sep, name = qualified_name.rpartition("/")
        if entry.resource.namespaced and not namespace:
            return None
        return entry_url(entry, namespace, name)
    return None
