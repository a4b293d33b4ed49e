"""A page as a browser ends up showing it: with the fragments it loads swapped in.

A page shows another app's data by loading that app's fragment: a section holds ``hx-get``
and ``hx-trigger="load …"``, and htmx fetches the fragment and swaps it in (``innerHTML``, or
``outerHTML`` when the section says so). Page tests read what a user sees, so they compose the
page the same way with the test client; a fragment that does not answer 200 fails the test.
"""

from __future__ import annotations

import html
import re
from typing import Any

from django.test import Client

__all__ = ["compose", "composed"]

# An element loaded on load: its tag, its attributes and what it holds until then (placeholders
# hold no element of their own tag).
_LOADED = re.compile(
    r'<(?P<tag>[a-z]+)(?P<attrs>[^>]*\bhx-trigger="load\b[^"]*"[^>]*)>(?P<inner>.*?)</(?P=tag)>',
    re.S,
)


def compose(client: Client, page: str) -> str:
    """Return ``page`` with every fragment loaded on load swapped in, as htmx does."""

    def swap(match: re.Match[str]) -> str:
        tag, attrs = match.group("tag"), match.group("attrs")
        source = re.search(r'\bhx-get="([^"]*)"', attrs)
        assert source is not None, f"an element loaded on load has no hx-get: {attrs}"
        url = html.unescape(source.group(1))
        answer = client.get(url, headers={"HX-Request": "true"})
        assert answer.status_code == 200, f"{url} answered {answer.status_code}"
        fragment = compose(client, answer.content.decode())
        if re.search(r'\bhx-swap="outerHTML', attrs):
            return fragment
        return f"<{tag}{attrs}>{fragment}</{tag}>"

    return _LOADED.sub(swap, page)


def composed(client: Client, url: str, **extra: Any) -> str:
    """Return the page at ``url`` as a browser ends up showing it (``compose``)."""
    answer = client.get(url, **extra)
    assert answer.status_code == 200, f"{url} answered {answer.status_code}"
    return compose(client, answer.content.decode())
