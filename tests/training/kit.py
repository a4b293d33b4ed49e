"""Helpers for the training-job tests: manifests, submit, play scheduler and kubelet, tick."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import transaction

from core.models import Pod, PodPhase
from core.namespaces import ensure_namespaces
from kube.manifests import load_manifest
from training.controller import reconcile_training_jobs
from training.frameworks import FRAMEWORKS
from training.models import TrainingJob

NOW = dt.datetime(2026, 1, 1, 12, 0, tzinfo=dt.UTC)


def replica(
    replicas: int = 1,
    container: str = "pytorch",
    *,
    cpu: str = "1",
    memory: str = "1Gi",
    **extra: Any,
) -> dict[str, Any]:
    """Return a replica spec with one container asking for ``cpu`` and ``memory``."""
    return {
        "replicas": replicas,
        "template": {
            "spec": {
                "containers": [
                    {
                        "name": container,
                        "image": "docker.io/kubeflowkatib/pytorch-mnist:v1beta1-45c5727",
                        "resources": {"requests": {"cpu": cpu, "memory": memory}},
                    }
                ]
            }
        },
        **extra,
    }


def pytorch(
    name: str = "ptj", workers: int = 1, run: dict[str, Any] | None = None, **master: Any
) -> dict[str, Any]:
    """Return a PyTorchJob manifest: one Master and ``workers`` Workers."""
    specs: dict[str, Any] = {"Master": replica(1, **master)}
    if workers:
        specs["Worker"] = replica(workers)
    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"runPolicy": run or {}, "pytorchReplicaSpecs": specs},
    }


def submit(manifest: dict[str, Any]) -> TrainingJob:
    """Admit and store ``manifest`` as ``kubectl apply`` would; return the stored job."""
    loaded = load_manifest(manifest)
    with transaction.atomic():
        ensure_namespaces([loaded.instance.namespace])
        loaded.kind.apply(loaded)
    model = FRAMEWORKS[manifest["kind"]].model
    return model._default_manager.get(namespace="default", name=manifest["metadata"]["name"])


def tick(job: TrainingJob, at: dt.datetime = NOW) -> TrainingJob:
    """Run one pass of the training controller; return ``job`` refreshed (or as it was, if gone)."""
    reconcile_training_jobs(at)
    model = type(job)
    return model._default_manager.filter(pk=job.pk).first() or job


def pods(job: TrainingJob) -> dict[str, Pod]:
    """Return the job's pods by name (through its PodGroup)."""
    return {
        pod.name: pod
        for pod in Pod.objects.filter(namespace=job.namespace, pod_group__name=job.name)
    }


def set_pods(job: TrainingJob, phase: str, *names: str, exit_code: int | None = None) -> None:
    """Play the kubelet: move the named pods (default: all) to ``phase``."""
    finished = phase in (PodPhase.SUCCEEDED, PodPhase.FAILED)
    for pod in pods(job).values():
        if names and pod.name not in names:
            continue
        pod.phase = phase
        pod.exit_code = exit_code if finished else None
        pod.save()


def states(job: TrainingJob) -> list[tuple[str, str]]:
    """Return the job's conditions as (type, status)."""
    return [(c["type"], c["status"]) for c in job.conditions]


def env(pod: Pod, container: int = 0) -> dict[str, str]:
    """Return a container's env as a dict."""
    return {e["name"]: e["value"] for e in pod.spec["containers"][container].get("env") or []}
