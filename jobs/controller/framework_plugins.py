"""The distributed-framework job plugins of VolcanoJobs: pytorch, tensorflow and mpi.

As Volcano's job controller applies them to each created pod (``OnPodCreate``), with
the arguments of Volcano's plugin docs; every plugin also turns on ``svc`` (and mpi
``ssh``), which admission adds (``jobs.admission.job``):

- **pytorch** (``--master=master --worker=worker --port=23456``): on the master and
  worker tasks' pods, ``MASTER_ADDR`` (the master pod's host, ``<job>-<master>-0.<job>``),
  ``MASTER_PORT``, ``WORLD_SIZE`` (masters + workers) and ``RANK`` (a master's index;
  a worker's index after the masters), and the port ``pytorchjob-port`` on every container.
- **tensorflow** (``--ps=ps --worker=worker --chief=chief --evaluator=evaluator
  --port=2222``): ``TF_CONFIG`` with the cluster (every role's task that exists but the
  evaluator, ``<pod>.<job>:<port>``) and this pod's role and index.
- **mpi** (``--master=master --worker=worker --port=22``): the master's pods get
  ``MPI_HOST``, the workers' hosts joined by commas (the hostfile mpirun reads); every
  pod of the two tasks opens the port ``mpijob-port``.
"""

from __future__ import annotations

import json
from typing import Any

from core.models import Pod
from jobs.admission.policies import FRAMEWORK_FLAGS as FLAGS
from jobs.models import Job, TaskSpec

__all__ = ["apply_framework_plugins"]


def _flags(name: str, arguments: list[str]) -> dict[str, str]:
    values = dict(FLAGS[name])
    for argument in arguments:
        key, _, value = argument.lstrip("-").partition("=")
        if key in values and value:
            values[key] = value
    return values


def _set_env(container: dict[str, Any], values: dict[str, str]) -> None:
    env = [item for item in container.get("env") or [] if item.get("name") not in values]
    container["env"] = env + [{"name": k, "value": v} for k, v in values.items()]


def _open_port(spec: dict[str, Any], name: str, port: int) -> None:
    for container in spec.get("containers") or []:
        ports = container.setdefault("ports", [])
        if not any(p.get("name") == name for p in ports):
            ports.append({"name": name, "containerPort": port})


def _replicas(tasks: list[TaskSpec], name: str) -> int:
    return next((task.replicas for task in tasks if task.name == name), 0)


def _hosts(job: Job, tasks: list[TaskSpec], name: str, port: str = "") -> list[str]:
    suffix = f":{port}" if port else ""
    return [f"{job.name}-{name}-{i}.{job.name}{suffix}" for i in range(_replicas(tasks, name))]


def apply_framework_plugins(job: Job, tasks: list[TaskSpec], pod: Pod) -> None:
    """Apply the job's pytorch, tensorflow and mpi plugins to a rendered pod."""
    if "pytorch" in job.plugins:
        _pytorch(job, tasks, pod, _flags("pytorch", job.plugins["pytorch"]))
    if "tensorflow" in job.plugins:
        _tensorflow(job, tasks, pod, _flags("tensorflow", job.plugins["tensorflow"]))
    if "mpi" in job.plugins:
        _mpi(job, tasks, pod, _flags("mpi", job.plugins["mpi"]))


def _pytorch(job: Job, tasks: list[TaskSpec], pod: Pod, flags: dict[str, str]) -> None:
    master, worker = flags["master"], flags["worker"]
    if pod.task_name not in (master, worker):
        return
    masters = _replicas(tasks, master)
    rank = pod.task_index if pod.task_name == master else masters + pod.task_index
    values = {
        "MASTER_ADDR": f"{job.name}-{master}-0.{job.name}",
        "MASTER_PORT": flags["port"],
        "WORLD_SIZE": str(masters + _replicas(tasks, worker)),
        "RANK": str(rank),
    }
    for container in pod.spec.get("containers") or []:
        _set_env(container, values)
    _open_port(pod.spec, "pytorchjob-port", int(flags["port"]))


def _tensorflow(job: Job, tasks: list[TaskSpec], pod: Pod, flags: dict[str, str]) -> None:
    roles = {flags[role]: role for role in ("ps", "worker", "chief", "evaluator")}
    role = roles.get(pod.task_name)
    if role is None:
        return
    cluster = {
        kind: _hosts(job, tasks, task, flags["port"])
        for task, kind in roles.items()
        if kind != "evaluator" and _replicas(tasks, task)
    }
    config = {"cluster": cluster, "task": {"type": role, "index": pod.task_index}}
    for container in pod.spec.get("containers") or []:
        _set_env(container, {"TF_CONFIG": json.dumps(config, separators=(",", ":"))})


def _mpi(job: Job, tasks: list[TaskSpec], pod: Pod, flags: dict[str, str]) -> None:
    master, worker = flags["master"], flags["worker"]
    if pod.task_name not in (master, worker):
        return
    if pod.task_name == master:
        hosts = ",".join(_hosts(job, tasks, worker))
        for container in pod.spec.get("containers") or []:
            _set_env(container, {"MPI_HOST": hosts})
    _open_port(pod.spec, "mpijob-port", int(flags["port"]))
