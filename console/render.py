"""One view serves a page or one of its fragments (django-htmx's pattern, STYLE.md).

A live region is an element whose ``id`` names a template partial; when htmx asks for it
(``HX-Target`` is that id) the view renders only the partial, with the same context and the
same permission checks as the page.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

__all__ = ["fragment_name", "render_page"]


def fragment_name(request: HttpRequest, fragments: Iterable[str]) -> str | None:
    """Return the fragment an htmx request asks for, if it is one of ``fragments``."""
    htmx = getattr(request, "htmx", None)
    if not htmx or htmx.boosted:
        return None
    target = htmx.target
    return target if target in set(fragments) else None


def render_page(
    request: HttpRequest,
    template: str,
    context: Mapping[str, Any],
    *,
    fragments: Iterable[str] = (),
    status: int = 200,
) -> HttpResponse:
    """Render ``template``, or only its partial named by the request's ``HX-Target``."""
    name = fragment_name(request, fragments)
    response = render(request, f"{template}#{name}" if name else template, context, status=status)
    response["Vary"] = "HX-Request, HX-Target"
    return response
