"""cdp: the cool-down read from a pod, and the session clock it is compared with.

Preempt and reclaim cases are scenario files (tests/scenarios/cdp, from Volcano's cdp_test.go).
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from apis.errors import ManifestError
from scheduler.engine.api.task_info import TaskInfo, TaskTemplate
from scheduler.engine.api.types import TaskStatus
from scheduler.engine.plugins.cdp import cooldown_time, cooling_down
from scheduler.engine.util.scenario import load_scenario
from tests.engine.builders import T0, build_pod


def _pod(
    labels: dict[str, str] | None = None,
    annotations: dict[str, str] | None = None,
    *,
    scheduled_ago: int | None = 100,
    status: TaskStatus = TaskStatus.RUNNING,
) -> TaskInfo:
    task = build_pod("p-task-0", status=status, node="n1")
    task.template = TaskTemplate(namespace="ns", labels=labels or {})
    task.annotations = annotations or {}
    if scheduled_ago is not None:
        task.scheduled_at = T0 - timedelta(seconds=scheduled_ago)
    return task


@pytest.mark.parametrize(
    ("labels", "annotations", "expected"),
    [
        ({}, {"volcano.sh/cooldown-time": "600s"}, timedelta(seconds=600)),
        ({}, {"volcano.sh/cooldown-time": "600abcde"}, None),
        (
            {"volcano.sh/cooldown-time": "10m"},
            {"volcano.sh/cooldown-time": "1s"},
            timedelta(minutes=10),
        ),
        ({"volcano.sh/cooldown-time": "bad"}, {"volcano.sh/cooldown-time": "1s"}, None),
        ({}, {}, None),
    ],
)
def test_cooldown_time(
    labels: dict[str, str], annotations: dict[str, str], expected: timedelta | None
) -> None:
    assert cooldown_time(_pod(labels, annotations)) == expected


def test_protected_strictly_until_the_cooldown_ends() -> None:
    annotations = {"volcano.sh/cooldown-time": "600s"}
    assert cooling_down(_pod(annotations=annotations, scheduled_ago=599), T0)
    assert not cooling_down(_pod(annotations=annotations, scheduled_ago=600), T0)


def test_only_running_pods_with_a_scheduled_time_are_protected() -> None:
    annotations = {"volcano.sh/cooldown-time": "600s"}
    assert not cooling_down(_pod(annotations=annotations, status=TaskStatus.BOUND), T0)
    assert not cooling_down(_pod(annotations=annotations, scheduled_ago=None), T0)


POD = """
name: conditions
objects:
- apiVersion: v1
  kind: Pod
  metadata: {name: p, namespace: ns}
  spec:
    nodeName: n1
    containers: [{name: c, image: busybox}]
  status:
    phase: Running
    conditions:
    - {type: PodScheduled, status: 'False', lastTransitionTime: '2024-01-01T10:00:00Z'}
    - {type: PodScheduled, status: 'True', lastTransitionTime: '2024-01-01T11:00:00Z'}
    - {type: Ready, status: 'True', lastTransitionTime: '2024-01-01T11:05:00Z'}
"""


def test_scenario_reads_the_first_true_pod_scheduled_condition() -> None:
    task = load_scenario(POD).cluster.jobs["ns/p"].tasks["ns/p"]
    assert task.scheduled_at == T0 + timedelta(hours=11)


def test_malformed_transition_time_names_the_field() -> None:
    with pytest.raises(ManifestError) as info:
        load_scenario(POD.replace("'2024-01-01T11:00:00Z'", "yesterday"))
    assert "status.conditions[1].lastTransitionTime" in str(info.value)
