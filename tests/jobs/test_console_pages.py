"""The job console's pages as each role sees them: the list, a job's page, actions, Submit."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import yaml
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.models import Namespace, Pod
from jobs.models import Command, Job
from jobs.services import job_submit
from tests.jobs.manifests_kit import THREE_SCHEMA_ERRORS, TWO_ERRORS

pytestmark = pytest.mark.django_db

LIST = "/jobs/"


def _submit(name: str, namespace: str = "default", *, replicas: int = 1, phase: str = "") -> Job:
    Namespace.objects.get_or_create(name=namespace)  # as the API, submitting needs it
    job = job_submit(manifest={
        "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"minAvailable": 1, "tasks": [{"name": "main", "replicas": replicas, "template": {
            "spec": {"containers": [{"name": "main", "image": "busybox", "command": ["sleep", "5"]}]}}}]},
    })  # fmt: skip
    if phase:
        Job.objects.filter(pk=job.pk).update(phase=phase)
    return job


def _pods(job: Job, count: int) -> None:
    Pod.objects.bulk_create(
        Pod(namespace=job.namespace, name=f"{job.name}-main-{i}", job=job, task_name="main",
            task_index=i, phase="Running")
        for i in range(count)
    )  # fmt: skip


def _fragment(client: Any, url: str, target: str) -> str:
    response = client.get(url, headers={"HX-Request": "true", "HX-Target": target})
    assert response.status_code == 200
    return str(response.content.decode())


def test_a_viewer_lists_only_jobs_of_granted_namespaces(console_login: Callable[..., Any]) -> None:
    _submit("mine", "team-a")
    _submit("theirs", "team-b")
    body = console_login("vera", "viewer", ("team-a",)).get(LIST).content.decode()
    assert "mine" in body
    assert "theirs" not in body
    assert 'name="selected"' not in body  # a viewer gets no bulk actions


def test_filters_live_in_the_url_and_narrow_the_table(console_login: Callable[..., Any]) -> None:
    _submit("train-a", phase="Running")
    _submit("train-b", phase="Pending")
    _submit("infer", phase="Running")
    client = console_login("olga", "operator")
    body = _fragment(client, f"{LIST}?phase=Running&q=train", "jobs-table")
    assert body.lstrip().startswith('<section id="jobs-table"')
    assert "train-a" in body
    assert "train-b" not in body
    assert "infer" not in body


def test_mine_shows_the_jobs_the_user_submitted(console_login: Callable[..., Any]) -> None:
    client = console_login("sam", "submitter", ("default",))
    client.post("/submit/", {"mode": "yaml", "manifest": _manifest("by-sam")})
    _submit("by-someone-else")
    body = _fragment(client, f"{LIST}?mine=1", "jobs-table")
    assert "by-sam" in body
    assert "by-someone-else" not in body


def test_sorting_by_a_column_and_back(console_login: Callable[..., Any]) -> None:
    for name in ("bravo", "alpha", "charlie"):
        _submit(name)
    client = console_login("olga", "operator")
    ascending = _fragment(client, f"{LIST}?sort=name", "jobs-table")
    descending = _fragment(client, f"{LIST}?sort=-name", "jobs-table")
    assert ascending.index("alpha") < ascending.index("bravo") < ascending.index("charlie")
    assert descending.index("charlie") < descending.index("bravo") < descending.index("alpha")


def test_the_list_costs_the_same_queries_for_5_or_50_jobs(
    console_login: Callable[..., Any],
) -> None:
    client = console_login("olga", "operator")
    for i in range(5):
        _submit(f"few-{i}", phase="Pending")
    with CaptureQueriesContext(connection) as few:
        client.get(LIST)
    for i in range(45):
        _submit(f"many-{i}", phase="Pending")
    with CaptureQueriesContext(connection) as many:
        client.get(LIST)
    assert len(many) == len(few)


def test_bulk_abort_issues_one_command_per_job_and_reports_progress(
    console_login: Callable[..., Any],
) -> None:
    _submit("a", "team-a")
    _submit("b", "team-a")
    client = console_login("sam", "submitter", ("team-a",))
    response = client.post(
        "/jobs/bulk/", {"action": "abort", "selected": ["team-a/a", "team-a/b"]},
        headers={"HX-Request": "true"},
    )  # fmt: skip
    assert "2 of 2 done." in response.content.decode()
    assert sorted(Command.objects.values_list("target_name", "action")) == [
        ("a", "AbortJob"), ("b", "AbortJob")]  # fmt: skip


def test_bulk_refuses_jobs_outside_the_grants_and_writes_nothing_for_them(
    console_login: Callable[..., Any],
) -> None:
    _submit("ours", "team-a")
    _submit("theirs", "team-b")
    client = console_login("sam", "submitter", ("team-a",))
    response = client.post(
        "/jobs/bulk/", {"action": "delete", "selected": ["team-a/ours", "team-b/theirs"]},
        headers={"HX-Request": "true"},
    )  # fmt: skip
    body = response.content.decode()
    assert "1 of 2 done." in body
    assert "team-b/theirs" in body
    assert list(Job.objects.values_list("name", flat=True)) == ["theirs"]


def test_a_viewer_cannot_act_on_jobs(console_login: Callable[..., Any]) -> None:
    _submit("keep")
    client = console_login("vera", "viewer", ("default",))
    bulk = client.post("/jobs/bulk/", {"action": "abort", "selected": ["default/keep"]},
                       headers={"HX-Request": "true"})  # fmt: skip
    assert "0 of 1 done." in bulk.content.decode()
    assert client.post("/jobs/default/keep/action/", {"action": "delete"}).status_code == 403
    assert Job.objects.filter(name="keep").exists()
    assert not Command.objects.exists()


def test_a_jobs_page_shows_tasks_pods_and_its_manifest(console_login: Callable[..., Any]) -> None:
    job = _submit("train", replicas=3)
    _pods(job, 3)
    body = (
        console_login("vera", "viewer", ("default",)).get("/jobs/default/train/").content.decode()
    )
    assert "train-main-2" in body
    assert "3 Running" in body
    assert "apiVersion: batch.volcano.sh/v1alpha1" in body
    assert "Abort" not in body  # a viewer sees no actions


def test_a_job_of_another_namespace_is_not_found(console_login: Callable[..., Any]) -> None:
    _submit("hidden", "team-b")
    client = console_login("vera", "viewer", ("team-a",))
    assert client.get("/jobs/team-b/hidden/").status_code == 404


def test_a_jobs_page_costs_the_same_queries_for_5_or_100_pods(
    console_login: Callable[..., Any],
) -> None:
    client = console_login("olga", "operator")
    _pods(_submit("small", replicas=5), 5)
    _pods(_submit("large", replicas=100), 100)
    with CaptureQueriesContext(connection) as small:
        client.get("/jobs/default/small/", headers={"HX-Request": "true", "HX-Target": "job-body"})
    with CaptureQueriesContext(connection) as large:
        client.get("/jobs/default/large/", headers={"HX-Request": "true", "HX-Target": "job-body"})
    assert len(large) == len(small)


def test_a_submitter_restarts_a_job_from_its_page(console_login: Callable[..., Any]) -> None:
    _submit("train")
    client = console_login("sam", "submitter", ("default",))
    response = client.post("/jobs/default/train/action/", {"action": "restart"})
    assert response.status_code == 302
    assert list(Command.objects.values_list("action", flat=True)) == ["RestartJob"]


def _manifest(name: str, replicas: Any = 1) -> str:
    return yaml.safe_dump({
        "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"minAvailable": 1, "tasks": [{"name": "main", "replicas": replicas, "template": {
            "spec": {"containers": [{"name": "main", "image": "busybox"}]}}}]},
    }, sort_keys=False)  # fmt: skip


def test_submitting_the_form_creates_the_job_and_opens_its_page(
    console_login: Callable[..., Any],
) -> None:
    client = console_login("sam", "submitter", ("default",))
    form = {"mode": "form", "name": "from-form", "namespace": "default", "queue": "default",
            "priority_class": "", "min_available": "2", "max_retry": "3", "task": "worker",
            "replicas": "2", "image": "busybox:1.36", "command": "sleep 30", "cpu": "500m",
            "memory": "1Gi", "gpu": "0", "duration": "30s", "restart_on_eviction": "on"}  # fmt: skip
    preview = client.post("/submit/preview/", form).content.decode()
    assert yaml.safe_load(preview)["spec"]["tasks"][0]["replicas"] == 2
    response = client.post("/submit/", form)
    assert response.status_code == 302
    assert response["Location"] == "/jobs/default/from-form/"
    job = Job.objects.get(name="from-form")
    assert (job.min_available, job.creator) == (2, client.user)


def test_a_refused_yaml_keeps_the_text_and_names_the_field_and_line(
    console_login: Callable[..., Any],
) -> None:
    client = console_login("sam", "submitter", ("default",))
    text = _manifest("bad", replicas=-1)
    response = client.post("/submit/", {"mode": "yaml", "manifest": text})
    body = response.content.decode()
    assert response.status_code == 422
    assert "spec.tasks[0].replicas" in body
    assert f'data-line="{text.splitlines().index("  - name: main") + 2}"' in body
    assert "replicas: -1" in body  # the user's text is still there
    assert not Job.objects.exists()


def test_validation_as_you_type_is_a_dry_run(console_login: Callable[..., Any]) -> None:
    client = console_login("sam", "submitter", ("default",))
    ok = client.post("/submit/validate/", {"manifest": _manifest("fine")}).content.decode()
    broken = client.post("/submit/validate/", {"manifest": "spec: [unclosed"}).content.decode()
    assert "Valid" in ok
    assert "YAML:" in broken
    assert not Job.objects.exists()


def test_a_submitter_cannot_submit_outside_their_grants(console_login: Callable[..., Any]) -> None:
    client = console_login("sam", "submitter", ("default",))
    text = _manifest("elsewhere").replace("namespace: default", "namespace: team-b")
    response = client.post("/submit/", {"mode": "yaml", "manifest": text})
    assert response.status_code == 422
    assert "team-b" in response.content.decode()
    assert not Job.objects.exists()


def test_a_viewer_has_no_submit_page(console_login: Callable[..., Any]) -> None:
    assert console_login("vera", "viewer", ("default",)).get("/submit/").status_code == 403


def test_templates_come_from_the_projects_examples(console_login: Callable[..., Any]) -> None:
    client = console_login("sam", "submitter", ("default",))
    body = client.get("/submit/?mode=yaml&template=tensorflow-dist-mnist").content.decode()
    assert "tensorflow-dist-mnist" in body
    assert "kind: Job" in body


def test_a_deleted_jobs_link_says_who_deleted_it_and_when(
    console_login: Callable[..., Any],
) -> None:
    _submit("gone-soon")
    client = console_login("sam", "submitter", ("default",))
    assert client.post("/jobs/default/gone-soon/action/", {"action": "delete"}).status_code == 302
    page = client.get("/jobs/default/gone-soon/")
    assert page.status_code == 404
    body = page.content.decode()
    assert "Job gone-soon was deleted" in body
    assert "sam deleted the job default/gone-soon on " in body
    assert 'id="sidebar"' in body
    assert "audit log" not in body  # a submitter has no audit log to be sent to
    # A job never submitted, and a namespace the reader is not granted, are just not found.
    assert "was deleted" not in client.get("/jobs/default/never/").content.decode()
    other = console_login("olga", "viewer", ("elsewhere",))
    assert "was deleted" not in other.get("/jobs/default/gone-soon/").content.decode()
    operator = console_login("oscar", "operator", ("default",))
    assert (
        "Its entries in the audit log" in operator.get("/jobs/default/gone-soon/").content.decode()
    )


def test_validation_lists_every_problem_each_at_its_line(
    console_login: Callable[..., Any],
) -> None:
    client = console_login("sam", "submitter", ("default",))
    page = client.post("/submit/validate/", {"manifest": TWO_ERRORS}).content.decode()
    assert "2 problems" in page
    assert 'data-line="5"' in page
    assert 'data-line="7"' in page


def test_schema_mistakes_are_all_marked_not_only_the_first(
    console_login: Callable[..., Any],
) -> None:
    client = console_login("sam", "submitter", ("default",))
    page = client.post("/submit/validate/", {"manifest": THREE_SCHEMA_ERRORS}).content.decode()
    assert "3 problems" in page
    for line in (5, 6, 7):
        assert f'data-line="{line}"' in page
    # Submitting it creates nothing.
    assert (
        client.post("/submit/", {"mode": "yaml", "manifest": THREE_SCHEMA_ERRORS}).status_code
        == 422
    )
    assert not Job.objects.filter(name="three-errors").exists()


def test_the_form_and_the_yaml_carry_the_job_both_ways(console_login: Callable[..., Any]) -> None:
    client = console_login("sam", "submitter", ("default",))
    form = {"mode": "form", "name": "both-ways", "namespace": "default", "queue": "default",
            "priority_class": "", "min_available": "2", "max_retry": "3", "task": "worker",
            "replicas": "2", "image": "busybox:1.36", "command": "sleep 30", "cpu": "500m",
            "memory": "1Gi", "gpu": "0", "duration": "30s", "restart_on_eviction": "on"}  # fmt: skip

    to_yaml = client.post("/submit/", {**form, "switch": "yaml"})
    text = to_yaml.context["text"]
    assert to_yaml.context["mode"] == "yaml"
    assert yaml.safe_load(text)["spec"]["tasks"][0]["replicas"] == 2

    edited = text.replace("replicas: 2", "replicas: 4") + "  plugins: {ssh: []}\n"
    back = client.post("/submit/", {"mode": "yaml", "manifest": edited, "switch": "form"})
    assert back.context["mode"] == "form"
    assert back.context["form"]["replicas"].value() == "4"
    assert back.context["form"]["command"].value() == "sleep 30"
    assert back.context["lost"] == ["spec.plugins"]
    assert "spec.plugins" in back.content.decode()
    assert not Job.objects.exists()  # switching never submits


def test_a_manifest_the_form_cannot_hold_stays_in_the_editor(
    console_login: Callable[..., Any],
) -> None:
    client = console_login("sam", "submitter", ("default",))
    two_tasks = yaml.safe_load(_manifest("two"))
    two_tasks["spec"]["tasks"].append({**two_tasks["spec"]["tasks"][0], "name": "other"})

    response = client.post(
        "/submit/", {"mode": "yaml", "manifest": yaml.safe_dump(two_tasks), "switch": "form"}
    )

    assert response.status_code == 422
    assert response.context["mode"] == "yaml"
    assert "opens in the form" in response.content.decode()


def test_a_big_jobs_page_draws_its_pods_a_page_at_a_time(
    console_login: Callable[..., Any],
) -> None:
    client = console_login("olga", "operator")
    _pods(_submit("big", replicas=150), 150)
    first = client.get("/jobs/default/big/").content.decode()
    with CaptureQueriesContext(connection) as queries_first:
        client.get("/jobs/default/big/")
    with CaptureQueriesContext(connection) as queries_second:
        second = client.get("/jobs/default/big/?pods_page=2").content.decode()
    assert first.count('<details id="log-') == 100
    assert "pods 1\u2013100 of 150" in first
    assert "pods_page=2" in first
    assert second.count('<details id="log-') == 50
    assert "pods 101\u2013150 of 150" in second
    assert len(queries_second) == len(queries_first)
