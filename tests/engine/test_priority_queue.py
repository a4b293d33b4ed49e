"""Task and job ordering helpers: key sorting gives exactly the comparator's order."""

from __future__ import annotations

from functools import cmp_to_key

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduler.engine.framework import open_session
from scheduler.engine.util.priority_queue import PriorityQueue, sort_tasks
from tests.engine.builders import build_cluster, build_node, build_pod, build_pod_group, conf

NAMES = st.sampled_from(["w-task-{}", "ps-{}", "solo", "x-y-z", "a-b-{}"])


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(NAMES, st.integers(0, 30), st.integers(0, 3), st.booleans()),
        min_size=1,
        max_size=25,
        unique_by=lambda t: (t[0], t[1]),
    )
)
def test_sorting_by_key_equals_sorting_by_comparison(specs):
    pods = []
    for i, (pattern, n, prio, with_time) in enumerate(specs):
        name = pattern.format(n) if "{}" in pattern else f"{pattern}{i}"
        pod = build_pod(
            f"{name}-{i}" if "{}" not in pattern else name, priority=prio, minutes=n % 4
        )
        if not with_time:
            pod.creation_timestamp = None
        pods.append(pod)
    unique = {p.uid: p for p in pods}
    job = build_pod_group("j", list(unique.values()))
    ssn = open_session(build_cluster([build_node("n1")], [job]), conf("allocate"))
    tasks = list(job.tasks.values())
    assert sort_tasks(ssn, tasks) == sorted(tasks, key=cmp_to_key(ssn.task_order_cmp))


def test_priority_queue_pops_in_compare_order_and_keeps_insertion_order_on_ties():
    queue = PriorityQueue(
        lambda a, b: (a[0] > b[0]) - (a[0] < b[0]), [(2, "x"), (1, "a"), (2, "y"), (1, "b")]
    )
    assert [queue.pop() for _ in range(len(queue))] == [(1, "a"), (1, "b"), (2, "x"), (2, "y")]
    assert queue.empty()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), max_size=30))
def test_a_queue_ordered_by_tuple_keys_pops_in_key_then_insertion_order(keys):
    queue: PriorityQueue[int] = PriorityQueue(lambda a, b: 0, key=lambda i: keys[i])
    for i in range(len(keys)):
        queue.push(i)
    popped = [queue.pop() for _ in range(len(keys))]
    assert popped == sorted(range(len(keys)), key=lambda i: (keys[i], i))


def test_a_queue_refuses_order_keys_of_different_shapes():
    queue: PriorityQueue[tuple[int, ...]] = PriorityQueue(lambda a, b: 0, key=lambda k: k)
    queue.push((1, 2))
    with pytest.raises(ValueError, match="one length"):
        queue.push((1,))
    with pytest.raises(ValueError, match="one length"):
        queue.push(3)  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), max_size=30), st.integers(0, 30))
def test_pushing_all_at_once_pops_as_pushing_one_by_one(keys, split):
    one_by_one: PriorityQueue[int] = PriorityQueue(lambda a, b: 0, key=lambda i: keys[i])
    at_once: PriorityQueue[int] = PriorityQueue(lambda a, b: 0, key=lambda i: keys[i])
    for i in range(len(keys)):
        one_by_one.push(i)
    at_once.push_all(range(min(split, len(keys))))
    for i in range(min(split, len(keys)), len(keys)):
        at_once.push(i)
    assert [one_by_one.pop() for _ in keys] == [at_once.pop() for _ in keys]
