"""Admission of the workflow kinds in Volcano's words: its webhook's test cases for JobFlows
(``jobflows/validate``) and CronJobs (``cronjobs/validate``), and the CRDs' shapes, each refusal
a 422 naming the field."""

from __future__ import annotations

from typing import Any

import pytest

from flow.api.resources import CRONJOBS, JOBFLOWS, JOBTEMPLATES
from kube.status import KubeError
from kube.store import object_create
from tests.flow.kit import job_spec

pytestmark = pytest.mark.django_db


def _flow(*steps: tuple[str, list[str]]) -> dict[str, Any]:
    flows = [{"name": n, **({"dependsOn": {"targets": t}} if t else {})} for n, t in steps]
    return {"apiVersion": "flow.volcano.sh/v1alpha1", "kind": "JobFlow",
            "metadata": {"name": "valid-jobflow"}, "spec": {"flows": flows}}  # fmt: skip


def _refusal(resource: Any, manifest: dict[str, Any]) -> KubeError:
    with pytest.raises(KubeError) as refused:
        object_create(resource, manifest, namespace="default", dry_run=True)
    assert refused.value.code == 422
    return refused.value


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        ([("a", []), ("b", ["a"]), ("c", ["a", "b"]), ("d", ["b"]), ("e", ["c", "d"])], ""),
        ([("a", []), ("a", []), ("b", ["a"]), ("c", ["a", "b"]), ("e", ["c"])], ""),
        ([("b", ["a"]), ("c", ["a", "b"]), ("d", ["b"]), ("e", ["c", "d"])],
         "jobflow Flow is not DAG: vertex is not defined: a"),
        ([("a", ["b"]), ("b", ["a"]), ("c", ["a", "b"]), ("d", ["b"]), ("e", ["c", "d"])],
         "jobflow Flow is not DAG"),
    ],
    ids=["valid", "duplicate step names", "a target that is no step", "a cycle"],
)  # fmt: skip
def test_volcanos_jobflow_cases(steps: list[tuple[str, list[str]]], message: str) -> None:
    manifest = _flow(*steps)
    if not message:
        assert object_create(JOBFLOWS, manifest, namespace="default", dry_run=True)
        return
    refused = _refusal(JOBFLOWS, manifest)
    assert [(c.field, c.message) for c in refused.causes] == [("spec.flows", message)]


def test_a_bad_retain_policy_and_a_bad_probe_port_are_named() -> None:
    manifest = _flow(("a", []))
    manifest["spec"]["jobRetainPolicy"] = "forever"
    assert "spec.jobRetainPolicy" in str(_refusal(JOBFLOWS, manifest).body())
    probe = {"tcpSocketList": [{"taskName": "t", "port": 70000}]}
    manifest = _flow(("a", []))
    manifest["spec"]["flows"].append({"name": "b", "dependsOn": {"targets": ["a"], "probe": probe}})
    assert "spec.flows[1].dependsOn.probe.tcpSocketList[0].port" in str(
        _refusal(JOBFLOWS, manifest).body()
    )


def test_a_template_is_a_job_spec_checked_at_its_field() -> None:
    spec = job_spec()
    spec["tasks"][0]["replicas"] = -1
    manifest = {"apiVersion": "flow.volcano.sh/v1alpha1", "kind": "JobTemplate",
                "metadata": {"name": "t"}, "spec": spec}  # fmt: skip
    assert "spec.tasks[0].replicas" in str(_refusal(JOBTEMPLATES, manifest).body())


def _cron(name: str = "cronvcjob", schedule: str = "* * * * *", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "CronJob", "metadata": {"name": name},
            "spec": {"schedule": schedule, "jobTemplate": {"spec": job_spec()}, **spec}}  # fmt: skip


@pytest.mark.parametrize(
    ("schedule", "zone", "field", "message"),
    [
        ("* * * * *", None, "", ""),
        ("@every 1m", None, "", ""),
        ("*/5 * * * *", "Pacific/Honolulu", "", ""),
        ("TZ=UTC 0 20 * * *", "Pacific/Honolulu", "spec.schedule",
         "schedule should not contain TZ or CRON_TZ, TZ should only be set in the timeZone field"),
        ("error schedule", "Pacific/Honolulu", "spec.schedule",
         "schedule is not a valid cron expression"),
        ("", "Pacific/Honolulu", "spec.schedule", "schedule is required, but got empty"),
        ("*/5 * * * *", "Asia/./Shanghai", "spec.timeZone", "unknown timeZone"),
        ("*/5 * * * *", "America/-NewYork", "spec.timeZone", "unknown timeZone"),
        ("*/5 * * * *", "New York", "spec.timeZone", "unknown timeZone"),
        ("*/5 * * * *", "UTC!", "spec.timeZone", "unknown timeZone"),
        ("*/5 * * * *", "Local", "spec.timeZone",
         "timeZone can't be Local, and must be defined in https://www.iana.org/time-zones"),
        ("*/5 * * * *", "Amerrica/New_York", "spec.timeZone", "invalid timeZone"),
    ],
)  # fmt: skip
def test_volcanos_cronjob_cases(schedule: str, zone: str | None, field: str, message: str) -> None:
    manifest = _cron(schedule=schedule, **({"timeZone": zone} if zone is not None else {}))
    if not message:
        assert object_create(CRONJOBS, manifest, namespace="default", dry_run=True)
        return
    refused = _refusal(CRONJOBS, manifest)
    assert (field, message) in [(c.field, c.message) for c in refused.causes]


def test_an_empty_time_zone_is_refused_as_volcano_says() -> None:
    body = str(_refusal(CRONJOBS, _cron(timeZone="")).body())
    assert "timeZone must be nil or non-empty string, got empty string" in body


@pytest.mark.parametrize(("length", "refused"), [(52, False), (53, True)])
def test_a_cron_jobs_name_leaves_room_for_its_jobs_suffix(length: int, refused: bool) -> None:
    manifest = _cron(name="c" * length)
    if not refused:
        assert object_create(CRONJOBS, manifest, namespace="default", dry_run=True)
        return
    causes = _refusal(CRONJOBS, manifest).causes
    assert causes[0].field == "metadata.name"
    assert "must be no more than 52 characters" in causes[0].message


@pytest.mark.parametrize(
    ("key", "value", "field"),
    [
        ("concurrencyPolicy", "Sometimes", "spec.concurrencyPolicy"),
        ("successfulJobsHistoryLimit", -1, "spec.successfulJobsHistoryLimit"),
        ("startingDeadlineSeconds", -5, "spec.startingDeadlineSeconds"),
    ],
)
def test_the_crds_shape_is_refused_at_its_field(key: str, value: Any, field: str) -> None:
    assert field in str(_refusal(CRONJOBS, _cron(**{key: value})).body())


def test_the_template_of_a_cron_job_is_a_job_spec() -> None:
    manifest = _cron()
    manifest["spec"]["jobTemplate"]["spec"]["tasks"][0]["replicas"] = "two"
    assert "spec.jobTemplate.spec.tasks[0].replicas" in str(_refusal(CRONJOBS, manifest).body())


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        ({"minAvailable": -1}, "spec.flows[0].patch.jobSpec.minAvailable"),
        ({"tasks": [{"name": "main", "replicas": "two"}]},
         "spec.flows[0].patch.jobSpec.tasks[0].replicas"),
        ({"queue": 7}, "spec.flows[0].patch.jobSpec.queue"),
        ({"maxRetrys": 3}, "spec.flows[0].patch.jobSpec.maxRetrys"),
    ],
)  # fmt: skip
def test_an_invalid_patch_is_refused_at_its_field(patch: dict[str, Any], field: str) -> None:
    manifest = _flow(("train", []))
    manifest["spec"]["flows"][0]["patch"] = {"jobSpec": patch}
    assert field in str(_refusal(JOBFLOWS, manifest).body())


def test_a_patch_names_only_what_it_changes() -> None:
    manifest = _flow(("train", []))
    manifest["spec"]["flows"][0]["patch"] = {"jobSpec": {
        "minAvailable": 2,
        "tasks": [{"name": "main", "replicas": 2,
                   "template": {"spec": {"containers": [{"name": "main", "image": "v2"}]}}}],
    }}  # fmt: skip
    assert object_create(JOBFLOWS, manifest, namespace="default", dry_run=True)
