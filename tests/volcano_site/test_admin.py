"""The admin: every model's pages load for a superuser and send anonymous users to log in."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin
from django.test import Client
from django.urls import reverse

from core.models import Node, Pod
from jobs.models import Command, CommandAction, Job, PodEviction
from queues.models import Queue, QueueState
from scheduler.models import SchedulerConfiguration

pytestmark = pytest.mark.django_db

APP_MODELS = sorted(
    (model._meta.app_label, model._meta.model_name)
    for model in admin.site._registry
    if model._meta.app_label in ("scheduler", "queues", "jobs", "core", "training")
)


def test_every_model_of_the_apps_is_in_the_admin() -> None:
    names = {name for _, name in APP_MODELS}
    assert names >= {
        "queue",
        "priorityclass",
        "job",
        "podgroup",
        "pod",
        "node",
        "schedulerconfiguration",
        "command",
        "event",
        "sessionrecord",
    }


@pytest.mark.parametrize(("app", "model"), APP_MODELS, ids=lambda v: str(v))
@pytest.mark.parametrize("page", ["changelist", "add"])
def test_admin_page_loads_for_superuser(
    superuser_client: Client, app: str, model: str, page: str
) -> None:
    response = superuser_client.get(reverse(f"admin:{app}_{model}_{page}"))
    model_admin = next(
        a for m, a in admin.site._registry.items()
        if (m._meta.app_label, m._meta.model_name) == (app, model)
    )  # fmt: skip
    # A record nobody adds by hand (session records) refuses its add page.
    addable = page != "add" or model_admin.has_add_permission(response.wsgi_request)
    assert response.status_code == (200 if addable else 403)


@pytest.mark.parametrize(("app", "model"), APP_MODELS, ids=lambda v: str(v))
def test_admin_page_redirects_anonymous_user_to_login(client: Client, app: str, model: str) -> None:
    response = client.get(reverse(f"admin:{app}_{model}_changelist"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))


def test_change_pages_show_stored_objects(superuser_client: Client) -> None:
    job = Job.objects.create(name="train")
    job.tasks.create(index=0, name="worker", replicas=2)
    Pod.objects.create(name="train-worker-0", job=job, node=Node.objects.create(name="n1"))
    response = superuser_client.get(reverse("admin:jobs_job_change", args=[job.pk]))
    assert response.status_code == 200
    assert b"train-worker-0" in response.content  # pods inline
    assert b"worker" in response.content  # tasks inline
    queue = Queue.objects.get(name="default")
    assert (
        superuser_client.get(reverse("admin:queues_queue_change", args=[queue.pk])).status_code
        == 200
    )
    active = SchedulerConfiguration.objects.get(is_active=True)
    response = superuser_client.get(
        reverse("admin:scheduler_schedulerconfiguration_change", args=[active.pk])
    )
    assert response.status_code == 200
    assert b"enqueue, allocate, backfill" in response.content


def test_default_queue_has_no_delete_in_admin(superuser_client: Client) -> None:
    queue = Queue.objects.get(name="default")
    response = superuser_client.get(reverse("admin:queues_queue_delete", args=[queue.pk]))
    assert response.status_code == 403
    assert Queue.objects.filter(name="default").exists()


def test_bulk_delete_in_admin_including_default_is_refused(superuser_client: Client) -> None:
    Queue.objects.create(name="batch")
    ids = list(Queue.objects.values_list("pk", flat=True))
    response = superuser_client.post(
        reverse("admin:queues_queue_changelist"),
        {"action": "delete_selected", "_selected_action": ids, "post": "yes"},
    )
    assert response.status_code == 403
    assert sorted(Queue.objects.values_list("name", flat=True)) == ["batch", "default", "root"]


def test_bulk_delete_in_admin_of_other_queues_works(superuser_client: Client) -> None:
    batch = Queue.objects.create(name="batch")
    response = superuser_client.post(
        reverse("admin:queues_queue_changelist"),
        {"action": "delete_selected", "_selected_action": [batch.pk], "post": "yes"},
    )
    assert response.status_code == 302
    assert list(Queue.objects.values_list("name", flat=True)) == ["default", "root"]


def post_action(client: Client, url: str, action: str, ids: list[Any]) -> None:
    """Run an admin bulk action on ``ids``."""
    response = client.post(url, {"action": action, "_selected_action": ids}, follow=True)
    assert response.status_code == 200


def test_close_and_open_queue_actions(superuser_client: Client) -> None:
    queue = Queue.objects.create(name="batch")
    url = reverse("admin:queues_queue_changelist")
    post_action(superuser_client, url, "close_queues", [queue.pk])
    queue.refresh_from_db()
    assert queue.state == QueueState.CLOSED
    post_action(superuser_client, url, "open_queues", [queue.pk])
    queue.refresh_from_db()
    assert queue.state == QueueState.OPEN


def test_abort_and_resume_actions_issue_commands(superuser_client: Client, superuser: Any) -> None:
    job = Job.objects.create(name="train")
    url = reverse("admin:jobs_job_changelist")
    post_action(superuser_client, url, "abort_jobs", [job.pk])
    post_action(superuser_client, url, "resume_jobs", [job.pk])
    commands = Command.objects.order_by("created_at", "pk")
    assert [c.action for c in commands] == [CommandAction.ABORT_JOB, CommandAction.RESUME_JOB]
    assert all(c.target_name == "train" and c.target_uid == job.uid for c in commands)
    assert all(c.issuer == superuser and not c.processed for c in commands)
    job.refresh_from_db()
    assert job.phase == ""  # the controller, not the admin, moves the job


def test_queue_form_takes_quantities(superuser_client: Client) -> None:
    response = superuser_client.post(
        reverse("admin:queues_queue_add"),
        {
            "name": "gpu",
            "weight": 2,
            "capability": "cpu=8, nvidia.com/gpu=4",
            "deserved": "",
            "guarantee": "",
            "reclaimable": "on",
            "parent": "",
            "priority": 0,
            "dequeue_strategy": "traverse",
            "labels": "{}",
            "annotations": "{}",
        },
    )
    assert response.status_code == 302, response.content[:2000]
    assert Queue.objects.get(name="gpu").capability == {"cpu": 8000, "nvidia.com/gpu": 4000}


def test_queue_form_refuses_a_bad_quantity_and_writes_nothing(superuser_client: Client) -> None:
    response = superuser_client.post(
        reverse("admin:queues_queue_add"),
        {
            "name": "gpu",
            "weight": 1,
            "capability": "cpu=lots",
            "priority": 0,
            "dequeue_strategy": "traverse",
            "labels": "{}",
            "annotations": "{}",
        },
    )
    assert response.status_code == 200
    assert b"lots" in response.content
    assert not Queue.objects.filter(name="gpu").exists()


def test_adding_a_configuration_stores_the_next_version_inactive(
    superuser_client: Client, superuser: Any
) -> None:
    text = 'actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n'
    response = superuser_client.post(
        reverse("admin:scheduler_schedulerconfiguration_add"),
        {"text": text, "comment": "no backfill"},
    )
    assert response.status_code == 302
    stored = SchedulerConfiguration.objects.get(version=2)
    assert (stored.text, stored.author, stored.is_active) == (text, superuser, False)


def test_adding_a_configuration_the_engine_refuses_shows_the_field(
    superuser_client: Client,
) -> None:
    response = superuser_client.post(
        reverse("admin:scheduler_schedulerconfiguration_add"),
        {"text": 'actions: "allocate"\ntiers:\n- plugins:\n  - name: nosuch\n', "comment": ""},
    )
    assert response.status_code == 200
    assert b"unknown plugin" in response.content
    assert SchedulerConfiguration.objects.count() == 1


def test_deleting_a_jobs_pods_in_the_admin_records_evictions(superuser_client: Client) -> None:
    job = Job.objects.create(name="train")
    kept = Pod.objects.create(name="other", namespace="default")  # of no job
    pods = [
        Pod.objects.create(name=f"train-worker-{i}", job=job, task_name="worker") for i in (0, 1)
    ]
    response = superuser_client.post(
        reverse("admin:core_pod_changelist"),
        {"action": "delete_selected", "_selected_action": [pods[0].pk, kept.pk], "post": "yes"},
    )
    assert response.status_code == 302
    response = superuser_client.post(
        reverse("admin:core_pod_delete", args=[pods[1].pk]), {"post": "yes"}
    )
    assert response.status_code == 302

    assert not Pod.objects.exists()
    evicted = PodEviction.objects.order_by("pod_name")
    assert [(e.job_id, e.pod_name, e.task_name) for e in evicted] == [
        (job.pk, "train-worker-0", "worker"),
        (job.pk, "train-worker-1", "worker"),
    ]
