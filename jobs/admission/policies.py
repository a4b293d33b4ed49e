"""Job admission rules for the parts of the spec beside the tasks' numbers.

Lifecycle policies, job plugins, volumes and the ``dependsOn`` graph, as
Volcano's job webhook checks them (``pkg/webhooks/admission/jobs/validate/util.go``
validatePolicies / validateIO / the topological sort, and the plugin registry).
Each function appends every violation it finds to ``causes``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from apis.durations import parse_duration
from kube.admission_causes import Causes, CauseType
from kube.validators import dns1123_subdomain_error

__all__ = [
    "FRAMEWORK_FLAGS",
    "JOB_PLUGINS",
    "POLICY_ACTIONS",
    "POLICY_EVENTS",
    "validate_depends_on",
    "validate_plugins",
    "validate_policies",
    "validate_volumes",
]

ANY_EVENT = "*"
# Events a user may name in a policy (PodRunning, OutOfSync, CommandIssued are internal).
POLICY_EVENTS = (
    ANY_EVENT,
    "PodFailed",
    "PodEvicted",
    "PodPending",
    "Unknown",
    "TaskCompleted",
    "TaskFailed",
    "JobUpdated",
)
# Actions a user may ask for (SyncJob, EnqueueJob and the queue actions are internal).
POLICY_ACTIONS = (
    "AbortJob",
    "RestartJob",
    "RestartTask",
    "RestartPod",
    "RestartPartition",
    "TerminateJob",
    "CompleteJob",
    "ResumeJob",
)
# The framework plugins' flags and their defaults (Volcano's plugin docs).
FRAMEWORK_FLAGS: dict[str, dict[str, str]] = {
    "pytorch": {"master": "master", "worker": "worker", "port": "23456"},
    "tensorflow": {
        "ps": "ps",
        "worker": "worker",
        "chief": "chief",
        "evaluator": "evaluator",
        "port": "2222",
    },
    "mpi": {"master": "master", "worker": "worker", "port": "22"},
}
JOB_PLUGINS = ("ssh", "env", "svc", "tensorflow", "mpi", "pytorch", "hcclrank", "ray")
DEPENDS_ON_ITERATIONS = ("any", "all")


def policy_events(policy: Mapping[str, Any]) -> list[str]:
    """Return every event a policy names (``event`` and ``events`` together), each once.

    Volcano removes repeats inside one policy (its e2e suite submits
    ``[PodEvicted, PodFailed, PodEvicted]``); only an event named by two policies is refused.
    """
    events = [policy["event"]] if policy.get("event") else []
    return list(dict.fromkeys([*events, *(policy.get("events") or [])]))


def validate_policies(policies: Sequence[Mapping[str, Any]], path: str, causes: Causes) -> None:
    """Check one list of lifecycle policies (job-level or one task's) at ``path``."""
    seen_events: dict[str, str] = {}
    seen_codes: dict[int, str] = {}
    for index, policy in enumerate(policies):
        at = f"{path}[{index}]"
        events = policy_events(policy)
        exit_code = policy.get("exitCode")
        if events and exit_code is not None:
            causes.invalid(at, "must not specify event and exitCode simultaneously")
            continue
        if not events and exit_code is None:
            causes.required(at, "either event and exitCode should be specified")
            continue
        action = policy.get("action", "")
        if not action:
            causes.required(f"{at}.action")
        elif action not in POLICY_ACTIONS:
            causes.add(
                f"{at}.action",
                CauseType.NOT_SUPPORTED,
                f"{action!r}: invalid policy action, valid actions are {', '.join(POLICY_ACTIONS)}",
            )
        if exit_code is not None:
            if exit_code == 0:
                causes.invalid(f"{at}.exitCode", "0 is not a valid error code")
            elif exit_code in seen_codes:
                causes.duplicate(
                    f"{at}.exitCode",
                    f"duplicate exitCode {exit_code} (see {seen_codes[exit_code]})",
                )
            else:
                seen_codes[exit_code] = at
        event_field = f"{at}.event" if policy.get("event") else f"{at}.events"
        for event in events:
            if event not in POLICY_EVENTS:
                causes.add(
                    event_field,
                    CauseType.NOT_SUPPORTED,
                    f"{event!r}: invalid policy event, valid events are {', '.join(POLICY_EVENTS)}",
                )
            elif event in seen_events:
                causes.duplicate(
                    event_field,
                    f"duplicate event {event} across different policy (see {seen_events[event]})",
                )
            else:
                seen_events[event] = at
        if timeout := policy.get("timeout"):
            try:
                if parse_duration(str(timeout)) < 0:
                    causes.invalid(f"{at}.timeout", "must not be negative")
            except ValueError as exc:
                causes.invalid(f"{at}.timeout", str(exc))
    if ANY_EVENT in seen_events and len(seen_events) > 1:
        causes.invalid(path, "if there's * here, no other policy should be here")


def validate_plugins(
    plugins: Mapping[str, Sequence[str]], task_names: Sequence[str], causes: Causes
) -> None:
    """Check ``spec.plugins``: registered names only, the framework plugins' flags and ports;
    mpi's master task must exist."""
    for name, arguments in plugins.items():
        if name not in JOB_PLUGINS:
            causes.add(
                f"spec.plugins.{name}",
                CauseType.NOT_SUPPORTED,
                f"unable to find job plugin: {name} (supported: {', '.join(JOB_PLUGINS)})",
            )
            continue
        if name in FRAMEWORK_FLAGS:
            _validate_framework_flags(name, arguments, causes)
        if name == "mpi":
            master = "master"
            for argument in arguments:
                if argument.startswith("--master="):
                    master = argument.partition("=")[2]
            if master not in task_names:
                causes.not_found(
                    "spec.plugins.mpi",
                    f"The specified mpi master task was not found (no task {master!r})",
                )


def _validate_framework_flags(name: str, arguments: Sequence[str], causes: Causes) -> None:
    """A framework plugin takes its own ``--flag=value`` arguments only; the port is a port."""
    known = FRAMEWORK_FLAGS[name]
    for index, argument in enumerate(arguments):
        at = f"spec.plugins.{name}[{index}]"
        key, equals, value = str(argument).lstrip("-").partition("=")
        if not str(argument).startswith("--") or key not in known or not equals:
            flags = ", ".join(f"--{flag}=" for flag in known)
            causes.invalid(at, f"unknown argument {argument!r}; the {name} plugin takes {flags}")
        elif not value:
            causes.invalid(at, f"--{key} needs a value")
        elif key == "port" and not (value.isdigit() and 0 < int(value) < 65536):
            causes.invalid(at, f"--port must be a port number (1-65535), got {value!r}")


def validate_volumes(volumes: Sequence[Mapping[str, Any]], causes: Causes) -> None:
    """Check ``spec.volumes``: mountPath required and unique; exactly one of claim and name.

    As Volcano's webhook: a volume with neither ``volumeClaim`` nor ``volumeClaimName`` is
    refused ("either VolumeClaim or VolumeClaimName must be specified"). Earlier versions
    accepted one, because the shipped example had one; the example now names its claim. A job
    stored then keeps its Warning ``VolumeClaimMissing`` from the controller.
    """
    mount_paths: dict[str, str] = {}
    for index, volume in enumerate(volumes):
        at = f"spec.volumes[{index}]"
        mount_path = volume.get("mountPath", "")
        if not mount_path:
            causes.required(f"{at}.mountPath", "mountPath is required")
        elif mount_path in mount_paths:
            causes.duplicate(f"{at}.mountPath", f"duplicated mountPath: {mount_path}")
        else:
            mount_paths[mount_path] = at
        claim_name = volume.get("volumeClaimName", "")
        if not claim_name and volume.get("volumeClaim") is None:
            causes.required(at, "either VolumeClaim or VolumeClaimName must be specified")
        if claim_name and volume.get("volumeClaim") is not None:
            causes.invalid(
                at,
                "conflict: If you want to use an existing PVC, just specify VolumeClaimName. "
                "If you want to create a new PVC, you do not need to specify VolumeClaimName",
            )
        if claim_name and (error := dns1123_subdomain_error(claim_name)):
            causes.invalid(
                f"{at}.volumeClaimName", f"invalid VolumeClaimName {claim_name}: {error}"
            )


def validate_depends_on(
    depends: Sequence[Mapping[str, Any] | None], names: Sequence[str], causes: Causes
) -> None:
    """Check every task's ``dependsOn``: known task names, iteration any/all, and no cycle."""
    graph: dict[str, list[str]] = {}
    for index, (name, depends_on) in enumerate(zip(names, depends, strict=True)):
        if not depends_on:
            continue
        at = f"spec.tasks[{index}].dependsOn"
        for position, target in enumerate(depends_on.get("name") or []):
            if target not in names:
                causes.not_found(f"{at}.name[{position}]", f"task {target!r} does not exist")
            elif target == name:
                causes.invalid(f"{at}.name[{position}]", "a task cannot depend on itself")
            else:
                graph.setdefault(name, []).append(target)
        iteration = depends_on.get("iteration")
        if iteration and iteration not in DEPENDS_ON_ITERATIONS:
            causes.not_supported(f"{at}.iteration", iteration, DEPENDS_ON_ITERATIONS)
    if cycle := _find_cycle(graph):
        index = names.index(cycle[0])
        causes.invalid(
            f"spec.tasks[{index}].dependsOn",
            "job has dependencies between tasks, but doesn't form a directed acyclic "
            f"graph(DAG): {' -> '.join(cycle)}",
        )


def _find_cycle(graph: Mapping[str, Sequence[str]]) -> list[str]:
    """Return one cycle of ``graph`` as a path that ends where it starts, or ``[]``."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for target in graph.get(node, ()):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state and (found := visit(target)):
                return found
        path.pop()
        state[node] = 2
        return []

    for node in graph:
        if node not in state and (found := visit(node)):
            return found
    return []
