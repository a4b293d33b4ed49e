"""The demo cluster: its example jobs are the submit page's, submitted as the API creates them."""

from __future__ import annotations

import random

import pytest

from flow.models import CronJob, JobFlow, JobTemplate
from jobs.api.resources import JOBS
from jobs.models import Job
from jobs.submit import EXAMPLES_DIR
from kube.render import render
from kube.status import KubeError
from scheduler.demo import EXAMPLE_JOBS, MANIFESTS, load_demo_cluster, submit_next

pytestmark = pytest.mark.django_db


def test_the_demo_reads_its_example_jobs_from_the_submit_pages_templates() -> None:
    assert all((EXAMPLES_DIR / name).exists() for name in EXAMPLE_JOBS)
    assert not any((MANIFESTS / name).exists() for name in EXAMPLE_JOBS)  # kept once


def test_a_demo_job_is_created_as_the_api_creates_it() -> None:
    load_demo_cluster()
    name = submit_next(0, random.Random(7))  # every fourth one an example job
    job = Job.objects.get(name=name)
    assert name == "job-1-00000"  # nginx-sleep.yaml's job-1, numbered
    assert job.ttl_seconds_after_finished == 120
    assert render(JOBS, job)["metadata"]["generation"] == 1


def test_a_demo_job_in_a_missing_namespace_is_refused_as_the_api_refuses_it() -> None:
    from jobs.services import job_submit

    manifest = {
        "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
        "metadata": {"name": "lost", "namespace": "nowhere"},
        "spec": {"minAvailable": 1, "tasks": [{"name": "main", "replicas": 1, "template": {
            "spec": {"containers": [{"name": "main", "image": "busybox"}]}}}]},
    }  # fmt: skip
    with pytest.raises(KubeError) as refused:
        job_submit(manifest=manifest)
    assert refused.value.code == 404
    assert not Job.objects.filter(name="lost").exists()


def test_the_demo_has_a_three_step_pipeline_and_a_cron_job() -> None:
    load_demo_cluster()
    load_demo_cluster()  # idempotent: a restarted demo keeps them
    flow = JobFlow.objects.get(namespace="default", name="pipeline")
    assert [(s["name"], s.get("dependsOn", {}).get("targets", [])) for s in flow.flows] == [
        ("prepare", []),
        ("train", ["prepare"]),
        ("evaluate", ["train"]),
    ]
    assert set(JobTemplate.objects.values_list("name", flat=True)) == {
        "prepare",
        "train",
        "evaluate",
    }
    cron = CronJob.objects.get(namespace="default", name="report")
    assert (cron.schedule, cron.concurrency_policy, cron.suspend) == (
        "*/5 * * * *",
        "Forbid",
        False,
    )
