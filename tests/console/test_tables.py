"""Tables sort, filter and page from the URL, and every link keeps the other filters."""

from __future__ import annotations

from django.test import RequestFactory

from console.tables import Table

SORTS = {"name": ("name", "id"), "created": ("-created_at", "name")}


def _table(query: str) -> Table:
    return Table.from_request(RequestFactory().get(f"/jobs/?{query}"), sorts=SORTS, default="name")


def test_an_unknown_sort_falls_back_to_the_default() -> None:
    table = _table("sort=password")
    assert (table.sort, table.descending) == ("name", False)
    assert table.order_by == ["name", "id"]


def test_a_descending_sort_flips_every_field_of_the_sort() -> None:
    assert _table("sort=-created").order_by == ["created_at", "-name"]
    assert _table("sort=created").order_by == ["-created_at", "name"]


def test_sorting_by_the_current_column_flips_it_and_keeps_the_filters() -> None:
    table = _table("sort=name&phase=Running&page=3")
    assert table.sort_url("name") == "/jobs/?phase=Running&sort=-name"
    assert table.sort_url("created") == "/jobs/?phase=Running&sort=created"


def test_a_page_link_keeps_the_sort_and_filters() -> None:
    table = _table("sort=-name&queue=research")
    assert table.url(page=2) == "/jobs/?page=2&queue=research&sort=-name"
    assert table.url(queue=None) == "/jobs/?sort=-name"


def test_bad_page_numbers_and_sizes_fall_back() -> None:
    table = _table("page=abc&per_page=100000")
    assert (table.page_number, table.per_page) == (1, 50)
    assert _table("per_page=200").per_page == 200
