"""Which given arguments the scheduler never reads (no database: the conf alone decides)."""

from __future__ import annotations

from scheduler.conf_findings import ignored_arguments
from scheduler.engine import load_conf


def test_arguments_under_a_disabled_hook_an_unlisted_action_and_an_unlisted_resource() -> None:
    conf = load_conf(
        'actions: "enqueue, allocate"\n'
        "tiers:\n- plugins:\n"
        "  - name: binpack\n    enableNodeOrder: false\n    arguments: {binpack.weight: 5}\n"
        "  - name: nodeorder\n    arguments: {leastrequested.weight: 2}\n"
        "configurations:\n- name: preempt\n  arguments: {minCandidateNodesAbsolute: 3}\n"
    )
    found = {(a.owner, a.key): a for a in ignored_arguments(conf)}
    assert set(found) == {("binpack", "binpack.weight"), ("preempt", "minCandidateNodesAbsolute")}
    assert found["binpack", "binpack.weight"].flags == ("enableNodeOrder",)
    assert found["preempt", "minCandidateNodesAbsolute"].action_missing

    listed = load_conf(
        'actions: "allocate"\ntiers:\n- plugins:\n  - name: binpack\n    arguments:\n'
        "      binpack.resources: nvidia.com/gpu\n      binpack.resources.nvidia.com/gpu: 2\n"
        "      binpack.resources.example.com/foo: 3\n"
    )
    (only,) = ignored_arguments(listed)
    assert only.unlisted_resource == "example.com/foo"
