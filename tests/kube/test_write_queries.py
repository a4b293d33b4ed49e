"""API writes cost the same queries however many objects are stored, and check rows as before.

A create or delete asks the database a fixed number of questions (with 3 jobs stored or 60);
the model's check constraints are decided in Python where they can be
(``kube.manifest_kinds.validate_constraints``), with the same verdict Django's own check gives.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from accounts.models import NamespaceGrant
from core.models import Pod
from jobs.models import Job
from kube.manifest_kinds import validate_constraints
from queues.models import Queue
from tests.kube.api_kit import JOBS

URL = JOBS.format(ns="default")


def _job(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": {
            "minAvailable": 1,
            "queue": "default",
            "tasks": [
                {
                    "replicas": 1,
                    "name": "main",
                    "template": {"spec": {"containers": [{"name": "c", "image": "busybox"}]}},
                }
            ],
        },
    }


def _queries(call: Callable[[], Any], status: int) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = call()
    assert response.status_code == status, response.content
    return len(queries.captured_queries)


def _create_and_delete(client: Client, name: str) -> tuple[int, int]:
    body = json.dumps(_job(name))
    create = _queries(lambda: client.post(URL, body, content_type="application/json"), 201)
    delete = _queries(lambda: client.delete(f"{URL}/{name}"), 200)
    return create, delete


def test_a_job_create_and_delete_cost_the_same_queries_with_60_jobs_stored(
    operator: Client,
) -> None:
    _create_and_delete(operator, "warm")  # the token's last-used stamp, the user's caches
    for index in range(3):
        operator.post(URL, json.dumps(_job(f"few-{index}")), content_type="application/json")
    few = _create_and_delete(operator, "probe-a")
    for index in range(57):
        operator.post(URL, json.dumps(_job(f"many-{index}")), content_type="application/json")
    many = _create_and_delete(operator, "probe-b")

    assert many == few
    assert not Job.objects.filter(name__startswith="probe-").exists()


def test_a_job_create_asks_no_savepoint_per_check_constraint(operator: Client) -> None:
    operator.post(URL, json.dumps(_job("warm")), content_type="application/json")
    with CaptureQueriesContext(connection) as queries:
        response = operator.post(URL, json.dumps(_job("checked")), content_type="application/json")

    assert response.status_code == 201
    statements = [q["sql"] for q in queries.captured_queries]
    assert not [sql for sql in statements if '"_check"' in sql]
    assert sum("pg_advisory_xact_lock" in sql for sql in statements) <= 1


@dataclass
class Case:
    name: str
    make: Callable[[], Any]
    invalid: bool


CASES = [
    Case(
        "job phase valid",
        lambda: Job(namespace="default", name="a", phase="Running"),
        invalid=False,
    ),
    Case(
        "job phase unknown", lambda: Job(namespace="default", name="a", phase="Bogus"), invalid=True
    ),
    Case("job name empty", lambda: Job(namespace="default", name="", phase=""), invalid=True),
    Case(
        "job min success none",
        lambda: Job(namespace="default", name="a", min_success=None),
        invalid=False,
    ),
    Case(
        "job min success zero",
        lambda: Job(namespace="default", name="a", min_success=0),
        invalid=True,
    ),
    Case(
        "job min success two",
        lambda: Job(namespace="default", name="a", min_success=2),
        invalid=False,
    ),
    Case("queue weight zero", lambda: Queue(name="q", weight=0), invalid=True),
    Case("queue its own parent", lambda: Queue(name="q", parent="q"), invalid=True),
    Case("queue other parent", lambda: Queue(name="q", parent="root"), invalid=False),
    Case(
        "pod task status bad",
        lambda: Pod(namespace="default", name="p", task_status="Nope"),
        invalid=True,
    ),
    Case("grant with neither", lambda: NamespaceGrant(namespace="default"), invalid=True),
]


@pytest.mark.django_db
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_check_constraints_decided_in_python_agree_with_djangos(case: Case) -> None:
    def verdict(check: Callable[[Any], None]) -> list[str]:
        try:
            check(case.make())
        except ValidationError as exc:
            return sorted(str(message) for message in exc.messages)
        return []

    ours = verdict(lambda instance: validate_constraints(instance, unique=False))

    assert ours == verdict(_django_checks_only)
    assert bool(ours) == case.invalid


def _django_checks_only(instance: Any) -> None:
    """Django's own verdict on the check constraints alone (each asked of the database)."""
    from django.db.models import CheckConstraint

    errors: dict[str, Any] = {}
    for model, constraints in instance.get_constraints():
        for constraint in constraints:
            if isinstance(constraint, CheckConstraint):
                check: Any = constraint  # the stubs leave validate() out
                try:
                    check.validate(model, instance)
                except ValidationError as exc:
                    errors = exc.update_error_dict(errors)
    if errors:
        raise ValidationError(errors)


def test_a_created_jobs_version_is_its_added_events_id(operator: Client) -> None:
    from kube.models import ChangeEvent

    response = operator.post(URL, json.dumps(_job("versioned")), content_type="application/json")

    version = int(response.json()["metadata"]["resourceVersion"])
    job = Job.objects.get(namespace="default", name="versioned")
    event = ChangeEvent.objects.get(id=version)
    assert job.resource_version == version
    assert (event.kind, event.type, event.name, event.object_pk) == (
        "jobs.job",
        "ADDED",
        "versioned",
        job.pk,
    )
    assert ChangeEvent.objects.filter(name="versioned").count() == 1


def test_a_create_takes_the_writers_lock_only_in_its_last_statement(
    operator: Client,
) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the writers' lock is PostgreSQL's (SQLite serialises writers itself)")
    with CaptureQueriesContext(connection) as queries:
        response = operator.post(URL, json.dumps(_job("late")), content_type="application/json")

    assert response.status_code == 201
    statements = [q["sql"] for q in queries.captured_queries]
    locks = [i for i, sql in enumerate(statements) if "pg_advisory_xact_lock" in sql]
    assert len(locks) == 1
    after = [  # then the commit (here the test's transaction releases a savepoint instead)
        sql for sql in statements[locks[0] :] if not sql.startswith("RELEASE")
    ]
    assert len(after) == 1  # the lock, the change event and the row's version: one statement
    assert '"kube_changeevent"' in after[0]
    assert 'UPDATE "jobs_job"' in after[0]


@pytest.mark.django_db
def test_an_object_created_and_deleted_in_one_block_leaves_no_event() -> None:
    from kube.changes import versions_at_end
    from kube.models import ChangeEvent

    before = ChangeEvent.objects.count()
    with versions_at_end():
        job = Job.objects.create(namespace="default", name="fleeting", queue="default")
        job.min_available = 2
        job.save()
        job.delete()
        kept = Job.objects.create(namespace="default", name="kept", queue="default")
        kept.min_available = 3
        kept.save()

    events = list(ChangeEvent.objects.order_by("id").values_list("name", "type")[before:])
    assert events == [("kept", "ADDED")]
    kept.refresh_from_db()
    assert kept.min_available == 3
    assert kept.resource_version == ChangeEvent.objects.get(name="kept").id
