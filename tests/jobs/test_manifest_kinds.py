"""The kinds Volcano's examples do not cover: Node, Pod, Command, Event round-trip and apply."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from django.db.models import Sum

from apis.errors import ManifestError
from core.models import Event, Node, Pod
from jobs.models import Command, Job
from kube.manifests import apply_manifests, dump_loaded, dump_manifest, load_manifest
from queues.models import PodGroup

NODE: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "node-1", "labels": {"zone": "a"}},
    "spec": {"taints": [{"key": "gpu", "value": "yes", "effect": "NoSchedule"}]},
    "status": {
        "capacity": {"cpu": "8", "memory": "32Gi", "pods": "110", "nvidia.com/gpu": "4"},
        "allocatable": {"cpu": "7500m", "memory": "30Gi", "pods": "110", "nvidia.com/gpu": "4"},
        "conditions": [{"type": "Ready", "status": "True"}],
    },
}


def pod(name: str, cpu: str, memory: str, node: str = "node-1") -> dict[str, Any]:
    """Return a pod manifest of job ``train``'s task ``worker``."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "annotations": {
                "volcano.sh/task-spec": "worker",
                "volcano.sh/task-index": name[-1],
                "scheduling.k8s.io/group-name": "train",
            },
            "ownerReferences": [
                {
                    "apiVersion": "batch.volcano.sh/v1alpha1",
                    "kind": "Job",
                    "name": "train",
                    "uid": "5f0c2f4e-8d43-4c1e-9a53-0b9f6c1d2e3a",  # kube-apiserver requires one
                    "controller": True,
                }
            ],
        },
        "spec": {
            "nodeName": node,
            "containers": [
                {
                    "name": "main",
                    "image": "busybox",
                    "resources": {"requests": {"cpu": cpu, "memory": memory}},
                },
                {"name": "side", "image": "busybox", "resources": {"limits": {"cpu": "100m"}}},
            ],
        },
        "status": {"phase": "Running", "startTime": "2026-11-21T10:00:00Z"},
    }


COMMAND = {
    "apiVersion": "bus.volcano.sh/v1alpha1",
    "kind": "Command",
    "metadata": {"name": "train-abort", "namespace": "default"},
    "action": "AbortJob",
    "target": {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "name": "train"},
}
EVENT = {
    "apiVersion": "v1",
    "kind": "Event",
    "metadata": {"name": "train.1", "namespace": "default"},
    "involvedObject": {"kind": "Job", "name": "train", "namespace": "default"},
    "type": "Warning",
    "reason": "PodGroupPending",
    "message": "1/2 tasks in gang unschedulable",
    "count": 3,
    "firstTimestamp": "2026-11-21T10:00:00Z",
    "lastTimestamp": "2026-11-21T10:05:00Z",
}


@pytest.mark.parametrize(
    "manifest",
    [NODE, pod("train-worker-0", "500m", "1Gi"), COMMAND, EVENT],
    ids=lambda m: m["kind"],
)
def test_kind_round_trips(manifest: dict[str, Any]) -> None:
    dumped = dump_loaded(load_manifest(copy.deepcopy(manifest)))
    assert dump_loaded(load_manifest(copy.deepcopy(dumped))) == dumped


def test_node_keeps_capacity_and_taints() -> None:
    node: Node = load_manifest(copy.deepcopy(NODE)).instance
    assert node.allocatable["cpu"] == 7500
    assert node.capacity["nvidia.com/gpu"] == 4000
    assert node.taints == [{"key": "gpu", "value": "yes", "effect": "NoSchedule"}]
    assert node.ready


def test_pod_requests_sum_containers_and_default_to_limits() -> None:
    loaded: Pod = load_manifest(pod("train-worker-0", "500m", "1Gi")).instance
    assert loaded.requests == {"cpu": 600, "memory": 2**30 * 1000}
    assert (loaded.cpu_milli, loaded.task_name, loaded.task_index) == (600, "worker", 0)


def test_bad_taint_effect_is_named() -> None:
    manifest = copy.deepcopy(NODE)
    manifest["spec"]["taints"][0]["effect"] = "Sometimes"
    with pytest.raises(ManifestError) as caught:
        load_manifest(manifest)
    assert caught.value.field == "spec.taints[0].effect"


@pytest.mark.django_db
def test_applied_pods_link_job_group_and_node_and_sum_exactly_in_sql() -> None:
    job = Job.objects.create(name="train")
    PodGroup.objects.create(name="train", job=job)
    objects = [load_manifest(copy.deepcopy(NODE))]
    objects += [load_manifest(pod(f"train-worker-{i}", "333m", "1.5Gi")) for i in range(3)]
    objects += [load_manifest(copy.deepcopy(COMMAND)), load_manifest(copy.deepcopy(EVENT))]
    lines = apply_manifests(("test", item) for item in objects)
    assert lines[0] == "node/node-1 created"
    assert "command.bus.volcano.sh/train-abort created" in lines
    pods = Pod.objects.filter(job=job, pod_group__name="train", node__name="node-1")
    assert pods.count() == 3
    totals = pods.aggregate(cpu=Sum("cpu_milli"), memory=Sum("memory_milli"))
    assert totals == {"cpu": 3 * 433, "memory": 3 * 3 * 2**29 * 1000}
    stored = dump_manifest(pods.get(name="train-worker-1"))
    assert stored["spec"]["nodeName"] == "node-1"
    assert stored["metadata"]["ownerReferences"][0]["uid"] == str(job.uid)
    assert Command.objects.get().action == "AbortJob"
    assert Event.objects.get().count == 3
