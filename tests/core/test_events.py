"""Events as Kubernetes names them: ``<object>.<nanoseconds in hex>``, distinct per namespace."""

from __future__ import annotations

import datetime as dt

import pytest

from core.events import record_event
from core.models import Event
from tests.scheduler.factories import make_gang

pytestmark = pytest.mark.django_db


def test_events_recorded_at_one_instant_about_one_object_have_distinct_names() -> None:
    group, _pods = make_gang("trainer", replicas=1)
    now = dt.datetime(2026, 11, 28, 9, 0, tzinfo=dt.UTC)
    for reason in ("Created", "Started", "Scheduled"):
        record_event(group, kind="PodGroup", reason=reason, message=reason.lower(), now=now)
    names = list(Event.objects.values_list("name", flat=True))
    assert len(set(names)) == 3
    assert all(name.startswith("trainer.") for name in names)
    assert all(int(name.split(".")[1], 16) // 1000 == int(now.timestamp() * 1e6) for name in names)
