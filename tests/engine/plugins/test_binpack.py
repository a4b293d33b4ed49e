"""Binpack plugin: pods go to the node that is fullest after placing them."""

from __future__ import annotations

import numpy as np
import pytest

from apis.errors import ConfError
from scheduler.engine.api.node_info import NodeInfo
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import TaskStatus
from scheduler.engine.conf import load_conf
from scheduler.engine.framework import open_session, run_session
from tests.engine.builders import build_cluster, build_node, build_pod, build_pod_group, res


def binpack_conf(arguments: str = "") -> str:
    """Return a conf of gang + predicates + binpack with the given argument lines."""
    text = "actions: allocate\ntiers:\n- plugins:\n  - name: gang\n  - name: predicates\n"
    text += "  - name: binpack\n"
    if arguments:
        text += "    arguments:\n" + "".join(f"      {line}\n" for line in arguments.split(";"))
    return text


def running(name: str, node: str, cpu: str = "1") -> TaskInfo:
    return build_pod(name, status=TaskStatus.RUNNING, node=node, cpu=cpu)


def gpu_pod(name: str, gpus: str = "1") -> TaskInfo:
    task = build_pod(name)
    task.resreq = res({"nvidia.com/gpu": gpus}, cpu="1", memory="1Gi", pods=1)
    return task


def gpu_node(name: str) -> NodeInfo:
    """Return an 8 CPU / 8Gi node with 4 GPUs."""
    return NodeInfo(name, res({"nvidia.com/gpu": "4"}, cpu="8", memory="8Gi", pods=110))


def scores(nodes: list[NodeInfo], task: TaskInfo, others: list[TaskInfo], text: str) -> list[float]:
    jobs = [build_pod_group("job", [task])]
    jobs += [build_pod_group(f"o-{i}", [t]) for i, t in enumerate(others)]
    ssn = open_session(build_cluster(nodes, jobs), load_conf(text))
    return [float(x) for x in ssn.node_scores(task, np.arange(len(nodes), dtype=np.int64))]


def test_pod_goes_to_the_busier_node():
    nodes = [build_node("n1"), build_node("n2")]
    jobs = [
        build_pod_group("job", [build_pod("job-task-0")]),
        build_pod_group("o", [running("o-0", "n2", cpu="2")]),
    ]
    decisions = run_session(build_cluster(nodes, jobs), load_conf(binpack_conf()))
    assert decisions.binds == {"ns/job-task-0": "n2"}


def test_score_is_the_weighted_share_used_after_placement():
    # n1 (4 CPU / 8Gi) runs a 2 CPU / 1Gi pod; after a 1 CPU / 1Gi pod: cpu 3/4, memory 2/8,
    # so (0.75 + 0.25) / 2 x 100 = 50.
    others = [running("o-0", "n1", cpu="2")]
    assert scores([build_node("n1")], build_pod("p-0"), others, binpack_conf()) == [50.0]


def test_weights_change_the_mix_and_binpack_weight_scales_it():
    others = [running("o-0", "n1", cpu="2")]
    text = binpack_conf("binpack.cpu: 3;binpack.memory: 1;binpack.weight: 2")
    # (3 x 0.75 + 1 x 0.25) / 4 x 100 x 2 = 125
    assert scores([build_node("n1")], build_pod("p-0"), others, text) == [125.0]


def test_negative_resource_weight_counts_as_one():
    others = [running("o-0", "n1", cpu="2")]
    text = binpack_conf("binpack.cpu: -5")
    assert scores([build_node("n1")], build_pod("p-0"), others, text) == [50.0]


def test_node_that_would_overflow_scores_zero():
    assert scores([build_node("n1", cpu="1")], build_pod("p-0", cpu="2"), [], binpack_conf()) == [
        0.0
    ]


def test_weight_zero_turns_binpack_off():
    nodes = [build_node("n1"), build_node("n2")]
    others = [running("o-0", "n2", cpu="2")]
    # no scorer left: equal nodes tie and the first by name wins
    jobs = [build_pod_group("job", [build_pod("job-task-0")])]
    jobs += [build_pod_group("o", others)]
    text = binpack_conf("binpack.weight: 0")
    decisions = run_session(build_cluster(nodes, jobs), load_conf(text))
    assert decisions.binds == {"ns/job-task-0": "n1"}


def test_listed_extended_resource_is_packed_too():
    nodes = [
        gpu_node("n1"),
        gpu_node("n2"),
    ]
    holder = gpu_pod("o-0", gpus="3")
    holder.status, holder.node_name = TaskStatus.RUNNING, "n2"
    busy_cpu = running("c-0", "n1", cpu="4")
    text = binpack_conf("binpack.resources: nvidia.com/gpu;binpack.resources.nvidia.com/gpu: 10")
    result = scores(nodes, gpu_pod("p-0"), [holder, busy_cpu], text)
    assert result[1] > result[0]  # the GPU-heavy node wins once GPUs weigh 10
    unlisted = scores(nodes, gpu_pod("p-0"), [holder, busy_cpu], binpack_conf())
    assert unlisted[0] > unlisted[1]  # without the GPU weight the CPU-heavy node wins


def test_resource_the_node_lacks_contributes_zero_but_keeps_its_weight():
    nodes = [build_node("n1")]
    text = binpack_conf("binpack.resources: nvidia.com/gpu")
    # cpu 1/4, memory 1/8, gpu 0 (node has none): (0.25 + 0.125 + 0) / 3 x 100
    result = scores(nodes, gpu_pod("p-0"), [], text)
    assert result == pytest.approx([12.5])


def test_bad_weight_type_names_the_argument():
    with pytest.raises(ConfError) as err:
        load_conf(binpack_conf('binpack.weight: "ten"'))
    assert "tiers[0].plugins[2].arguments.binpack.weight" in str(err.value)


def test_unknown_binpack_argument_is_refused():
    with pytest.raises(ConfError) as err:
        load_conf(binpack_conf("binpack.gpu: 1"))
    assert "binpack.gpu" in str(err.value)
