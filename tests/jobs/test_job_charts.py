"""A job's page over time: its pods' pending → running timeline and its DRF share."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from core.models import Pod
from jobs.charts import drf_share_figure, pod_timeline_figure
from jobs.services import job_submit
from jobs.timeline import PodSpan, drf_share_steps, pod_span
from tests.scheduler.factories import make_node

T0 = datetime(2026, 1, 1, 12, tzinfo=UTC)


def _at(seconds: int) -> datetime:
    return T0 + timedelta(seconds=seconds)


def test_a_pods_span_reads_its_bind_from_the_podscheduled_condition() -> None:
    span = pod_span(
        name="p", phase="Running", created=_at(0), node_bound=True,
        conditions=[{"type": "PodScheduled", "status": "True",
                     "lastTransitionTime": "2026-01-01T12:00:05Z"}],
        start_time=_at(7), finish_time=None, deletion_time=None, requests={"cpu": 1000},
    )  # fmt: skip
    assert (span.scheduled, span.started, span.finished) == (_at(5), _at(7), None)


def test_an_unscheduled_pod_has_no_bind_and_a_bound_one_without_condition_its_start() -> None:
    waiting = pod_span(name="w", phase="Pending", created=_at(0), node_bound=False,
                       conditions=[{"type": "PodScheduled", "status": "False"}],
                       start_time=None, finish_time=None, deletion_time=None, requests={})  # fmt: skip
    assert waiting.scheduled is None
    bound = pod_span(name="b", phase="Succeeded", created=_at(0), node_bound=True, conditions=[],
                     start_time=_at(3), finish_time=_at(9), deletion_time=None, requests={})  # fmt: skip
    assert (bound.scheduled, bound.finished) == (_at(3), _at(9))


def test_the_drf_share_is_the_largest_fraction_held_at_each_instant() -> None:
    total = {"cpu": 10_000, "memory": 100, "pods": 10_000}
    spans = [
        PodSpan("a", "Succeeded", _at(0), _at(10), _at(11), _at(40), {"cpu": 2000, "memory": 10}),
        PodSpan("b", "Running", _at(0), _at(20), _at(21), None, {"cpu": 1000, "memory": 40}),
        PodSpan("c", "Pending", _at(0)),  # never bound: holds nothing
    ]
    steps = drf_share_steps(spans, total, since=_at(0), until=_at(60))
    assert steps.times == [_at(0), _at(10), _at(20), _at(40), _at(60)]
    assert steps.shares == [0.0, 0.2, 0.5, 0.4, 0.4]
    assert steps.dominant == ["", "cpu", "memory", "memory", "memory"]


def test_the_drf_share_starts_with_what_was_held_at_the_ranges_start() -> None:
    spans = [PodSpan("a", "Running", _at(0), _at(1), _at(2), None, {"cpu": 5000})]
    steps = drf_share_steps(spans, {"cpu": 10_000}, since=_at(30), until=_at(60))
    assert (steps.times, steps.shares) == ([_at(30), _at(60)], [0.5, 0.5])


def test_the_timeline_draws_a_bar_per_stage_each_pod_went_through() -> None:
    spans = [
        PodSpan("a", "Succeeded", _at(0), _at(10), _at(12), _at(40)),
        PodSpan("b", "Pending", _at(5)),  # still waiting at now
    ]
    fig = pod_timeline_figure(spans, now=_at(60))
    bars = {trace.name: trace for trace in fig.data}
    assert list(bars["pending"].y) == ["a", "b"]
    assert list(bars["pending"].x) == [10_000.0, 55_000.0]  # b pends until now
    assert list(bars["starting"].y) == ["a"]
    assert list(bars["running"].x) == [28_000.0]
    assert list(bars["running"].base) == [_at(12).isoformat()]
    assert fig.layout.xaxis.type == "date"


def test_the_share_figure_is_a_step_line_in_percent_naming_the_dominant_resource() -> None:
    spans = [PodSpan("a", "Running", _at(0), _at(10), _at(11), None, {"cpu": 2500})]
    fig = drf_share_figure(drf_share_steps(spans, {"cpu": 10_000}, since=_at(0), until=_at(20)))
    line = fig.data[0]
    assert list(line.y) == [0.0, 25.0, 25.0]
    assert list(line.customdata) == ["", "cpu", "cpu"]
    assert line.line.shape == "hv"


def _job(name: str) -> Any:
    return job_submit(manifest={
        "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"minAvailable": 1, "tasks": [{"name": "main", "replicas": 1, "template": {
            "spec": {"containers": [{"name": "main", "image": "busybox"}]}}}]},
    })  # fmt: skip


@pytest.mark.django_db
def test_a_job_with_pods_shows_its_timeline_and_share(console_login: Callable[..., Any]) -> None:
    node = make_node("n1", cpu=4)
    job = _job("train")
    Pod.objects.create(
        namespace="default", name="train-main-0", job=job, task_name="main", node=node,
        phase="Running", requests={"cpu": 2000}, cpu_milli=2000,
        start_time=datetime.now(UTC) - timedelta(minutes=5),
    )  # fmt: skip

    response = console_login("vic", "viewer", ("default",)).get("/jobs/default/train/")

    charts = response.context["charts"]
    assert [t["name"] for t in charts["timeline"]["data"]] == ["pending", "starting", "running"]
    share = charts["drf"]["data"][0]["y"]
    assert share[-1] == 50.0  # 2 of the node's 4 cores
    body = response.content.decode()
    assert 'data-figure="job-timeline-figure"' in body
    assert 'data-figure="job-drf-figure"' in body


@pytest.mark.django_db
def test_a_job_without_pods_shows_an_empty_state(console_login: Callable[..., Any]) -> None:
    _job("idle")
    body = console_login("vic", "viewer", ("default",)).get("/jobs/default/idle/").content.decode()
    assert "Nothing to draw yet: the job has no pods." in body
    assert 'data-figure="job-timeline-figure"' not in body
