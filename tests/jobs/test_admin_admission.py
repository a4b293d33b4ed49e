"""The admin refuses what admission refuses, with the error on the field, and stores nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from jobs.models import Job
from queues.models import PodGroup, Queue
from tests.jobs.controller_kit import submit

pytestmark = pytest.mark.django_db


def queue_form(**values: Any) -> dict[str, Any]:
    form = {
        "name": "team",
        "weight": 1,
        "capability": "",
        "deserved": "",
        "guarantee": "",
        "reclaimable": "on",
        "parent": "",
        "priority": 0,
        "dequeue_strategy": "traverse",
        "labels": "{}",
        "annotations": "{}",
    }
    return {**form, **values}


def errors_of(response: Any, form: str = "adminform") -> dict[str, list[str]]:
    return dict(response.context[form].form.errors)


def test_queue_form_shows_admission_errors_on_their_fields(superuser_client: Client) -> None:
    response = superuser_client.post(
        reverse("admin:queues_queue_add"),
        queue_form(weight=70000, deserved="cpu=4", capability="cpu=2", parent="ghost"),
    )
    assert response.status_code == 200
    errors = errors_of(response)
    assert set(errors) == {"weight", "deserved", "parent"}
    assert "65535" in errors["weight"][0]
    assert not Queue.objects.filter(name="team").exists()


def test_queue_form_admits_a_good_queue(superuser_client: Client) -> None:
    response = superuser_client.post(reverse("admin:queues_queue_add"), queue_form(weight=3))
    assert response.status_code == 302
    assert Queue.objects.get(name="team").weight == 3


def test_queue_with_children_has_no_delete_in_admin(superuser_client: Client) -> None:
    org = Queue.objects.create(name="org")
    Queue.objects.create(name="kid", parent="org")
    response = superuser_client.get(reverse("admin:queues_queue_delete", args=[org.pk]))
    assert response.status_code == 403


def test_pod_group_form_refuses_a_closed_queue(superuser_client: Client) -> None:
    Queue.objects.create(name="shut", state="Closed")
    response = superuser_client.post(
        reverse("admin:queues_podgroup_add"),
        {
            "namespace": "default",
            "name": "pg",
            "min_member": 1,
            "min_task_member": "{}",
            "min_resources": "",
            "queue": "shut",
            "priority_class_name": "",
            "labels": "{}",
            "annotations": "{}",
        },
    )
    assert response.status_code == 200
    assert "queue" in errors_of(response)
    assert not PodGroup.objects.exists()


def job_form(job: Job, **values: Any) -> dict[str, Any]:
    task = job.tasks.get()
    form = {
        "namespace": job.namespace,
        "name": job.name,
        "scheduler_name": job.scheduler_name,
        "min_available": job.min_available,
        "min_success": "",
        "queue": job.queue,
        "priority_class_name": "",
        "max_retry": job.max_retry,
        "ttl_seconds_after_finished": "",
        "policies": "[]",
        "plugins": "{}",
        "volumes": "[]",
        "labels": "{}",
        "annotations": "{}",
        "tasks-TOTAL_FORMS": 1,
        "tasks-INITIAL_FORMS": 1,
        "tasks-0-id": task.pk,
        "tasks-0-job": job.pk,
        "tasks-0-index": 0,
        "tasks-0-name": task.name,
        "tasks-0-replicas": task.replicas,
        "tasks-0-min_available": task.min_available,
        "tasks-0-max_retry": task.max_retry,
        "tasks-0-template": json.dumps(task.template),
        "pods-TOTAL_FORMS": 0,
        "pods-INITIAL_FORMS": 0,
    }
    return {**form, **values}


def test_job_change_puts_task_errors_on_the_task_and_job_errors_above(
    superuser_client: Client,
) -> None:
    job = submit()
    Queue.objects.create(name="other")
    url = reverse("admin:jobs_job_change", args=[job.pk])
    response = superuser_client.post(
        url, job_form(job, **{"queue": "other", "tasks-0-min_available": 5})
    )
    assert response.status_code == 200
    formset = response.context["inline_admin_formsets"][0].formset
    assert "min_available" in formset.forms[0].errors
    assert any("spec.queue" in error for error in formset.non_form_errors())
    job.refresh_from_db()
    assert job.queue == "default"
    assert job.tasks.get().min_available == 2


def test_job_change_that_scales_is_saved(superuser_client: Client) -> None:
    job = submit()
    url = reverse("admin:jobs_job_change", args=[job.pk])
    response = superuser_client.post(
        url, job_form(job, **{"tasks-0-replicas": 4, "tasks-0-min_available": 3})
    )
    assert response.status_code == 302, response.content[:3000]
    assert job.tasks.get().replicas == 4
