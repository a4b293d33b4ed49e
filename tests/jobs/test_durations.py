"""Policy timeouts are Go durations, as Volcano's metav1.Duration reads them."""

from __future__ import annotations

import pytest

from scheduler.engine.util.durations import parse_duration


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
