"""Job manifests (batch.volcano.sh/v1alpha1): the whole spec, the tasks, the status.

Here a manifest is checked for shape (known fields, types, quantities); the
admission rules (minAvailable ≤ replicas, queue Open, ...) come later and run
on what this module loaded.
"""

from __future__ import annotations

from typing import Any, ClassVar

from apis.wire import Fields, Manifest, format_time
from core.manifests.pod_template import read_pod_template
from jobs.models import Job, JobPhase, TaskSpec
from kube.manifest_kinds import Kind, Loaded
from kube.validators import dns1123_label_error
from queues.manifests.network_topology import read_network_topology

__all__ = ["JobKind"]

_COUNTS = ("pending", "running", "succeeded", "failed", "terminating", "unknown")


def read_policies(fields: Fields, key: str) -> list[dict[str, Any]]:
    """Return lifecycle policies (event/events/action/exitCode/timeout) checked for type."""
    policies = []
    for item in fields.objects(key):
        policy: dict[str, Any] = {}
        if event := item.string("event"):
            policy["event"] = event
        if events := item.strings("events"):
            policy["events"] = events
        if action := item.string("action"):
            policy["action"] = action
        exit_code = item.optional_integer("exitCode")
        if exit_code is not None:
            policy["exitCode"] = exit_code
        if timeout := item.string("timeout"):
            policy["timeout"] = timeout
        item.done()
        policies.append(policy)
    return policies


def read_plugins(fields: Fields) -> dict[str, list[str]]:
    """Return ``spec.plugins``: plugin name → list of string arguments."""
    plugins = fields.obj("plugins")
    return {name: plugins.strings(name) for name in plugins.names()}


def read_volumes(fields: Fields) -> list[dict[str, Any]]:
    """Return ``spec.volumes``: mountPath plus a claim name or a claim template."""
    volumes = []
    for item in fields.objects("volumes"):
        volume: dict[str, Any] = {"mountPath": item.string("mountPath", required=True)}
        if name := item.string("volumeClaimName"):
            volume["volumeClaimName"] = name
        if item.has("volumeClaim"):
            # A PersistentVolumeClaim spec, kept verbatim; its quantities are checked.
            resources = item.obj("volumeClaim").obj("resources")
            resources.resources("requests")
            resources.resources("limits")
            resources.done()
            volume["volumeClaim"] = item.json("volumeClaim", {})
        item.done()
        volumes.append(volume)
    return volumes


def read_partition_policy(task: Fields) -> dict[str, Any] | None:
    """Return a task's ``partitionPolicy`` in its wire shape (None when absent).

    Only the shape is checked here; the minimums and the required counts are admission's,
    which names every bad one at once. ``minPartitions`` gets the CRD's default, 0.
    """
    if not task.has("partitionPolicy"):
        task.raw("partitionPolicy")
        return None
    fields = task.obj("partitionPolicy")
    policy: dict[str, Any] = {}
    for key in ("totalPartitions", "partitionSize"):
        value = fields.optional_integer(key)
        if value is not None:
            policy[key] = value
    if (topology := read_network_topology(fields)) is not None:
        policy["networkTopology"] = topology
    policy["minPartitions"] = fields.integer("minPartitions", 0)
    fields.done()
    return policy


def read_task(task: Fields, index: int) -> TaskSpec:
    """Return one ``spec.tasks[i]`` as an unsaved TaskSpec."""
    spec = TaskSpec(index=index)
    spec.name = task.string("name")
    if spec.name and (error := dns1123_label_error(spec.name)):
        raise task.error("name", f"invalid value {spec.name!r}: {error}")
    spec.replicas = task.integer("replicas", 0, minimum=0)
    spec.min_available = task.optional_integer("minAvailable", minimum=0)
    spec.max_retry = task.optional_integer("maxRetry", minimum=0)
    spec.template = read_pod_template(task.obj("template"))
    spec.policies = read_policies(task, "policies")
    spec.topology_policy = task.string("topologyPolicy")
    spec.partition_policy = read_partition_policy(task)
    depends = task.obj("dependsOn")
    spec.depends_on = None
    if task.has("dependsOn"):
        spec.depends_on = {"name": depends.strings("name")}
        if iteration := depends.string("iteration"):
            spec.depends_on["iteration"] = iteration
    depends.done()
    task.done()
    return spec


class JobKind(Kind):
    """``batch.volcano.sh/v1alpha1`` Job with its tasks as children."""

    api_version = "batch.volcano.sh/v1alpha1"
    kind = "Job"
    resource = "job.batch.volcano.sh"
    model = Job
    spec_fields = (
        "scheduler_name",
        "min_available",
        "min_success",
        "queue",
        "priority_class_name",
        "max_retry",
        "ttl_seconds_after_finished",
        "policies",
        "plugins",
        "volumes",
        "network_topology",
    )
    wire_paths: ClassVar[dict[str, str]] = {
        "name": "metadata.name",
        "namespace": "metadata.namespace",
        "min_success": "spec.minSuccess",
        "queue": "spec.queue",
    }

    def read(self, doc: Fields, meta: Fields, loaded: Loaded) -> None:
        job: Job = loaded.instance
        spec = doc.obj("spec")
        job.scheduler_name = spec.string("schedulerName", "volcano")
        job.min_available = spec.integer("minAvailable", 0, minimum=0)
        job.min_success = spec.optional_integer("minSuccess", minimum=1)
        job.queue = spec.string("queue", "default")
        job.priority_class_name = spec.string("priorityClassName")
        job.max_retry = spec.integer("maxRetry", 3, minimum=0)
        job.ttl_seconds_after_finished = spec.optional_integer("ttlSecondsAfterFinished", minimum=0)
        job.policies = read_policies(spec, "policies")
        job.plugins = read_plugins(spec)
        job.volumes = read_volumes(spec)
        job.network_topology = read_network_topology(spec)
        loaded.children = [
            read_task(task, index) for index, task in enumerate(spec.objects("tasks"))
        ]
        spec.done()
        self.read_status(doc.obj("status"), job)

    def read_status(self, status: Fields, job: Job) -> None:
        """Read ``status`` (the controller's) so that a dumped job loads back the same."""
        state = status.obj("state")
        job.phase = state.string("phase")
        if job.phase and job.phase not in JobPhase.values:
            raise state.error("phase", f"unsupported value {job.phase!r}")
        job.reason = state.string("reason")
        job.message = state.string("message")
        job.last_transition_time = state.time("lastTransitionTime")
        state.done()
        for name in _COUNTS:
            setattr(job, name, status.integer(name, 0, minimum=0))
        job.status_min_available = status.integer("minAvailable", 0, minimum=0)
        job.retry_count = status.integer("retryCount", 0, minimum=0)
        job.version = status.integer("version", 0, minimum=0)
        job.conditions = status.json("conditions", [])
        job.task_status_count = status.json("taskStatusCount", {})
        job.controlled_resources = status.json("controlledResources", {})
        status.done()

    def write(self, instance: Any, children: list[Any] | None) -> Manifest:
        job: Job = instance
        tasks = children if children is not None else list(job.tasks.all())
        spec: Manifest = {
            "schedulerName": job.scheduler_name,
            "minAvailable": job.min_available,
            "queue": job.queue,
            "maxRetry": job.max_retry,
        }
        optional = {
            "minSuccess": job.min_success,
            "priorityClassName": job.priority_class_name or None,
            "ttlSecondsAfterFinished": job.ttl_seconds_after_finished,
            "policies": job.policies or None,
            "plugins": job.plugins or None,
            "volumes": job.volumes or None,
            "networkTopology": job.network_topology,
        }
        spec.update({key: value for key, value in optional.items() if value is not None})
        spec["tasks"] = [write_task(task) for task in sorted(tasks, key=lambda t: t.index)]
        if not self.has_status(job):
            return {"spec": spec}
        return {"spec": spec, "status": self.write_status(job)}

    def has_status(self, job: Job) -> bool:
        """Return whether the controller has written any status yet."""
        return bool(job.phase or job.version or job.retry_count or job.conditions) or any(
            getattr(job, name) for name in _COUNTS
        )

    def write_status(self, job: Job) -> Manifest:
        """Return ``status`` as Volcano prints it (zero counts omitted)."""
        state: Manifest = {"phase": job.phase} if job.phase else {}
        if job.reason:
            state["reason"] = job.reason
        if job.message:
            state["message"] = job.message
        if job.last_transition_time is not None:
            state["lastTransitionTime"] = format_time(job.last_transition_time)
        status: Manifest = {"state": state}
        for name in _COUNTS:
            if count := getattr(job, name):
                status[name] = count
        extras = {
            "minAvailable": job.status_min_available,
            "retryCount": job.retry_count,
            "version": job.version,
            "conditions": job.conditions,
            "taskStatusCount": job.task_status_count,
            "controlledResources": job.controlled_resources,
        }
        status.update({key: value for key, value in extras.items() if value})
        return status

    def admit(self, loaded: Loaded, existing: Any | None) -> None:
        """Fill Volcano's defaults and refuse what its job webhook refuses (``jobs.admission``)."""
        # Admission reads manifests with this kind: the two modules need each other.
        from jobs.admission import admit_job

        admit_job(loaded, old=existing)

    def new_row(self, loaded: Loaded) -> Any:
        """Return a new job with the manifest's metadata and spec and an empty status.

        The status belongs to the job controller (Volcano's jobs CRD has a status
        subresource), so a dumped job applied to another cluster starts afresh.
        """
        source: Job = loaded.instance
        fields = ("namespace", "name", *self.meta_fields, *self.spec_fields)
        return Job(**{name: getattr(source, name) for name in fields})

    # -- children --------------------------------------------------------------
    def stored_children(self, instance: Any) -> list[Any] | None:
        return list(instance.tasks.all())

    def save_children(self, instance: Any, children: list[Any]) -> None:
        instance.tasks.all().delete()
        for task in children:
            task.pk = None
            task.job = instance
        TaskSpec.objects.bulk_create(children)


def write_task(task: TaskSpec) -> Manifest:
    """Return one task of ``spec.tasks`` in Volcano's spelling."""
    item: Manifest = {"name": task.name, "replicas": task.replicas}
    if task.min_available is not None:
        item["minAvailable"] = task.min_available
    if task.max_retry is not None:
        item["maxRetry"] = task.max_retry
    if task.policies:
        item["policies"] = task.policies
    if task.depends_on is not None:
        item["dependsOn"] = task.depends_on
    if task.topology_policy:
        item["topologyPolicy"] = task.topology_policy
    if task.partition_policy is not None:
        item["partitionPolicy"] = task.partition_policy
    item["template"] = task.template
    return item
