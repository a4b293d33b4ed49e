"""A kubelet tick with nothing due reads no pod: its queries do not grow with the running pods."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core.models import Node, Pod
from kubelet.runtime import RuntimeSettings, tick

CONFIG = RuntimeSettings(start_delay=1.0, default_duration=30.0, speed=1.0)
T0 = timezone.now()


def _running(count: int, *, offset: int = 0, run_until: bool = True) -> None:
    node, _ = Node.objects.get_or_create(name="n1", defaults={"allocatable": {}, "capacity": {}})
    Pod.objects.bulk_create(
        Pod(
            namespace="default",
            name=f"p{offset + i}",
            node=node,
            phase="Running",
            start_time=T0,
            running_since=T0,
            run_until=T0 + timedelta(seconds=60) if run_until else None,
            spec={"containers": [{"name": "main", "image": "busybox"}]},
            annotations={"volcano.sh/sim-duration": "60s"},
        )
        for i in range(count)
    )


def _steady_queries(count: int) -> int:
    """Return how many queries a steady tick over ``count`` running pods makes."""
    Pod.objects.all().delete()
    _running(count)
    with CaptureQueriesContext(connection) as queries:
        result = tick(now=T0 + timedelta(seconds=10), config=CONFIG)
    assert result.succeeded == result.started == result.acknowledged == 0
    return len(queries)


@pytest.mark.django_db
def test_a_steady_tick_makes_as_many_queries_over_ten_pods_as_over_two_hundred() -> None:
    assert _steady_queries(10) == _steady_queries(200)


@pytest.mark.django_db
def test_a_steady_tick_plans_its_timer_reads_on_the_timer_indexes() -> None:
    """Every due-time read searches an index instead of scanning every running pod."""
    _running(50)
    now = T0 + timedelta(seconds=10)
    live = Pod.objects.filter(deletion_time__isnull=True, node__ready=True).order_by()
    reads = {
        "pod_run_until": live.filter(phase="Running", run_until__lte=now),
        "pod_back_off_until": live.filter(phase="Running", back_off_until__lte=now),
        "pod_deletion_time": Pod.objects.filter(deletion_time__isnull=False).order_by(),
    }
    if connection.vendor != "sqlite":
        pytest.skip("the plan asserted is SQLite's (PostgreSQL plans by its statistics)")
    for index, queryset in reads.items():
        assert index in queryset.explain(), queryset.explain()


@pytest.mark.django_db
def test_pods_whose_time_is_up_still_end_and_a_pod_without_a_run_end_is_timed() -> None:
    _running(3)
    _running(2, offset=3, run_until=False)  # written by hand: timed from its annotation
    result = tick(now=T0 + timedelta(seconds=61), config=CONFIG)
    assert result.succeeded == 5
    assert set(Pod.objects.values_list("phase", flat=True)) == {"Succeeded"}


@pytest.mark.django_db
def test_pods_on_a_node_gone_not_ready_fail_and_others_run_on() -> None:
    _running(2)
    other = Node.objects.create(name="n2", allocatable={}, capacity={}, ready=False)
    Pod.objects.filter(name="p1").update(node=other)
    result = tick(now=T0 + timedelta(seconds=10), config=CONFIG)
    assert result.lost == 1
    assert dict(Pod.objects.values_list("name", "phase")) == {"p0": "Running", "p1": "Failed"}
