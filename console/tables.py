"""Tables sorted, filtered and paged on the server, with every choice in the URL.

A view declares which columns sort and by which fields; the ``Table`` reads ``?sort=``,
``?page=`` and ``?per_page=`` from the request, keeps every other query parameter (the
view's filters), and builds the links of the headers and the paginator from the same
state, so any view of a table is a link that can be shared. Each sort ends with a unique
field so rows keep their order between live refreshes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from django.core.paginator import Page, Paginator
from django.http import HttpRequest, QueryDict

__all__ = ["PER_PAGE_CHOICES", "Table"]

PER_PAGE_CHOICES = (25, 50, 100, 200)


@dataclass(slots=True)
class Table:
    """The sort, page and filters of one table, read from (and written back to) the URL."""

    path: str
    params: QueryDict
    sorts: Mapping[str, Sequence[str]]
    sort: str
    descending: bool
    page_number: int
    per_page: int
    page: Page[Any] | None = field(default=None)

    @classmethod
    def from_request(
        cls,
        request: HttpRequest,
        *,
        sorts: Mapping[str, Sequence[str]],
        default: str,
        per_page: int = 50,
    ) -> Table:
        """Read the table's state from ``request``; unknown sorts fall back to ``default``."""
        wanted = request.GET.get("sort", default) or default
        descending = wanted.startswith("-")
        key = wanted.lstrip("-")
        if key not in sorts:
            descending = default.startswith("-")
            key = default.lstrip("-")
        try:
            size = int(request.GET.get("per_page", per_page))
        except ValueError:
            size = per_page
        if size not in PER_PAGE_CHOICES:
            size = per_page
        try:
            number = max(1, int(request.GET.get("page", 1)))
        except ValueError:
            number = 1
        return cls(request.path, request.GET.copy(), sorts, key, descending, number, size)

    @property
    def order_by(self) -> list[str]:
        """Return the ``order_by`` fields of the current sort (direction applied to each)."""
        names = self.sorts[self.sort]
        if not self.descending:
            return list(names)
        return [name[1:] if name.startswith("-") else f"-{name}" for name in names]

    def paginate(self, queryset: Any) -> Page[Any]:
        """Return the current page of ``queryset`` sorted by the table (out-of-range: the last)."""
        ordered = queryset.order_by(*self.order_by) if hasattr(queryset, "order_by") else queryset
        paginator = Paginator(ordered, self.per_page)
        self.page = paginator.get_page(self.page_number)
        return self.page

    def url(self, **changes: Any) -> str:
        """Return this table's URL with ``changes`` applied (``None`` removes a parameter).

        Changing anything but the page goes back to the first page.
        """
        params = self.params.copy()
        if "page" not in changes:
            params.pop("page", None)
        for name, value in changes.items():
            params.pop(name, None)
            if value is not None and value != "":
                params[name] = str(value)
        query = urlencode(sorted(params.items()))
        return f"{self.path}?{query}" if query else self.path

    def sort_url(self, key: str) -> str:
        """Return the URL sorting by ``key``: ascending first, then flipping."""
        if key == self.sort:
            return self.url(sort=key if self.descending else f"-{key}")
        return self.url(sort=key)

    def filter_value(self, name: str) -> str:
        """Return the current value of filter ``name`` ("" when unset)."""
        return str(self.params.get(name, ""))
