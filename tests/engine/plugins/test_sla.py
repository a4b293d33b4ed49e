"""SLA plugin: deadline-first job order, and overdue jobs are let through."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.types import PodGroupPhase
from scheduler.engine.conf import load_conf
from scheduler.engine.framework import open_session, run_session
from scheduler.engine.plugins.sla import SlaPlugin, parse_duration
from tests.engine.builders import T0, build_cluster, build_node, gang, res


def sla_conf(waiting: str | None = None, *, second_tier: str = "") -> str:
    arguments = "" if waiting is None else f"\n    arguments:\n      sla-waiting-time: {waiting}"
    text = f'actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: sla{arguments}\n'
    if second_tier:
        text += f"- plugins:\n  - name: {second_tier}\n"
    return text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3m", timedelta(minutes=3)),
        ("1h30m", timedelta(hours=1, minutes=30)),
        ("1.5h", timedelta(hours=1, minutes=30)),
        ("90s", timedelta(seconds=90)),
        ("250ms", timedelta(milliseconds=250)),
        ("0", timedelta(0)),
        ("10", None),
        ("3 minutes", None),
        ("", None),
    ],
)
def test_go_durations(text: str, expected: timedelta | None) -> None:
    assert parse_duration(text) == expected


def annotated(name: str, minutes: int, waiting: str | None, **kwargs: Any) -> JobInfo:
    job = gang(name, 1, minutes=minutes, **kwargs)
    if waiting is not None:
        job.annotations["sla-waiting-time"] = waiting
    return job


def test_jobs_with_a_waiting_time_go_before_jobs_without():
    plain, urgent = annotated("plain", 0, None), annotated("urgent", 10, "30m")
    cluster = build_cluster(
        [build_node("n1", cpu="1")], [plain, urgent], now=T0 + timedelta(hours=1)
    )
    assert run_session(cluster, load_conf(sla_conf())).binds == {"ns/urgent-task-0": "n1"}


def test_earlier_deadline_first_with_the_argument_as_default():
    old, hurried = annotated("old", 0, None), annotated("hurried", 20, "5m")
    cluster = build_cluster(
        [build_node("n1", cpu="1")], [old, hurried], now=T0 + timedelta(hours=1)
    )
    ssn = open_session(cluster, load_conf(sla_conf("1h")))
    assert ssn.job_order_fn(hurried, old)


def test_invalid_or_non_positive_annotations_are_ignored():
    bad, negative = annotated("bad", 0, "soon"), annotated("negative", 0, "-5m")
    cluster = build_cluster([build_node("n1")], [bad, negative], now=T0 + timedelta(hours=1))
    ssn = open_session(cluster, load_conf(sla_conf()))
    plugin = ssn.plugins["sla"]
    assert isinstance(plugin, SlaPlugin)
    assert plugin.waiting_time(bad) is None
    assert plugin.waiting_time(negative) is None


def test_overdue_job_is_permitted_past_a_later_tier_reject():
    overdue = annotated(
        "overdue", 0, "10m", phase=PodGroupPhase.PENDING, min_resources=res(cpu="10")
    )
    patient = annotated(
        "patient", 30, "2h", phase=PodGroupPhase.PENDING, min_resources=res(cpu="10")
    )
    cluster = build_cluster(
        [build_node("n1", cpu="4")], [overdue, patient], now=T0 + timedelta(hours=1)
    )
    decisions = run_session(cluster, load_conf(sla_conf(second_tier="overcommit")))
    assert decisions.enqueued == ["ns/overdue"]


def test_the_clock_is_the_snapshot_not_the_wall():
    job = annotated("j", 0, "10m", phase=PodGroupPhase.PENDING, min_resources=res(cpu="10"))
    early = build_cluster([build_node("n1", cpu="4")], [job], now=T0 + timedelta(minutes=9))
    decisions = run_session(early, load_conf(sla_conf(second_tier="overcommit")))
    assert decisions.enqueued == []
