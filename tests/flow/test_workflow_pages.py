"""The console's workflow pages as each role sees them: the flows with their progress, a flow's
DAG following its jobs, the cron jobs with their next run, and the cron job actions."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import Any

import pytest

from flow.controller.cronjob import reconcile_cron_jobs
from flow.controller.jobflow import reconcile_job_flows
from flow.models import CronJob, JobFlow
from jobs.models import Job
from tests.flow.kit import NOW, cron_job, flow, set_phase, template

pytestmark = pytest.mark.django_db


def _chain(name: str = "pipe") -> JobFlow:
    for step in ("prepare", "train", "evaluate"):
        if not JobFlow.objects.exists():
            template(step)
    return flow(name, [{"name": "prepare"},
                       {"name": "train", "dependsOn": {"targets": ["prepare"]}},
                       {"name": "evaluate", "dependsOn": {"targets": ["train"]}}])  # fmt: skip


def _states(body: str) -> dict[str, str]:
    return dict(re.findall(r'data-step="([^"]+)" data-state="([^"]+)"', body))


def test_the_workflows_list_shows_each_flow_with_its_progress(
    console_login: Callable[..., Any],
) -> None:
    _chain()
    reconcile_job_flows(NOW)
    set_phase("pipe-prepare", "Completed")
    reconcile_job_flows(NOW)
    body = console_login("vera", "viewer", ("default",)).get("/workflows/").content.decode()
    assert 'href="/workflows/default/pipe/"' in body
    assert "1 of 3 steps" in body
    assert "Running" in body
    assert "Jobs made from it" in body
    assert "pipe-prepare" in body
    assert "Submit a JobFlow" not in body  # a viewer is not offered what it may not do


def test_an_empty_list_tells_a_newcomer_what_a_jobflow_is(
    console_login: Callable[..., Any],
) -> None:
    body = console_login("sam", "submitter", ("default",)).get("/workflows/").content.decode()
    assert "No JobFlows yet" in body
    assert "Start from Volcano" in body


def test_a_flows_dag_follows_its_jobs_step_by_step(console_login: Callable[..., Any]) -> None:
    _chain()
    client = console_login("vera", "viewer", ("default",))
    url = "/workflows/default/pipe/"
    assert _states(client.get(url).content.decode()) == {
        "prepare": "Waiting", "train": "Waiting", "evaluate": "Waiting"}  # fmt: skip
    reconcile_job_flows(NOW)
    set_phase("pipe-prepare", "Running")
    reconcile_job_flows(NOW)
    fragment = client.get(url, headers={"HX-Request": "true", "HX-Target": "flow-body"})
    body = fragment.content.decode()
    assert body.lstrip().startswith('<div id="flow-body"')
    assert _states(body) == {"prepare": "Running", "train": "Waiting", "evaluate": "Waiting"}
    assert 'href="/jobs/default/pipe-prepare/"' in body
    set_phase("pipe-prepare", "Completed")
    reconcile_job_flows(NOW)
    set_phase("pipe-train", "Completed")
    reconcile_job_flows(NOW)
    assert _states(client.get(url).content.decode())["evaluate"] == "Pending"
    assert 'data-from="prepare" data-to="train"' in body


def test_a_flow_in_a_namespace_not_granted_is_not_found(console_login: Callable[..., Any]) -> None:
    _chain()
    client = console_login("nina", "viewer", ("other",))
    assert client.get("/workflows/default/pipe/").status_code == 404


def test_only_a_writer_deletes_a_flow_and_its_jobs_go_with_it(
    console_login: Callable[..., Any],
) -> None:
    _chain()
    reconcile_job_flows(NOW)
    viewer = console_login("vera", "viewer", ("default",))
    assert "Delete" not in viewer.get("/workflows/default/pipe/").content.decode()
    assert viewer.post("/workflows/default/pipe/delete/").status_code == 403
    submitter = console_login("sam", "submitter", ("default",))
    assert submitter.post("/workflows/default/pipe/delete/").status_code == 302
    assert not JobFlow.objects.exists()


def test_the_cron_jobs_list_says_the_schedule_in_words_and_the_next_run(
    console_login: Callable[..., Any],
) -> None:
    cron_job("report", "*/5 * * * *")
    cron_job("nightly", "30 2 * * *", suspend=True)
    body = console_login("vera", "viewer", ("default",)).get("/cronjobs/").content.decode()
    assert "every 5 minutes" in body
    assert "every day at 02:30" in body
    assert "Suspended" in body
    assert "in " in body  # the next run of the one that is not suspended
    assert "Run now" not in body


def test_a_submitter_suspends_resumes_and_runs_a_cron_job_now(
    console_login: Callable[..., Any],
) -> None:
    cron_job("report", "*/5 * * * *")
    client = console_login("sam", "submitter", ("default",))
    action = "/cronjobs/default/report/action/"
    client.post(action, {"action": "suspend"})
    assert CronJob.objects.get().suspend is True
    client.post(action, {"action": "resume"})
    assert CronJob.objects.get().suspend is False
    client.post(action, {"action": "run"})
    job = Job.objects.get()
    assert job.name.startswith("report-manual-")
    body = client.get("/cronjobs/default/report/").content.decode()
    assert job.name in body
    assert "run by hand" in body
    viewer = console_login("vera", "viewer", ("default",))
    assert viewer.post(action, {"action": "run"}).status_code == 403
    assert Job.objects.count() == 1


def test_a_cron_jobs_page_lists_its_active_jobs_and_history(
    console_login: Callable[..., Any],
) -> None:
    cron = cron_job("tick", "*/5 * * * *")
    CronJob.objects.filter(pk=cron.pk).update(created_at=NOW)
    reconcile_cron_jobs(NOW + dt.timedelta(minutes=5))
    first = Job.objects.get().name
    set_phase(first, "Completed")
    reconcile_cron_jobs(NOW + dt.timedelta(minutes=10))
    client = console_login("vera", "viewer", ("default",))
    fragment = client.get(
        "/cronjobs/default/tick/", headers={"HX-Request": "true", "HX-Target": "cron-body"}
    )
    body = fragment.content.decode()
    active = body.split('id="active-jobs"')[1].split("</table>")[0]
    history = body.split('id="history"')[1].split("</table>")[0]
    assert first in history
    assert first not in active
    assert "SuccessfulCreate" in body
