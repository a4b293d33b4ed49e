"""Policy timeouts are Go durations, as Volcano's metav1.Duration reads them."""

from __future__ import annotations

import pytest

from apis.durations import format_duration, parse_duration


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("90s", 90.0), ("1m30s", 90.0), ("1.5h", 5400.0), ("500ms", 0.5), ("0", 0.0), ("-2m", -120.0)],
)
def test_go_durations_parse_to_seconds(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "5", "soon", "5 m", "1h-2m"])
def test_anything_else_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="invalid duration"):
        parse_duration(text)


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (300.0, "5m0s"),
        (90.0, "1m30s"),
        (3600.0, "1h0m0s"),
        (1.5, "1.5s"),
        (0.5, "500ms"),
        (0, "0s"),
    ],
)
def test_durations_are_written_as_go_writes_them(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text
