"""One replica of a training job rendered into a Pod, wired for its framework.

As the training operator renders it: named ``<job>-<type>-<index>`` (MPI's launcher
``<job>-launcher``), labelled ``training.kubeflow.org/job-name``, ``replica-type``,
``replica-index``, ``operator-name`` (and ``job-role: master`` on the replica that
leads), owned by the job (``ownerReferences``: the job is its controller), annotated with its PodGroup (``scheduling.k8s.io/group-name``) and task
(``volcano.sh/task-spec``) for Volcano, ``restartPolicy`` from the replica spec
(``ExitCode`` runs as ``Never``: the operator, not the kubelet, restarts), and:

- PyTorch: ``MASTER_ADDR`` (``<job>-master-0``), ``MASTER_PORT`` (the master's
  ``pytorchjob-port``, default 23456), ``WORLD_SIZE`` (all replicas) and ``RANK``
  (the master 0, worker *i* ``i + 1``) on every container; the port on ``pytorch``.
- TensorFlow: ``TF_CONFIG`` on the ``tensorflow`` container: the cluster (every
  replica type but Evaluator, ``<pod>.<namespace>.svc:<port>``), this task's type
  and index, ``environment: cloud``.
- MPI: the hostfile (``<job>-worker-<i> slots=<slotsPerWorker>``) the operator puts
  in the ``<job>-config`` ConfigMap mounted at ``/etc/mpi``; a simulated pod has no
  ConfigMap to read, so the launcher carries the file as the annotation
  ``mpi.kubeflow.org/hostfile`` and the env ``OMPI_MCA_orte_default_hostfile``.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from core.manifests.pod_template import pod_requests
from core.models import ClassTable, Pod, PodPhase, priority_class_table, stamp_class
from queues.models import PodGroup
from training.frameworks import Framework
from training.models import TrainingJob

__all__ = [
    "HOSTFILE_ANNOTATION",
    "controller_ref",
    "hostfile",
    "master_port",
    "render_replica_pod",
    "replica_labels",
    "replica_port",
    "replicas_of",
]

HOSTFILE_ANNOTATION = "mpi.kubeflow.org/hostfile"
LEADING = ("Master", "Chief", "Launcher")


def replica_labels(framework: Framework, job: TrainingJob, kind: str, index: int) -> dict[str, str]:
    """Return the labels of one replica's pod, which its Service also selects on."""
    return {
        "training.kubeflow.org/job-name": job.name,
        "training.kubeflow.org/operator-name": f"{framework.kind.lower()}-controller",
        "training.kubeflow.org/replica-type": kind.lower(),
        "training.kubeflow.org/replica-index": str(index),
    }


def controller_ref(framework: Framework, job: TrainingJob) -> dict[str, Any]:
    """Return the reference the operator puts on what it creates for ``job`` (its pods, PodGroup).

    The job is the controller owner (``controller: true``) and blocks the owner's
    foreground deletion until the dependent is gone, as ``metav1.NewControllerRef`` makes it;
    the uid ties the dependent to this job, not to a later one of the same name.
    """
    return {
        "apiVersion": framework.api_version,
        "kind": framework.kind,
        "name": job.name,
        "uid": str(job.uid),
        "controller": True,
        "blockOwnerDeletion": True,
    }


def replicas_of(framework: Framework, job: TrainingJob) -> list[tuple[str, dict[str, Any]]]:
    """Return (type, replica spec) in the framework's order (pods are created in it)."""
    specs = job.spec.get(framework.replica_key) or {}
    return [(name, specs[name]) for name in framework.replica_types if name in specs]


def _set_env(container: dict[str, Any], values: dict[str, str]) -> None:
    env = [item for item in container.get("env") or [] if item.get("name") not in values]
    container["env"] = env + [{"name": name, "value": value} for name, value in values.items()]


def _add_port(container: dict[str, Any], name: str, port: int) -> None:
    ports = container.setdefault("ports", [])
    if not any(p.get("name") == name for p in ports):
        ports.append({"name": name, "containerPort": port, "protocol": "TCP"})


def _port_of(template: dict[str, Any], container: str, port_name: str, default: int) -> int:
    for candidate in (template.get("spec") or {}).get("containers") or []:
        if candidate.get("name") == container:
            for port in candidate.get("ports") or []:
                if port.get("name") == port_name and isinstance(port.get("containerPort"), int):
                    return int(port["containerPort"])
    return default


def replica_port(framework: Framework, replica: dict[str, Any]) -> int:
    """Return the port a replica's framework container listens on (its Service's port)."""
    return _port_of(
        replica.get("template") or {}, framework.container, framework.port_name,
        framework.default_port,
    )  # fmt: skip


def master_port(framework: Framework, job: TrainingJob) -> int:
    """Return the PyTorch master's port (its ``pytorchjob-port``, else 23456)."""
    master = (job.spec.get(framework.replica_key) or {}).get("Master") or {}
    return _port_of(master.get("template") or {}, "pytorch", "pytorchjob-port", 23456)


def hostfile(job: TrainingJob) -> str:
    """Return the MPI hostfile: one ``<worker pod> slots=<n>`` line per worker."""
    workers = int(
        ((job.spec.get("mpiReplicaSpecs") or {}).get("Worker") or {}).get("replicas") or 0
    )
    slots = int(job.spec.get("slotsPerWorker") or 1)
    return "".join(f"{job.name}-worker-{index} slots={slots}\n" for index in range(workers))


def _pytorch(
    framework: Framework, job: TrainingJob, kind: str, index: int, spec: dict[str, Any]
) -> None:
    replicas = dict(replicas_of(framework, job))
    world = sum(max(int(r.get("replicas") or 0), 0) for r in replicas.values())
    rank = index if kind == "Master" else index + (1 if "Master" in replicas else 0)
    port = master_port(framework, job)
    master = f"{job.name}-master-0" if "Master" in replicas else f"{job.name}-worker-0"
    values = {
        "MASTER_PORT": str(port),
        "MASTER_ADDR": master,
        "WORLD_SIZE": str(world),
        "RANK": str(rank),
        "PYTHONUNBUFFERED": "1",
    }
    for container in spec.get("containers") or []:
        _set_env(container, values)
        if container.get("name") == "pytorch":
            _add_port(container, framework.port_name, port)


def tf_config(framework: Framework, job: TrainingJob, kind: str, index: int) -> dict[str, Any]:
    """Return the TF_CONFIG of replica ``index`` of type ``kind``."""
    cluster: dict[str, list[str]] = {}
    for name, replica in replicas_of(framework, job):
        if name == "Evaluator":
            continue
        port = _port_of(replica.get("template") or {}, "tensorflow", "tfjob-port", 2222)
        cluster[name.lower()] = [
            f"{framework.pod_name(job.name, name, i)}.{job.namespace}.svc:{port}"
            for i in range(max(int(replica.get("replicas") or 0), 0))
        ]
    return {
        "cluster": cluster,
        "task": {"type": kind.lower(), "index": index},
        "environment": "cloud",
    }


def _tensorflow(
    framework: Framework, job: TrainingJob, kind: str, index: int, spec: dict[str, Any]
) -> None:
    config = json.dumps(tf_config(framework, job, kind, index), separators=(",", ":"))
    replica = (job.spec.get(framework.replica_key) or {}).get(kind) or {}
    port = _port_of(replica.get("template") or {}, "tensorflow", "tfjob-port", 2222)
    for container in spec.get("containers") or []:
        if container.get("name") == "tensorflow":
            _set_env(container, {"TF_CONFIG": config})
            _add_port(container, framework.port_name, port)


def _mpi(job: TrainingJob, kind: str, spec: dict[str, Any], annotations: dict[str, str]) -> None:
    if kind != "Launcher":
        return
    annotations[HOSTFILE_ANNOTATION] = hostfile(job)
    config = f"{job.name}-config"
    spec["volumes"] = [v for v in spec.get("volumes") or [] if v.get("name") != "mpi-job-config"]
    spec["volumes"].append({"name": "mpi-job-config", "configMap": {"name": config}})
    for container in spec.get("containers") or []:
        _set_env(
            container,
            {
                "OMPI_MCA_orte_default_hostfile": "/etc/mpi/hostfile",
                "OMPI_MCA_plm_rsh_agent": "/etc/mpi/kubexec.sh",
                "OMPI_MCA_orte_keep_fqdn_hostnames": "true",
            },
        )
        mounts = [
            m for m in container.get("volumeMounts") or [] if m.get("name") != "mpi-job-config"
        ]
        container["volumeMounts"] = [*mounts, {"name": "mpi-job-config", "mountPath": "/etc/mpi"}]


def render_replica_pod(
    framework: Framework,
    job: TrainingJob,
    kind: str,
    index: int,
    group: PodGroup | None,
    classes: tuple[dict[str, int], int],
    table: ClassTable | None = None,
) -> Pod:
    """Return the unsaved Pod of replica ``index`` of type ``kind``, wired for the framework."""
    replica = (job.spec.get(framework.replica_key) or {}).get(kind) or {}
    template = replica.get("template") or {}
    metadata = template.get("metadata") or {}
    spec = copy.deepcopy(template.get("spec") or {})
    policy = replica.get("restartPolicy") or framework.default_restart_policy
    spec["restartPolicy"] = "Never" if policy == "ExitCode" else policy
    if job.priority_class_name:
        spec.setdefault("priorityClassName", job.priority_class_name)
    scheduler_name = spec.pop("schedulerName", None) or "volcano"
    values, default = classes
    class_name = spec.get("priorityClassName") or ""
    priority = values.get(class_name, 0) if class_name else default
    stamp_class(spec, table or priority_class_table())  # what Priority admission writes
    for key in ("nodeName", "priority"):
        spec.pop(key, None)
    labels = dict(metadata.get("labels") or {})
    labels.update(replica_labels(framework, job, kind, index))
    if kind in LEADING:
        labels["training.kubeflow.org/job-role"] = "master"
    annotations = dict(metadata.get("annotations") or {})
    annotations.update(
        {
            "scheduling.k8s.io/group-name": job.name,
            "volcano.sh/task-spec": kind.lower(),
            "volcano.sh/queue-name": job.queue,
        }
    )
    if framework.kind == "PyTorchJob":
        _pytorch(framework, job, kind, index, spec)
    elif framework.kind == "TFJob":
        _tensorflow(framework, job, kind, index, spec)
    else:
        _mpi(job, kind, spec, annotations)
    requests = pod_requests(spec)
    return Pod(
        namespace=job.namespace,
        name=framework.pod_name(job.name, kind, index),
        task_name=kind.lower(),
        task_index=index,
        pod_group=group,
        spec=spec,
        priority=priority,
        scheduler_name=scheduler_name,
        phase=PodPhase.PENDING,
        labels=labels,
        annotations=annotations,
        owner_references=[controller_ref(framework, job)],
        requests=requests,
        cpu_milli=requests.get("cpu", 0),
        memory_milli=requests.get("memory", 0),
        gpu_milli=requests.get("nvidia.com/gpu", 0),
    )
