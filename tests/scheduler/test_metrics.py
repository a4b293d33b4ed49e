"""/metrics: Volcano's series, names, labels and buckets, changing as sessions run."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from apis.histograms import exp_range
from core.models import Pod
from core.namespaces import ensure_namespaces
from jobs.models import Job
from jobs.services import job_act, job_submit
from queues.models import PodGroup
from scheduler.metrics import load_state
from scheduler.worker import run_once
from tests.scheduler.factories import make_gang, make_node, make_queue

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_state() -> None:
    cache.clear()


def scrape() -> dict[str, list[Any]]:
    response = Client().get("/metrics")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    families: dict[str, list[Any]] = {}
    for family in text_string_to_metric_families(response.content.decode()):
        families.setdefault(family.name, []).extend(family.samples)
    return families


def value(samples: list[Any], name: str, **labels: str) -> float:
    for sample in samples:
        if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
            return float(sample.value)
    raise KeyError(f"{name} {labels}")


def test_buckets_are_volcanos_exponential_ranges() -> None:
    buckets = exp_range(1, 5000, 20)
    assert len(buckets) == 20
    assert buckets[0] == pytest.approx(1)
    assert buckets[-1] == pytest.approx(5000)
    assert buckets[1] / buckets[0] == pytest.approx(buckets[2] / buckets[1])


def test_session_latencies_appear_and_count_each_session() -> None:
    make_node("n1")
    make_gang("g", replicas=2)
    run_once(reconcile=False)
    run_once(reconcile=False)

    m = scrape()

    e2e = m["volcano_e2e_scheduling_latency_milliseconds"]
    assert value(e2e, "volcano_e2e_scheduling_latency_milliseconds_count") == 2
    assert len([s for s in e2e if s.name.endswith("_bucket")]) == 21  # 20 bounds and +Inf
    action = m["volcano_action_scheduling_latency_milliseconds"]
    assert (
        value(action, "volcano_action_scheduling_latency_milliseconds_count", action="allocate")
        == 2
    )
    plugin = m["volcano_plugin_scheduling_latency_milliseconds"]
    assert value(plugin, "volcano_plugin_scheduling_latency_milliseconds_count", plugin="gang",
                 OnSession="OnSessionOpen") == 2  # fmt: skip
    tasks = m["volcano_task_scheduling_latency_milliseconds"]
    assert value(tasks, "volcano_task_scheduling_latency_milliseconds_count", stage="Bound") == 2
    jobs = m["volcano_e2e_job_scheduling_latency_milliseconds"]
    assert value(jobs, "volcano_e2e_job_scheduling_latency_milliseconds_count") == 1


def test_unschedulable_jobs_and_tasks_are_gauges_of_the_last_session() -> None:
    make_node("n1", cpu=2)
    make_gang("big", replicas=4)
    run_once(reconcile=False)

    m = scrape()

    assert value(m["volcano_unschedule_job_count"], "volcano_unschedule_job_count") == 1
    assert (
        value(m["volcano_unschedule_task_count"], "volcano_unschedule_task_count", job_id="big")
        == 4
    )
    Pod.objects.all().delete()  # the job went away: no longer unschedulable
    PodGroup.objects.all().delete()
    run_once(reconcile=False)
    assert value(scrape()["volcano_unschedule_job_count"], "volcano_unschedule_job_count") == 0


def test_queue_series_follow_the_rows() -> None:
    make_node("n1", cpu=8)
    make_queue("q1", weight=3)
    make_gang("g", replicas=2, queue="q1")
    run_once(reconcile=False)

    m = scrape()

    allocated = m["volcano_queue_allocated_milli_cpu"]
    assert value(allocated, "volcano_queue_allocated_milli_cpu", queue_name="q1") == 2000
    assert value(m["volcano_queue_weight"], "volcano_queue_weight", queue_name="q1") == 3
    deserved = value(m["volcano_queue_deserved_milli_cpu"], "volcano_queue_deserved_milli_cpu",
                     queue_name="q1")  # fmt: skip
    assert deserved == 2000  # all it asks for: nobody else wants the cluster
    counts = m["volcano_queue_pod_group_inqueue_count"]
    assert value(counts, "volcano_queue_pod_group_inqueue_count", queue_name="q1") == 1
    assert value(m["volcano_job_share"], "volcano_job_share", job_ns="default", job_id="g") > 0


def test_metrics_need_no_login_and_name_only_volcano_and_client_go_series() -> None:
    names = set(scrape())
    assert names
    # client-go's rest_client_* come with Volcano's components too (its benchmark plots them)
    assert all(name.startswith(("volcano_", "rest_client_")) for name in names)


def test_counters_keep_volcanos_exact_names_for_its_dashboards() -> None:
    make_node("n1")
    make_gang("g", replicas=1)
    run_once(reconcile=False)

    text = Client().get("/metrics").content.decode()

    assert "# TYPE volcano_total_preemption_attempts counter" in text
    assert "\nvolcano_total_preemption_attempts 0.0\n" in text
    assert "volcano_total_preemption_attempts_total" not in text
    assert "# TYPE volcano_job_completed_phase_count counter" in text


def test_stage_watched_counts_each_pod_once_even_if_created_while_a_session_ran() -> None:
    make_node("n1", cpu=1)
    make_gang("big", replicas=3)  # never fits: the pods stay pending, seen by every session
    created = timezone.now()
    run_once(reconcile=False, now=created - timedelta(seconds=1))  # began before they existed
    run_once(reconcile=False, now=created + timedelta(seconds=5))
    run_once(reconcile=False, now=created + timedelta(seconds=6))

    tasks = scrape()["volcano_task_scheduling_latency_milliseconds"]
    name = "volcano_task_scheduling_latency_milliseconds"
    assert value(tasks, f"{name}_count", stage="Watched") == 3
    assert value(tasks, f"{name}_sum", stage="Watched") >= 3 * 5000  # seen 5 s after creation


def _job_series(m: dict[str, list[Any]], job: str) -> dict[str, float]:
    """Return the per-job series naming ``job``'s PodGroup (``<job>-<uid>``), by metric."""
    out: dict[str, float] = {}
    for samples in m.values():
        for sample in samples:
            named = sample.labels.get("job_name") or sample.labels.get("job_id") or ""
            if named.startswith(f"{job}-"):
                out[sample.name] = float(sample.value)
    return out


def _submit(name: str, replicas: int, cpu: str = "1") -> None:
    container = {"name": "main", "image": "busybox",
                 "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}}}  # fmt: skip
    job_submit(manifest={
        "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"minAvailable": replicas, "queue": "default", "tasks": [
            {"name": "worker", "replicas": replicas, "template": {"spec": {
                "containers": [container], "restartPolicy": "Never"}}}]},
    })  # fmt: skip


def test_a_job_placed_in_its_first_session_reports_its_real_duration() -> None:
    ensure_namespaces(["default"])
    make_node("n1", cpu=4)
    user = Client()
    user.force_login(User.objects.create_superuser("metrics-user", "u@example.com", "pw"))
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "solo"},
           "spec": {"schedulerName": "volcano", "containers": [
               {"name": "main", "image": "busybox",
                "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}  # fmt: skip
    created = user.post("/api/v1/namespaces/default/pods", pod, content_type="application/json")
    assert created.status_code == 201, created.content

    # One session: the PodGroup controller gives the pod its group (podgroup-<uid>), and
    # the same session enqueues and places it.
    run_once()

    assert Pod.objects.get(name="solo").node is not None
    series = _job_series(scrape(), "podgroup")
    assert series["volcano_e2e_job_scheduling_duration"] > 0
    assert (
        series["volcano_e2e_job_scheduling_last_time"]
        > (series["volcano_e2e_job_scheduling_start_time"])
    )


def test_a_deleted_jobs_series_go_at_the_next_scrape() -> None:
    ensure_namespaces(["default"])
    make_node("n1", cpu=2)
    _submit("held", replicas=1)
    _submit("waits", replicas=4)  # never fits: its unschedulable tasks are counted
    for _ in range(3):
        run_once()
    before = scrape()
    assert {"volcano_e2e_job_scheduling_duration", "volcano_job_share"} <= set(
        _job_series(before, "held")
    )
    assert "volcano_unschedule_task_count" in _job_series(before, "waits")

    admin = User.objects.create_superuser("metrics-admin", "m@example.com", "pw")
    for job in Job.objects.filter(name__in=("held", "waits")):
        job_act(job=job, action="delete", user=admin)

    after = scrape()  # no session ran since: the scrape leaves them out
    assert _job_series(after, "held") == {}
    assert _job_series(after, "waits") == {}
    run_once()  # and the session forgets them for good
    assert load_state().job_names() == set()
