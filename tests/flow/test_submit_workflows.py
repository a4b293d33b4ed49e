"""The Submit page takes JobTemplates, JobFlows and CronJobs, one or several in one text, and
offers Volcano's JobFlow and CronJob examples."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from flow.apps import EXAMPLES_DIR
from flow.models import CronJob, JobFlow, JobTemplate

pytestmark = pytest.mark.django_db


def test_the_examples_are_offered_and_volcanos_jobflow_example_submits_whole(
    console_login: Callable[..., Any],
) -> None:
    client = console_login("sam", "submitter", ("default",))
    page = client.get("/submit/?mode=yaml").content.decode()
    assert "template=jobflow-diamond" in page
    assert "template=cronjob" in page
    editor = client.get("/submit/?template=jobflow-diamond").content.decode()
    assert "kind: JobFlow" in editor
    text = (EXAMPLES_DIR / "jobflow-diamond.yaml").read_text()
    answer = client.post("/submit/", {"mode": "yaml", "manifest": text})
    assert answer.status_code == 302
    assert answer["Location"] == "/workflows/default/test/"
    assert sorted(JobTemplate.objects.values_list("name", flat=True)) == list("abcde")
    assert JobFlow.objects.get().job_retain_policy == "delete"


def test_the_cron_job_example_opens_its_page(console_login: Callable[..., Any]) -> None:
    client = console_login("sam", "submitter", ("default",))
    text = (EXAMPLES_DIR / "cronjob.yaml").read_text()
    answer = client.post("/submit/", {"mode": "yaml", "manifest": text})
    assert answer["Location"] == "/cronjobs/default/volcano-cronjob-example/"
    assert CronJob.objects.get().concurrency_policy == "Forbid"


def test_one_bad_document_creates_none_of_them_and_is_named_at_its_line(
    console_login: Callable[..., Any],
) -> None:
    client = console_login("sam", "submitter", ("default",))
    text = (
        (EXAMPLES_DIR / "jobflow-diamond.yaml")
        .read_text()
        .replace("targets: ['c','d']", "targets: ['c','nowhere']")
    )
    answer = client.post("/submit/", {"mode": "yaml", "manifest": text})
    assert answer.status_code == 422
    body = answer.content.decode()
    assert "jobflow Flow is not DAG: vertex is not defined: nowhere" in body
    assert not JobTemplate.objects.exists()
    assert not JobFlow.objects.exists()


def test_validation_while_typing_names_a_bad_schedule(console_login: Callable[..., Any]) -> None:
    client = console_login("sam", "submitter", ("default",))
    text = (EXAMPLES_DIR / "cronjob.yaml").read_text().replace('"*/5 * * * *"', '"every tuesday"')
    body = client.post("/submit/validate/", {"manifest": text}).content.decode()
    assert "schedule is not a valid cron expression" in body
    assert not CronJob.objects.exists()


def test_a_viewer_may_not_submit_a_flow(console_login: Callable[..., Any]) -> None:
    client = console_login("vera", "viewer", ("default",))
    text = (EXAMPLES_DIR / "cronjob.yaml").read_text()
    assert client.post("/submit/", {"mode": "yaml", "manifest": text}).status_code == 403
    assert not CronJob.objects.exists()
