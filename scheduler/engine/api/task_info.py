"""A task: one pod of a job, as the scheduler sees it.

Volcano's counterpart: ``pkg/scheduler/api/job_info.go`` (``TaskInfo``) and ``pod_info.go``.
Pods of one job task usually share a spec; ``TaskTemplate`` holds the scheduling constraints of
that spec so the allocate hot path can cache predicate masks and score vectors per template
(``template_key``) instead of per pod.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from scheduler.engine.api.devices.requests import DeviceContainers
from scheduler.engine.api.numa import NumaTask
from scheduler.engine.api.resource import Resource, Vector
from scheduler.engine.api.types import TaskStatus

__all__ = ["TaskInfo", "TaskTemplate", "Toleration"]


@dataclass(slots=True, frozen=True)
class Toleration:
    """A pod toleration (``operator`` Equal or Exists; empty effect tolerates every effect)."""

    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: str = ""


@dataclass(slots=True, eq=False)
class TaskTemplate:
    """The scheduling constraints of a pod spec; pods built from one spec may share one object.

    Everything a predicate or a scorer may read about the pod besides its request and its
    identity lives here, so two pods with equal templates (and equal requests) get the same
    answers from node-local predicates and scorers.
    """

    namespace: str = "default"
    labels: dict[str, str] = field(default_factory=dict)
    node_selector: dict[str, str] = field(default_factory=dict)
    affinity: dict[str, Any] = field(default_factory=dict)
    tolerations: tuple[Toleration, ...] = ()
    topology_spread_constraints: tuple[dict[str, Any], ...] = ()
    host_ports: tuple[int, ...] = ()
    images: tuple[str, ...] = ()
    volumes: tuple[dict[str, Any], ...] = ()
    _key: str | None = None
    _spec_key: str | None = None

    @property
    def key(self) -> str:
        """Return a canonical text of the constraints (computed once)."""
        if self._key is None:
            self._key = json.dumps([self.labels, self._spec()], sort_keys=True, default=str)
        return self._key

    @property
    def spec_key(self) -> str:
        """Return ``key`` without the labels (computed once).

        Labels only matter to node answers through other pods' inter-pod rules; when no pod of a
        snapshot has any (``relates_pods``), pods differing only in labels share node answers.
        """
        if self._spec_key is None:
            self._spec_key = json.dumps(self._spec(), sort_keys=True, default=str)
        return self._spec_key

    def with_labels(self, labels: dict[str, str]) -> TaskTemplate:
        """Return this template for pods carrying ``labels``, sharing everything else.

        Why: a controller renders the jobs of one spec with labels of their own (the job's
        name), so 10,000 one-pod jobs have 10,000 templates but one spec. Sharing the spec's
        parts and its ``spec_key`` computes that key once instead of once per job.
        """
        # Built directly: ``dataclasses.replace`` costs 3x as much, 10,000 times per read.
        return TaskTemplate(
            namespace=self.namespace, labels=labels, node_selector=self.node_selector,
            affinity=self.affinity, tolerations=self.tolerations,
            topology_spread_constraints=self.topology_spread_constraints,
            host_ports=self.host_ports, images=self.images, volumes=self.volumes,
            _spec_key=self.spec_key,
        )  # fmt: skip

    @property
    def relates_pods(self) -> bool:
        """Return True when this spec has inter-pod affinity, anti-affinity or topology spread."""
        affinity = self.affinity
        return bool(
            self.topology_spread_constraints
            or "podAffinity" in affinity
            or "podAntiAffinity" in affinity
        )

    def _spec(self) -> list[object]:
        """Return everything but the labels, in a fixed order (the body of both keys)."""
        return [
            self.namespace,
            self.node_selector,
            self.affinity,
            [(t.key, t.operator, t.value, t.effect) for t in self.tolerations],
            list(self.topology_spread_constraints),
            list(self.host_ports),
            list(self.images),
            list(self.volumes),
        ]


@dataclass(slots=True, eq=False)
class TaskInfo:
    """One pod. ``uid`` is ``<namespace>/<pod name>``; ``job`` is its job's uid."""

    name: str
    namespace: str
    job: str
    resreq: Resource
    status: TaskStatus = TaskStatus.PENDING
    node_name: str = ""
    priority: int = 1
    role: str = ""  # Volcano's task name inside the job (volcano.sh/task-spec)
    preemptable: bool = True
    preemption_policy: str = ""  # "Never" forbids this pod to preempt
    priority_class_name: str = ""
    nominated_node_name: str = ""
    scheduling_gated: bool = False
    creation_timestamp: datetime | None = None
    annotations: dict[str, str] = field(default_factory=dict)
    template: TaskTemplate = field(default_factory=TaskTemplate)
    init_resreq: Resource | None = None
    # The pod's limits, as Volcano's GetPodResourceLimit (None: not known to the snapshot).
    limits: Resource | None = None
    uid: str = ""
    best_effort: bool = False
    # Set by ClusterInfo.build: the request as an array row of the snapshot's ResourceIndex.
    resreq_vec: Vector | None = None
    template_key: tuple[object, ...] = ()
    # ``lastTransitionTime`` of the pod's first ``PodScheduled: "True"`` condition (cdp's clock).
    scheduled_at: datetime | None = None
    # Per-container device resources (deviceshare); None for pods that name no device resource.
    device_containers: DeviceContainers | None = None
    # Guaranteed pods' NUMA ask (numa-aware); None for other QoS classes.
    numa: NumaTask | None = None
    # The HyperNode the task's job is in while allocate places this task (network topology;
    # Volcano's ``TaskInfo.JobAllocatedHyperNode``): network-topology-aware scores by it.
    job_allocated_hypernode: str = ""

    def __post_init__(self) -> None:
        if not self.uid:
            self.uid = f"{self.namespace}/{self.name}"
        if self.init_resreq is None:
            self.init_resreq = self.resreq
        self.best_effort = self.resreq.is_best_effort()

    @property
    def labels(self) -> dict[str, str]:
        """Return the pod's labels (they live on the template)."""
        return self.template.labels

    def compute_template_key(self) -> tuple[object, ...]:
        """Return (and remember) the cache key of this pod's template and request."""
        if not self.template_key:
            self.template_key = (self.resreq.key(), self.template.key)
        return self.template_key

    def __repr__(self) -> str:
        return f"TaskInfo({self.uid}, {self.status}, node={self.node_name!r})"
