"""Session: hook flags, event handlers, action arguments and timings."""

from __future__ import annotations

import gc

import pytest

from scheduler.engine.api.types import ValidateResult
from scheduler.engine.conf import SchedulerConf, load_conf
from scheduler.engine.framework import EventHandler, open_session, run_session
from tests.engine.builders import build_cluster, build_node, conf, gang


def probe_conf(flags: str = "", actions: str = "allocate") -> SchedulerConf:
    return load_conf(f'actions: "{actions}"\ntiers:\n- plugins:\n  - name: probe\n{flags}')


def test_a_hook_flag_set_false_silences_that_hook_only(probe):
    probe["job_ready"] = lambda job: False
    probe["job_starving"] = lambda job: True
    ssn = open_session(
        build_cluster([build_node("n1")], [gang("j", 1)]), probe_conf("    enableJobReady: false\n")
    )
    job = ssn.jobs["ns/j"]
    assert ssn.job_ready(job) is True
    assert ssn.job_starving(job) is True


def test_job_valid_has_no_flag_and_refusal_is_reported(probe):
    probe["job_valid"] = lambda job: ValidateResult("Nope", "not today")
    decisions = run_session(build_cluster([build_node("n1")], [gang("j", 1)]), probe_conf())
    assert decisions.binds == {}
    assert decisions.unschedulable == {"ns/j": "not today"}


def test_simulate_task_hooks_run_when_preemptable_or_allocatable_is_on(probe):
    calls: list[str] = []
    probe["simulate_add_task"] = lambda state, task, added, node: calls.append("add")
    cluster = build_cluster([build_node("n1")], [gang("j", 1)])
    both_off = "    enablePreemptable: false\n    enabledAllocatable: false\n"
    ssn = open_session(cluster, probe_conf(both_off))
    task = next(iter(ssn.jobs["ns/j"].tasks.values()))
    ssn.simulate_add_task({}, task, task, ssn.nodes["n1"])
    assert calls == []
    ssn = open_session(
        build_cluster([build_node("n1")], [gang("j", 1)]),
        probe_conf("    enablePreemptable: false\n"),
    )
    task = next(iter(ssn.jobs["ns/j"].tasks.values()))
    ssn.simulate_add_task({}, task, task, ssn.nodes["n1"])
    assert calls == ["add"]


def test_event_handlers_see_allocations_and_their_undoing(probe):
    events: list[str] = []
    probe["event_handler"] = lambda: EventHandler(
        allocate_func=lambda e: events.append(f"+{e.task.name}@{e.task.node_name}"),
        deallocate_func=lambda e: events.append(f"-{e.task.name}"),
    )
    ssn = open_session(build_cluster([build_node("n1")], [gang("j", 1)]), probe_conf())
    task = next(iter(ssn.jobs["ns/j"].tasks.values()))
    stmt = ssn.statement()
    stmt.allocate(task, ssn.nodes["n1"])
    stmt.discard()
    assert events == ["+j-task-0@n1", "-j-task-0"]


def test_action_arguments_default_from_the_schema_and_timings_are_recorded():
    cluster = build_cluster([build_node("n1")], [gang("j", 1)])
    ssn = open_session(cluster, conf("allocate"))
    assert ssn.action_arguments("allocate").get_bool("predicateErrorCacheEnable") is True
    decisions = run_session(build_cluster([build_node("n1")], [gang("j", 1)]), conf())
    timings = decisions.timings
    assert list(timings.actions) == ["enqueue", "allocate", "backfill"]
    assert "gang" in timings.plugins_open
    assert "gang" in timings.plugins_close
    assert timings.session >= sum(timings.actions.values())
    assert timings.shares is None  # not asked for


def test_a_session_holds_garbage_collection_off_and_leaves_it_as_it_found_it(probe):
    seen: list[bool] = []

    def job_ready(job: object) -> bool:
        seen.append(gc.isenabled())
        return True

    probe["job_ready"] = job_ready
    assert gc.isenabled()
    run_session(build_cluster([build_node("n1")], [gang("j", 1)]), probe_conf())
    assert seen == [False]
    assert gc.isenabled()
    gc.disable()
    try:
        run_session(build_cluster([build_node("n1")], [gang("j", 1)]), probe_conf())
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_garbage_collection_comes_back_when_a_session_fails(probe):
    def fail(job: object) -> bool:
        raise RuntimeError("plugin bug")

    probe["job_ready"] = fail
    with pytest.raises(RuntimeError, match="plugin bug"):
        run_session(build_cluster([build_node("n1")], [gang("j", 1)]), probe_conf())
    assert gc.isenabled()
