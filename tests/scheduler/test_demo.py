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


def test_the_demo_has_a_vgpu_pool_numa_nodes_and_a_two_tier_network() -> None:
    from core.models import Node
    from kubelet.sim_devices import SIM_GPUS, SIM_NUMA
    from scheduler.models import SchedulerConfiguration
    from topology.models import HyperNode

    load_demo_cluster()
    load_demo_cluster()  # idempotent
    vgpu = Node.objects.filter(name__startswith="vgpu-")
    assert vgpu.count() == 4
    assert all("mode=vgpu" in node.annotations[SIM_GPUS] for node in vgpu)
    large = Node.objects.filter(name__startswith="cpu-large-")
    assert all(node.annotations[SIM_NUMA].startswith("cells=2") for node in large)
    tiers = dict(HyperNode.objects.values_list("name", "tier"))
    assert tiers == {
        "leaf-a1": 1, "leaf-a2": 1, "leaf-b1": 1, "leaf-b2": 1, "spine-a": 2, "spine-b": 2,
    }  # fmt: skip
    active = SchedulerConfiguration.objects.get(is_active=True)
    for plugin in ("deviceshare", "numa-aware", "network-topology-aware"):
        assert f"name: {plugin}" in active.text


def test_the_demo_leaves_an_operators_own_policy_alone() -> None:
    from scheduler.models import SchedulerConfiguration
    from scheduler.services import scheduler_conf_create

    own = 'actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: gang\n'
    scheduler_conf_create(text=own, activate=True)
    load_demo_cluster()
    assert SchedulerConfiguration.objects.get(is_active=True).text == own


def test_the_demo_generates_vgpu_jobs_and_hard_topology_gangs() -> None:
    from scheduler.demo import generated_job

    rng = random.Random(3)
    jobs = [generated_job(n, rng) for n in range(1, 80)]
    vgpu = [job for job in jobs if job["metadata"]["name"].startswith("vgpu-")]
    gangs = [job for job in jobs if job["metadata"]["name"].startswith("topology-")]
    assert vgpu
    assert gangs
    limits = vgpu[0]["spec"]["tasks"][0]["template"]["spec"]["containers"][0]["resources"]
    assert limits["limits"]["volcano.sh/vgpu-number"] == "1"
    assert gangs[0]["spec"]["networkTopology"] == {"mode": "hard", "highestTierAllowed": 1}
    load_demo_cluster()
    for job in (vgpu[0], gangs[0]):
        from jobs.services import job_submit

        assert job_submit(manifest=job).name == job["metadata"]["name"]
