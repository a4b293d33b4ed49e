"""OpenAPI schemas of the served kinds, as ``kubectl explain`` and client validation read them.

The Volcano kinds follow the fields of Volcano's CRDs (descriptions in our own
words); a pod template, a container and the core kinds keep unknown fields
(``x-kubernetes-preserve-unknown-fields``) because the server, not the schema,
judges them (admission names the wrong field). Schemas are plain dicts valid
in both OpenAPI v2 and v3 (the ``$ref`` prefix is the only difference).
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "JOB_SPEC",
    "OBJECT_META",
    "array_of",
    "free_object",
    "integer",
    "kind_schema",
    "object_of",
    "string",
]

Schema = dict[str, Any]


def _s(description: str, **extra: Any) -> Schema:
    return {"type": "string", "description": description, **extra}


def _i(description: str, **extra: Any) -> Schema:
    return {"type": "integer", "format": "int32", "description": description, **extra}


def _obj(description: str, properties: dict[str, Schema], **extra: Any) -> Schema:
    return {"type": "object", "description": description, "properties": properties, **extra}


def _free(description: str) -> Schema:
    return {
        "type": "object",
        "description": description,
        "x-kubernetes-preserve-unknown-fields": True,
    }


def _array(description: str, items: Schema) -> Schema:
    return {"type": "array", "description": description, "items": items}


_QUANTITIES: Schema = {
    "type": "object",
    "description": "Resource name to quantity (cpu: 500m, memory: 1Gi, nvidia.com/gpu: 1).",
    "additionalProperties": {"x-kubernetes-int-or-string": True},
}
_STRINGS: Schema = {"type": "object", "additionalProperties": {"type": "string"}}

OBJECT_META: Schema = _obj(
    "Standard object metadata: name, namespace, labels, annotations and server-set fields.",
    {
        "name": _s("Name, unique within a namespace (or the cluster for cluster-scoped kinds)."),
        "generateName": _s("Prefix of a server-generated name, used when name is empty."),
        "namespace": _s("Namespace of a namespaced object."),
        "labels": {**_STRINGS, "description": "Labels to select and organise objects."},
        "annotations": {**_STRINGS, "description": "Arbitrary non-identifying metadata."},
        "uid": _s("Unique id set by the server."),
        "resourceVersion": _s("Opaque version; a stale one on update is 409 Conflict."),
        "generation": {"type": "integer", "format": "int64", "description": "Spec version."},
        "creationTimestamp": _s("When the object was created (RFC 3339).", format="date-time"),
        "deletionTimestamp": _s("When deletion was asked (RFC 3339).", format="date-time"),
        "finalizers": _array(
            "Finalizers: a delete waits until clients remove them.", {"type": "string"}
        ),
        "ownerReferences": _array(
            "Owners of this object: it is deleted when its last owner is.",
            _free("An owner reference: apiVersion, kind, name, uid (required), controller."),
        ),
        "deletionGracePeriodSeconds": {
            "type": "integer",
            "format": "int64",
            "description": "0 once deletion was asked.",
        },
        "managedFields": _array("Field managers (server-side apply).", _free("An entry.")),
    },
)

_EVENTS = [
    "*",
    "PodPending",
    "PodRunning",
    "PodFailed",
    "PodEvicted",
    "Unknown",
    "TaskCompleted",
    "OutOfSync",
    "CommandIssued",
    "JobUpdated",
    "TaskFailed",
]
_POLICY = _obj(
    "What to do (action) when an event happens or a pod exits with exitCode.",
    {
        "action": _s("AbortJob, RestartJob, RestartTask, RestartPod, TerminateJob, CompleteJob."),
        "event": _s("The event that triggers the action.", enum=_EVENTS),
        "events": _array("Events that trigger the action.", _s("An event.", enum=_EVENTS)),
        "exitCode": _i("A container exit code that triggers the action."),
        "timeout": _s("How long to wait before acting (a Go duration such as 10m)."),
    },
)
_NETWORK_TOPOLOGY = _obj(
    "Network topology constraint (HyperNode tiers) the gang must stay within.",
    {
        "mode": _s("hard or soft.", enum=["hard", "soft"], default="hard"),
        "highestTierAllowed": _i("Highest HyperNode tier the gang may span.", minimum=0),
        "highestTierName": _s("Highest tier, by HyperNode tierName.", maxLength=253),
    },
)
_NAMES = _array("Node-group names (label volcano.sh/nodegroup-name).", {"type": "string"})
_NODE_GROUP_RULES = {
    "requiredDuringSchedulingIgnoredDuringExecution": _NAMES,
    "preferredDuringSchedulingIgnoredDuringExecution": _NAMES,
}
_TASK = _obj(
    "A set of identical pods of the job (ps, worker, ...).",
    {
        "name": _s("Task name, unique within the job (a DNS-1123 label).", maxLength=63),
        "replicas": _i("How many pods the task runs.", minimum=0),
        "minAvailable": _i("Pods of this task that must be scheduled together.", minimum=0),
        "maxRetry": _i("How often the task may restart before it fails.", minimum=0),
        "template": _free("The pod template (metadata and spec) of every pod of the task."),
        "policies": _array("Lifecycle policies of this task.", _POLICY),
        "dependsOn": _obj(
            "Tasks that must be ready before this one starts.",
            {
                "name": _array("Task names.", {"type": "string"}),
                "iteration": _s("any or all."),
            },
        ),
        "topologyPolicy": _s(
            "NUMA topology policy: none, best-effort, restricted, single-numa-node."
        ),
        "partitionPolicy": _obj(
            "Pods in groups of partitionSize, each a subGroupPolicy of the job's PodGroup.",
            {
                "totalPartitions": _i("How many groups (replicas = groups x size).", minimum=1),
                "partitionSize": _i("Pods per group.", minimum=1),
                "minPartitions": _i("Groups that must be scheduled together.", minimum=0),
                "networkTopology": _NETWORK_TOPOLOGY,
            },
        ),
    },
)
_JOB_SPEC = _obj(
    "Specification of the desired behaviour of the Volcano job.",
    {
        "schedulerName": _s("Scheduler of the job's pods (volcano).", maxLength=63),
        "minAvailable": _i("Pods that must be scheduled together (gang size).", minimum=0),
        "minSuccess": _i("Pods that must succeed for the job to complete.", minimum=1),
        "queue": _s("Queue the job is scheduled in.", default="default"),
        "priorityClassName": _s("PriorityClass of the job."),
        "maxRetry": _i("How often the job may restart before it fails.", minimum=0, default=3),
        "ttlSecondsAfterFinished": _i("Seconds after the job finished before it is deleted."),
        "tasks": _array("The tasks of the job.", _TASK),
        "policies": _array("Lifecycle policies of the job.", _POLICY),
        "plugins": {
            "type": "object",
            "description": "Job plugins (ssh, svc, env, ...) and their arguments.",
            "additionalProperties": {"type": "array", "items": {"type": "string"}},
        },
        "volumes": _array("Volumes mounted into every pod.", _free("A volume.")),
        "runningEstimate": _s("Expected running time (a Go duration)."),
        "networkTopology": _NETWORK_TOPOLOGY,
    },
)
_JOB_STATUS = _obj(
    "Current state of the job, written by the controller.",
    {
        "state": _obj(
            "The job's phase and why.",
            {
                "phase": _s("Pending, Running, Completed, Aborted, Failed, ..."),
                "reason": _s("Why the job is in this phase."),
                "message": _s("Details."),
                "lastTransitionTime": _s("When the phase changed.", format="date-time"),
            },
        ),
        "minAvailable": _i("The job's minAvailable."),
        "pending": _i("Pods pending."),
        "running": _i("Pods running."),
        "succeeded": _i("Pods succeeded."),
        "failed": _i("Pods failed."),
        "terminating": _i("Pods terminating."),
        "unknown": _i("Pods in an unknown state."),
        "version": _i("Internal job version."),
        "retryCount": _i("How often the job restarted."),
        "runningDuration": _s("How long the job has run."),
        "taskStatusCount": _free("Pod phases counted per task."),
        "conditions": _array("Phase history.", _free("A condition.")),
        "controlledResources": {**_STRINGS, "description": "Resources the plugins created."},
    },
)
_PODGROUP_SPEC = _obj(
    "Specification of the pod group.",
    {
        "minMember": _i("Pods that must be scheduled together."),
        "minTaskMember": {
            "type": "object",
            "description": "Minimal members per task.",
            "additionalProperties": {"type": "integer", "format": "int32"},
        },
        "minResources": {**_QUANTITIES, "description": "Resources the gang needs at least."},
        "queue": _s("Queue of the pod group.", default="default"),
        "priorityClassName": _s("PriorityClass of the pod group."),
        "preemptable": {"type": "boolean", "description": "Whether its pods may be preempted."},
        "networkTopology": _NETWORK_TOPOLOGY,
        "subGroupPolicy": _array(
            "Sub-groups of the gang, each scheduled whole within its own network topology.",
            _obj(
                "A sub-group: the matching pods, grouped by the values of matchLabelKeys.",
                {
                    "name": _s("Name of the sub-group policy.", maxLength=253),
                    "networkTopology": _NETWORK_TOPOLOGY,
                    "subGroupSize": _i("Pods per sub-group.", minimum=1, default=1),
                    "minSubGroups": _i("Sub-groups that must fit.", minimum=0, default=0),
                    "labelSelector": _free("The pods this policy applies to."),
                    "matchLabelKeys": _array("Label keys grouping the pods.", {"type": "string"}),
                },
            ),
        ),
    },
)
_PODGROUP_STATUS = _obj(
    "Current state of the pod group, written by the scheduler.",
    {
        "phase": _s("Pending, Inqueue, Running, Unknown, Completed."),
        "conditions": _array("Scheduling conditions.", _free("A condition.")),
        "running": _i("Pods running."),
        "succeeded": _i("Pods succeeded."),
        "failed": _i("Pods failed."),
    },
)
_QUEUE_SPEC = _obj(
    "Specification of the queue.",
    {
        "weight": _i("Share of the cluster relative to other queues."),
        "capability": {**_QUANTITIES, "description": "Most the queue may use."},
        "deserved": {**_QUANTITIES, "description": "What the queue deserves (capacity plugin)."},
        "guarantee": _obj("Reserved resources.", {"resource": _QUANTITIES}),
        "reclaimable": {"type": "boolean", "description": "Whether others may reclaim from it."},
        "parent": _s("Parent queue (hierarchical queues)."),
        "priority": _i("Queue priority."),
        "type": _s("Queue type."),
        "affinity": _obj(
            "Node groups the queue's pods must, should or must not run on.",
            {
                "nodeGroupAffinity": _obj("Node groups to run on.", _NODE_GROUP_RULES),
                "nodeGroupAntiAffinity": _obj("Node groups to avoid.", _NODE_GROUP_RULES),
            },
        ),
        "extendClusters": _array("Clusters the queue dispatches to.", _free("A cluster.")),
    },
)
_QUEUE_STATUS = _obj(
    "Current state of the queue.",
    {
        "state": _s("Open, Closed, Closing, Unknown."),
        "pending": _i("PodGroups pending."),
        "inqueue": _i("PodGroups inqueue."),
        "running": _i("PodGroups running."),
        "completed": _i("PodGroups completed."),
        "unknown": _i("PodGroups unknown."),
        "allocated": {**_QUANTITIES, "description": "Resources allocated in the queue."},
        "reservation": _free("Reservation profile."),
    },
)

_RUN_POLICY = _obj(
    "How the training operator runs the job: cleanup, limits and the gang's scheduling.",
    {
        "cleanPodPolicy": _s("Pods deleted when the job ends: None, Running or All."),
        "ttlSecondsAfterFinished": _i("Seconds after the job ends before it is deleted."),
        "activeDeadlineSeconds": _i("Seconds from the start after which the job fails."),
        "backoffLimit": _i("Pod restarts allowed before the job fails."),
        "suspend": {"type": "boolean", "description": "Hold the job without pods."},
        "managedBy": _s("The controller that manages the job."),
        "schedulingPolicy": _obj(
            "The PodGroup the gang scheduler (Volcano) admits the job as.",
            {
                "minAvailable": _i("The gang's size (minMember); all replicas when unset."),
                "queue": _s("The Volcano queue of the job's PodGroup."),
                "minResources": {**_QUANTITIES, "description": "The gang's minimum resources."},
                "priorityClass": _s("The PriorityClass of the job's PodGroup."),
                "scheduleTimeoutSeconds": _i("How long the gang may wait to be scheduled."),
            },
        ),
    },
)


def _replica_specs(description: str) -> Schema:
    return {
        "type": "object",
        "description": description,
        "additionalProperties": _obj(
            "One replica type: how many pods, how they restart, their template.",
            {
                "replicas": _i("Pods of this type (default 1)."),
                "restartPolicy": _s("Always, OnFailure, Never or ExitCode."),
                "template": _free("The pod template of every replica."),
            },
        ),
    }


_TRAINING_STATUS = _obj(
    "What the training operator observed.",
    {
        "conditions": _array(
            "Created, Running, Restarting, Succeeded, Failed; the last is the state.",
            _free("A condition: type, status, reason, message, times."),
        ),
        "replicaStatuses": _free("Per replica type: active, succeeded and failed pods."),
        "startTime": _s("When the operator first saw the job.", format="date-time"),
        "completionTime": _s("When the job ended.", format="date-time"),
        "lastReconcileTime": _s("The operator's last pass.", format="date-time"),
    },
)


def _training(
    kind: str, key: str, types: str, extra: dict[str, Schema]
) -> tuple[str, dict[str, Schema]]:
    spec = _obj(
        f"The {kind}'s replicas and run policy.",
        {
            "runPolicy": _RUN_POLICY,
            key: _replica_specs(f"Replica specs by type: {types}."),
            **extra,
        },
    )
    return (
        f"A Kubeflow {kind} gang-scheduled by Volcano.",
        {"spec": spec, "status": _TRAINING_STATUS},
    )


_BODIES: dict[str, tuple[str, dict[str, Schema]]] = {
    "Job": (
        "A Volcano job: tasks of pod replicas scheduled as a gang in a queue.",
        {"spec": _JOB_SPEC, "status": _JOB_STATUS},
    ),
    "PodGroup": (
        "A collection of pods scheduled together (gang scheduling).",
        {"spec": _PODGROUP_SPEC, "status": _PODGROUP_STATUS},
    ),
    "Queue": (
        "A queue of PodGroups sharing cluster resources by weight.",
        {"spec": _QUEUE_SPEC, "status": _QUEUE_STATUS},
    ),
    "Command": (
        "A command (AbortJob, ResumeJob, ...) sent to a job or queue.",
        {
            "action": _s("The action: AbortJob, RestartJob, ResumeJob, OpenQueue, CloseQueue."),
            "target": _free("The owner reference of the target object."),
            "reason": _s("Why."),
            "message": _s("Details."),
        },
    ),
    "PriorityClass": (
        "A priority value for pods and jobs that name it.",
        {
            "value": _i("The priority; higher is scheduled first."),
            "globalDefault": {"type": "boolean", "description": "Default for jobs naming none."},
            "preemptionPolicy": _s("PreemptLowerPriority or Never."),
            "description": _s("What the class is for."),
        },
    ),
    "PyTorchJob": _training(
        "PyTorchJob",
        "pytorchReplicaSpecs",
        "Master, Worker",
        {
            "elasticPolicy": _free("Elastic training bounds (torchrun's rendezvous)."),
            "nprocPerNode": _s("Processes per pod."),
        },
    ),
    "TFJob": _training(
        "TFJob",
        "tfReplicaSpecs",
        "Chief, Master, PS, Worker, Evaluator",
        {
            "successPolicy": _s("When the job succeeds: the chief (default) or AllWorkers."),
            "enableDynamicWorker": {"type": "boolean", "description": "Workers may change."},
        },
    ),
    "MPIJob": _training(
        "MPIJob",
        "mpiReplicaSpecs",
        "Launcher, Worker",
        {
            "slotsPerWorker": _i("Slots per worker in the hostfile (default 1)."),
            "mainContainer": _s("The container mpirun runs in."),
            "cleanPodPolicy": _s("Deprecated: runPolicy.cleanPodPolicy."),
        },
    ),
}


def kind_schema(
    kind: str,
    group: str,
    version: str,
    meta_ref: str,
    declared: tuple[str, dict[str, Schema]] | None = None,
) -> Schema:
    """Return the schema of ``kind``, with its group-version-kind extension.

    ``declared`` is the schema an app declared with its kind (``Entry.schema``); the kernel's
    own table holds the kinds declared before apps could.
    """
    description, body = declared or _BODIES.get(
        kind,
        (
            f"A {kind}.",
            {"spec": _free(f"The {kind}'s spec."), "status": _free(f"The {kind}'s status.")},
        ),
    )
    properties: dict[str, Schema] = {
        "apiVersion": _s("The versioned schema of this object."),
        "kind": _s("The kind of this object."),
        "metadata": {"$ref": meta_ref, "description": "Standard object metadata."},
        **body,
    }
    schema: Schema = {
        "type": "object",
        "description": description,
        "properties": properties,
        "x-kubernetes-group-version-kind": [{"group": group, "version": version, "kind": kind}],
    }
    if kind in ("Pod", "Node", "Event"):
        schema["x-kubernetes-preserve-unknown-fields"] = True
    return schema


# The builders and the Volcano Job spec, for apps that declare their kinds' schemas.
string = _s
integer = _i
object_of = _obj
free_object = _free
array_of = _array
JOB_SPEC = _JOB_SPEC
