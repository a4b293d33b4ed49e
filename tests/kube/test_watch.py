"""``?watch=1``: the change stream as kubectl reads it, from a list's resourceVersion on."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from core.models import Pod, PodPhase
from jobs.models import Job
from kube.models import ChangeEvent
from tests.kube.api_kit import JOBS, PODS, example, watch_events

URL = JOBS.format(ns="default")


def _create_job(client: Client, name: str = "job-1", labels: dict[str, str] | None = None) -> None:
    manifest = example("jobs/nginx-sleep.yaml")
    manifest["metadata"]["name"] = name
    manifest["metadata"]["labels"] = labels or {}
    manifest["spec"]["queue"] = "default"
    response = client.post(URL, json.dumps(manifest), content_type="application/json")
    assert response.status_code == 201, response.content


def test_watch_from_a_list_sees_a_create_then_a_status_change(operator: Client) -> None:
    version = operator.get(URL).json()["metadata"]["resourceVersion"]
    _create_job(operator)

    response = operator.get(f"{URL}?watch=1&resourceVersion={version}&timeoutSeconds=5")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    events = watch_events(response)
    added = next(events)
    assert added["type"] == "ADDED"
    assert added["object"]["metadata"]["name"] == "job-1"

    operator.patch(
        f"{URL}/job-1/status",
        json.dumps({"status": {"state": {"phase": "Running"}}}),
        content_type="application/merge-patch+json",
    )
    modified = next(events)

    assert modified["type"] == "MODIFIED"
    assert modified["object"]["status"]["state"]["phase"] == "Running"
    assert int(modified["object"]["metadata"]["resourceVersion"]) > int(
        added["object"]["metadata"]["resourceVersion"]
    )


def test_an_object_created_and_changed_before_the_watch_reads_is_added(operator: Client) -> None:
    _create_job(operator, "job-before")
    version = operator.get(URL).json()["metadata"]["resourceVersion"]
    _create_job(operator)
    operator.patch(
        f"{URL}/job-1/status",
        json.dumps({"status": {"state": {"phase": "Running"}}}),
        content_type="application/merge-patch+json",
    )

    response = operator.get(f"{URL}?watch=1&resourceVersion={version}&timeoutSeconds=1")
    events = list(watch_events(response))

    # Both changes are read at once and sent as one event in the latest state; the client
    # never saw the job, so it is ADDED, as kube-apiserver's first event for it would be.
    assert [(e["type"], e["object"]["status"]["state"]["phase"]) for e in events] == [
        ("ADDED", "Running")
    ]


def test_watch_without_a_version_starts_with_every_object(operator: Client) -> None:
    _create_job(operator, "job-a")
    _create_job(operator, "job-b")

    events = watch_events(operator.get(f"{URL}?watch=true&timeoutSeconds=1"))

    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [
        ("ADDED", "job-a"),
        ("ADDED", "job-b"),
    ]


def test_watch_sends_a_deleted_object_in_its_last_state(operator: Client) -> None:
    _create_job(operator)
    version = operator.get(URL).json()["metadata"]["resourceVersion"]
    events = watch_events(operator.get(f"{URL}?watch=1&resourceVersion={version}&timeoutSeconds=5"))

    operator.delete(f"{URL}/job-1")
    deleted = next(events)

    assert deleted["type"] == "DELETED"
    assert deleted["object"]["metadata"]["name"] == "job-1"
    assert deleted["object"]["spec"]["tasks"][0]["name"] == "nginx"


def test_watch_applies_the_selectors(operator: Client) -> None:
    version = operator.get(URL).json()["metadata"]["resourceVersion"]
    _create_job(operator, "job-a", {"team": "a"})
    _create_job(operator, "job-b", {"team": "b"})

    events = watch_events(
        operator.get(
            f"{URL}?watch=1&resourceVersion={version}&timeoutSeconds=1&labelSelector=team=b"
        )
    )

    assert [e["object"]["metadata"]["name"] for e in events] == ["job-b"]


def _label(client: Client, name: str, team: str) -> None:
    response = client.patch(
        f"{URL}/{name}",
        json.dumps({"metadata": {"labels": {"team": team}}}),
        content_type="application/merge-patch+json",
    )
    assert response.status_code == 200, response.content


def test_a_selector_watch_sees_objects_enter_and_leave_its_selection(operator: Client) -> None:
    _create_job(operator, "job-a", {"team": "a"})
    _create_job(operator, "job-b", {"team": "b"})
    listed = operator.get(f"{URL}?labelSelector=team=b").json()
    assert [job["metadata"]["name"] for job in listed["items"]] == ["job-b"]
    version = listed["metadata"]["resourceVersion"]
    response = operator.get(
        f"{URL}?watch=1&resourceVersion={version}&timeoutSeconds=1&labelSelector=team=b"
    )

    _label(operator, "job-b", "c")  # leaves the selection
    _label(operator, "job-a", "b")  # enters it
    events = [(e["type"], e["object"]["metadata"]["name"]) for e in watch_events(response)]

    # As kube-apiserver sends them: what leaves a selection is DELETED for the watcher,
    # what enters it is ADDED; the DELETED object carries its labels after the change.
    assert events == [("DELETED", "job-b"), ("ADDED", "job-a")]


@pytest.mark.parametrize("opened", ["from its list", "without a version"])
def test_a_phase_field_selector_watch_follows_a_pod_through_running(
    operator: Client, opened: str
) -> None:
    pod = Pod.objects.create(name="runner", phase=PodPhase.PENDING)
    pods = PODS.format(ns="default")
    selection = "fieldSelector=status.phase=Running&timeoutSeconds=5"
    version = operator.get(f"{pods}?{selection}").json()["metadata"]["resourceVersion"]
    since = f"&resourceVersion={version}" if opened == "from its list" else ""
    stream = watch_events(operator.get(f"{pods}?watch=1{since}&{selection}"))

    events = []
    for phase in (PodPhase.RUNNING, PodPhase.RUNNING, PodPhase.SUCCEEDED):
        pod.phase = phase
        pod.save()
        event = next(stream)  # read before the next change, so no two are coalesced
        events.append((event["type"], event["object"]["status"]["phase"]))

    # `kubectl get pods --field-selector status.phase=Running -w` shows the pod arrive, change
    # and, once finished, leave; without this the finished pod stayed Running in its view.
    assert events == [("ADDED", "Running"), ("MODIFIED", "Running"), ("DELETED", "Succeeded")]


def test_watch_of_another_namespace_hears_nothing(operator: Client) -> None:
    version = operator.get(URL).json()["metadata"]["resourceVersion"]
    _create_job(operator)

    events = watch_events(
        operator.get(
            f"{JOBS.format(ns='other')}?watch=1&resourceVersion={version}&timeoutSeconds=1"
        )
    )

    assert list(events) == []


def test_watch_from_a_version_no_longer_kept_is_410_expired(operator: Client) -> None:
    for name in ("job-a", "job-b", "job-c"):
        _create_job(operator, name)
    newest = ChangeEvent.objects.order_by("-id").first()
    assert newest is not None
    ChangeEvent.objects.exclude(pk=newest.pk).delete()  # pruned: job-b's change is gone
    since = newest.id - 2

    events = list(
        watch_events(operator.get(f"{URL}?watch=1&resourceVersion={since}&timeoutSeconds=1"))
    )

    assert len(events) == 1
    assert events[0]["type"] == "ERROR"
    assert events[0]["object"]["code"] == 410


def test_each_write_records_one_change_with_the_objects_version(operator: Client) -> None:
    _create_job(operator)
    job = Job.objects.get(name="job-1")

    change = ChangeEvent.objects.filter(kind="jobs.job", name="job-1").get()

    assert change.type == "ADDED"
    assert job.resource_version == change.id


def test_pruning_keeps_every_change_young_enough(operator: Client) -> None:
    import datetime as dt

    from django.utils import timezone

    from kube.changes import prune_changes

    for name in ("job-a", "job-b", "job-c", "job-d"):
        _create_job(operator, name)
    ids = list(ChangeEvent.objects.order_by("id").values_list("id", flat=True))
    old, young = ids[: len(ids) // 2], ids[len(ids) // 2 :]
    ChangeEvent.objects.filter(id__in=old).update(created_at=timezone.now() - dt.timedelta(hours=1))

    assert prune_changes(keep_seconds=60) == len(old)

    assert list(ChangeEvent.objects.order_by("id").values_list("id", flat=True)) == young


def test_pruning_old_changes_expires_old_watches_but_keeps_the_newest(operator: Client) -> None:
    import datetime as dt

    from django.utils import timezone

    from kube.changes import prune_changes

    for name in ("job-a", "job-b", "job-c"):
        _create_job(operator, name)
    ChangeEvent.objects.update(created_at=timezone.now() - dt.timedelta(hours=1))
    newest = ChangeEvent.objects.order_by("-id").first()
    assert newest is not None

    assert prune_changes(keep_seconds=60) == 2

    assert list(ChangeEvent.objects.values_list("id", flat=True)) == [newest.id]
    since = newest.id - 2
    events = list(
        watch_events(operator.get(f"{URL}?watch=1&resourceVersion={since}&timeoutSeconds=1"))
    )
    assert [e["type"] for e in events] == ["ERROR"]
