"""Session records are a record: the admin shows them read-only. Every page, the console's and
the admin's, names the console's icon, and ``/favicon.ico`` leads to it instead of a 404."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.utils import timezone

from jobs.models import Job
from scheduler.models import SchedulerConfiguration, SessionRecord

pytestmark = pytest.mark.django_db


def test_session_records_are_read_only_in_the_admin(superuser_client: Client) -> None:
    record = SessionRecord.objects.create(started_at=timezone.now(), e2e_ms=12.5, worker="w1")

    listing = superuser_client.get("/admin/scheduler/sessionrecord/")
    page = superuser_client.get(f"/admin/scheduler/sessionrecord/{record.pk}/change/")

    assert listing.status_code == 200
    assert "/admin/scheduler/sessionrecord/add/" not in listing.content.decode()
    assert superuser_client.get("/admin/scheduler/sessionrecord/add/").status_code == 403
    assert page.status_code == 200
    assert 'name="_save"' not in page.content.decode()
    deleted = superuser_client.post(
        f"/admin/scheduler/sessionrecord/{record.pk}/delete/", {"post": "yes"}
    )
    assert deleted.status_code == 403
    assert SessionRecord.objects.filter(pk=record.pk).exists()


def test_every_page_names_the_icon_and_favicon_ico_leads_to_it(superuser_client: Client) -> None:
    for path in ("/", "/admin/"):
        assert "console/favicon.svg" in superuser_client.get(path).content.decode(), path
    icon = Client().get("/favicon.ico")
    assert icon.status_code == 301
    assert icon["Location"].endswith("console/favicon.svg")


def test_a_stored_configuration_keeps_its_indentation_and_times_read_as_ms(
    superuser_client: Client,
) -> None:

    conf = SchedulerConfiguration.objects.create(
        version=99, text='actions: "allocate"\ntiers:\n- plugins:\n  - name: gang\n'
    )
    SessionRecord.objects.create(started_at=timezone.now(), e2e_ms=12.3456)

    page = superuser_client.get(f"/admin/scheduler/schedulerconfiguration/{conf.pk}/change/")
    listing = superuser_client.get("/admin/scheduler/sessionrecord/").content.decode()

    assert "<pre" in page.content.decode()
    assert "  - name: gang" in page.content.decode()
    assert "12.3 ms" in listing


def test_a_job_is_added_in_the_admin_without_typing_task_indexes(superuser_client: Client) -> None:
    template = '{"spec": {"containers": [{"name": "c", "image": "busybox"}]}}'
    form = {
        "name": "from-admin", "namespace": "default", "queue": "default", "scheduler_name": "volcano",
        "min_available": "0", "max_retry": "0", "min_success": "", "priority_class_name": "",
        "ttl_seconds_after_finished": "",
        "labels": "{}", "annotations": "{}", "finalizers": "[]", "owner_references": "[]",
        "plugins": "{}", "policies": "[]", "volumes": "[]",
        "tasks-TOTAL_FORMS": "2", "tasks-INITIAL_FORMS": "0",
        "tasks-MIN_NUM_FORMS": "0", "tasks-MAX_NUM_FORMS": "1000",
        "tasks-0-name": "ps", "tasks-0-replicas": "1", "tasks-0-min_available": "",
        "tasks-0-max_retry": "", "tasks-0-template": template,
        "tasks-1-name": "worker", "tasks-1-replicas": "2", "tasks-1-min_available": "",
        "tasks-1-max_retry": "", "tasks-1-template": template,
        "pods-TOTAL_FORMS": "0", "pods-INITIAL_FORMS": "0",
        "pods-MIN_NUM_FORMS": "0", "pods-MAX_NUM_FORMS": "1000",
        "_save": "Save",
    }  # fmt: skip

    response = superuser_client.post("/admin/jobs/job/add/", form)

    errors = re.findall(
        r'(.{0,300})class="errorlist[^"]*"[^>]*>(.*?)</ul>', response.content.decode(), re.S
    )
    assert response.status_code == 302, errors
    job = Job.objects.get(name="from-admin")
    assert [(t.index, t.name) for t in job.tasks.order_by("index")] == [(0, "ps"), (1, "worker")]
