"""Extender plugin: an HTTP service on a loopback port filters, scores and votes for the session."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import pytest

from apis.errors import ConfError
from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.types import FitCode, PodGroupPhase, TaskStatus
from scheduler.engine.conf import load_conf
from scheduler.engine.framework import close_session, open_session, run_session
from scheduler.engine.plugins.extender import ExtenderPlugin, parse_timeout
from scheduler.engine.plugins.extender_client import (
    GIVE_UP_AFTER,
    MAX_BODY_SIZE,
    ExtenderClient,
    ExtenderError,
)
from scheduler.engine.plugins.extender_wire import STATUS_VALUES, task_json
from tests.engine.builders import build_cluster, build_node, build_pod, build_pod_group, gang, res
from tests.engine.plugins.fake_extender import Reply, running_extender

ALL_VERBS = {
    "onSessionOpen": "open",
    "onSessionClose": "close",
    "predicate": "predicate",
    "prioritize": "prioritize",
    "preemptable": "preemptable",
    "reclaimable": "reclaimable",
    "queueOverused": "overused",
    "jobEnqueueable": "enqueueable",
    "jobEnqueued": "enqueued",
    "jobReady": "ready",
    "allocateFunc": "allocate",
    "deallocateFunc": "deallocate",
}


def extender_conf(
    url: str,
    *verbs: str,
    actions: str = "enqueue, allocate",
    ignorable: bool | None = None,
    timeout: str | None = None,
    managed: str | None = None,
    first: tuple[str, ...] = ("priority", "gang"),
) -> str:
    """Return a conf: ``first`` in the first tier, the extender (asked ``verbs``) in the second."""
    lines = [f"extender.urlPrefix: {url}"]
    lines += [f"extender.{verb}Verb: {ALL_VERBS[verb]}" for verb in verbs]
    if ignorable is not None:
        lines.append(f"extender.ignorable: {str(ignorable).lower()}")
    if timeout is not None:
        lines.append(f"extender.httpTimeout: {timeout}")
    if managed is not None:
        lines.append(f"extender.managedResources: {managed}")
    arguments = "".join(f"\n      {line}" for line in lines)
    tier = "".join(f"  - name: {name}\n" for name in first)
    return (
        f'actions: "{actions}"\ntiers:\n- plugins:\n{tier}'
        f"- plugins:\n  - name: extender\n    arguments:{arguments}\n"
    )


def two_nodes_two_pods() -> tuple[list[Any], list[JobInfo]]:
    return [build_node("n1"), build_node("n2")], [gang("job", 2)]


def refuse(node: str, message: str = "extender says no", code: int = 2) -> Any:
    def answer(body: Any) -> dict[str, Any]:
        if body["node"]["Name"] == node:
            return {"status": message, "code": code}
        return {"status": "", "code": 0}

    return answer


# --- predicate ---------------------------------------------------------------------------------
def test_a_node_the_extender_refuses_gets_no_pods() -> None:
    with running_extender(predicate=refuse("n1")) as ext:
        nodes, jobs = two_nodes_two_pods()
        decisions = run_session(
            build_cluster(nodes, jobs), load_conf(extender_conf(ext.url, "predicate"))
        )

    assert decisions.binds == {"ns/job-task-0": "n2", "ns/job-task-1": "n2"}
    asked = ext.bodies("predicate")
    assert {b["node"]["Name"] for b in asked} == {"n1", "n2"}
    assert asked[0]["task"]["Namespace"] == "ns"
    assert asked[0]["task"]["Status"] == STATUS_VALUES[TaskStatus.PENDING] == 1


def test_refusing_every_node_leaves_the_job_pending_with_the_extenders_reason() -> None:
    everything = {"status": "no GPU slice free", "code": 3}
    with running_extender(predicate=lambda _body: everything) as ext:
        nodes, jobs = two_nodes_two_pods()
        ssn = open_session(
            build_cluster(nodes, jobs), load_conf(extender_conf(ext.url, "predicate"))
        )
        status = ssn.predicate_fn(jobs[0].tasks["ns/job-task-0"], nodes[0])
        close_session(ssn)
        decisions = run_session(
            build_cluster(*two_nodes_two_pods()), load_conf(extender_conf(ext.url, "predicate"))
        )

    assert decisions.binds == {}
    assert status is not None
    assert (status.reason, status.code, status.plugin) == (
        "no GPU slice free",
        FitCode.UNSCHEDULABLE_AND_UNRESOLVABLE,
        "extender",
    )


def test_a_message_with_code_zero_is_an_error_as_in_volcano() -> None:
    with running_extender(predicate=refuse("n1", "legacy", code=0)) as ext:
        nodes, jobs = two_nodes_two_pods()
        ssn = open_session(
            build_cluster(nodes, jobs), load_conf(extender_conf(ext.url, "predicate"))
        )
        status = ssn.predicate_fn(jobs[0].tasks["ns/job-task-0"], nodes[0])
        close_session(ssn)

    assert status is not None
    assert (status.reason, status.code) == ("legacy", FitCode.ERROR)


@pytest.mark.parametrize(
    ("answer", "reason", "code"),
    [
        ({"Status": "matched in any case", "CODE": 3}, "matched in any case",
         FitCode.UNSCHEDULABLE_AND_UNRESOLVABLE),
        ({"status": "", "extra": "ignored"}, None, None),
        (None, None, None),  # JSON null decodes into nothing: a pass
        ({"status": 5}, "json: cannot unmarshal number into field status of type string",
         FitCode.ERROR),
        (["no"], "json: cannot unmarshal array into the response object", FitCode.ERROR),
        (Reply(body=b"not json"), "invalid character", FitCode.ERROR),
        (Reply(body=b""), "EOF", FitCode.ERROR),
    ],
)  # fmt: skip
def test_answers_are_read_as_gos_json_decoder_reads_them(
    answer: Any, reason: str | None, code: FitCode | None
) -> None:
    with running_extender(predicate=lambda _body: answer) as ext:
        nodes, jobs = two_nodes_two_pods()
        ssn = open_session(
            build_cluster(nodes, jobs), load_conf(extender_conf(ext.url, "predicate"))
        )
        status = ssn.predicate_fn(jobs[0].tasks["ns/job-task-0"], nodes[0])
        close_session(ssn)

    if reason is None:
        assert status is None
    else:
        assert status is not None
        assert reason in status.reason
        assert status.code is code


@pytest.mark.parametrize(("ignorable", "bound"), [(True, 2), (False, 0)])
def test_a_slow_extender_is_ignored_only_when_ignorable(ignorable: bool, bound: int) -> None:
    slow = Reply(body=b'{"status": "no", "code": 2}', delay=0.5)
    with running_extender(predicate=lambda _body: slow) as ext:
        nodes, jobs = two_nodes_two_pods()
        text = extender_conf(ext.url, "predicate", ignorable=ignorable, timeout="50ms")
        started = time.monotonic()
        decisions = run_session(build_cluster(nodes, jobs), load_conf(text))
        took = time.monotonic() - started

    assert len(decisions.binds) == bound
    assert took < 2.0  # two nodes asked, each given up on after 50ms: no hang


def test_a_black_holed_extender_is_given_up_on_after_three_timeouts_per_session() -> None:
    slow = Reply(body=b'{"status": "", "code": 0}', delay=0.3)
    with running_extender(predicate=lambda _body: slow) as ext:
        nodes = [build_node(f"n{i}") for i in range(6)]
        text = extender_conf(ext.url, "predicate", ignorable=True, timeout="50ms")
        decisions = run_session(build_cluster(nodes, [gang("job", 2)]), load_conf(text))
        again = run_session(
            build_cluster([build_node(f"n{i}") for i in range(6)], [gang("job", 2)]),
            load_conf(text),
        )

    assert len(decisions.binds) == len(again.binds) == 2
    assert len(ext.bodies("predicate")) == 2 * GIVE_UP_AFTER  # each session tries afresh


def test_an_unreachable_extender_fails_the_predicate_with_the_error() -> None:
    with running_extender() as ext:
        url = ext.url  # the port is closed once the server stops
    nodes, jobs = two_nodes_two_pods()
    ssn = open_session(build_cluster(nodes, jobs), load_conf(extender_conf(url, "predicate")))
    status = ssn.predicate_fn(jobs[0].tasks["ns/job-task-0"], nodes[0])
    close_session(ssn)

    assert status is not None
    assert status.code is FitCode.ERROR
    assert url + "/predicate" in status.reason


# --- prioritize --------------------------------------------------------------------------------
def test_prioritize_scores_move_pods_to_the_node_the_extender_prefers() -> None:
    def prefer_n2(body: Any) -> dict[str, Any]:
        return {
            "nodeScore": {n["Name"]: (100.0 if n["Name"] == "n2" else 1.0) for n in body["nodes"]}
        }

    nodes, jobs = two_nodes_two_pods()
    plain = run_session(build_cluster(nodes, jobs), load_conf(extender_conf("http://x")))
    with running_extender(prioritize=prefer_n2) as ext:
        nodes, jobs = two_nodes_two_pods()
        scored = run_session(
            build_cluster(nodes, jobs), load_conf(extender_conf(ext.url, "prioritize"))
        )

    assert set(plain.binds.values()) == {"n1"}  # without scores: the first node in name order
    assert scored.binds == {"ns/job-task-0": "n2", "ns/job-task-1": "n2"}
    assert all(set(b) == {"task", "nodes"} for b in ext.bodies("prioritize"))


@pytest.mark.parametrize(
    ("answer", "ignorable", "bound"),
    [
        ({"errorMessage": "scorer down"}, False, 0),
        ({}, False, 0),  # no nodeScore at all is an error too (Volcano: errors.New(""))
        (Reply(status=500), True, 2),
        (Reply(status=500), False, 0),
    ],
)
def test_a_failed_prioritize_leaves_pods_unplaced_unless_ignorable(
    answer: Any, ignorable: bool, bound: int
) -> None:
    with running_extender(prioritize=lambda _body: answer) as ext:
        nodes, jobs = two_nodes_two_pods()
        text = extender_conf(ext.url, "prioritize", ignorable=ignorable)
        decisions = run_session(build_cluster(nodes, jobs), load_conf(text))

    assert len(decisions.binds) == bound


def test_a_failed_prioritize_does_not_stop_backfill_of_best_effort_pods() -> None:
    with running_extender(prioritize=lambda _body: {"errorMessage": "scorer down"}) as ext:
        pods = [build_pod(f"be-task-{i}", best_effort=True) for i in range(2)]
        job = build_pod_group("be", pods, min_member=1)
        text = extender_conf(ext.url, "prioritize", actions="enqueue, allocate, backfill")
        decisions = run_session(
            build_cluster([build_node("n1"), build_node("n2")], [job]), load_conf(text)
        )

    assert len(decisions.binds) == 2
    assert ext.bodies("prioritize")


# --- session open and close ----------------------------------------------------------------------
def test_session_open_and_close_are_called_once_per_session_on_one_connection() -> None:
    with running_extender(predicate=refuse("n9")) as ext:
        text = extender_conf(ext.url, "onSessionOpen", "onSessionClose", "predicate")
        for _ in range(2):
            nodes, jobs = two_nodes_two_pods()
            run_session(build_cluster(nodes, jobs), load_conf(text))

    verbs = ext.verbs()
    assert verbs.count("open") == 2
    assert verbs.count("close") == 2
    assert verbs[0] == "open"
    assert verbs[-1] == "close"
    assert verbs.index("close") < len(verbs) - 1 - verbs[::-1].index("open")  # close, then open
    assert ext.connections == 2  # one kept-alive connection per session
    opened = ext.bodies("open")[0]
    assert set(opened) == {"Jobs", "Nodes", "Queues", "NamespaceInfo", "RevocableNodes", "NodeList"}
    assert set(opened["Nodes"]) == {"n1", "n2"}
    assert opened["Jobs"]["ns/job"]["MinAvailable"] == 2
    assert ext.bodies("close") == [{}, {}]


@pytest.mark.parametrize(("ignorable", "asked"), [(False, False), (True, True)])
def test_a_failed_session_open_registers_nothing_unless_ignorable(
    ignorable: bool, asked: bool
) -> None:
    with running_extender(open=lambda _body: Reply(status=503), predicate=refuse("n1")) as ext:
        nodes, jobs = two_nodes_two_pods()
        text = extender_conf(ext.url, "onSessionOpen", "predicate", ignorable=ignorable)
        decisions = run_session(build_cluster(nodes, jobs), load_conf(text))

    assert ("predicate" in ext.verbs()) is asked
    assert len(decisions.binds) == 2


# --- queues and jobs -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("answer", "ignorable", "bound"),
    [
        ({"overused": True}, False, 0),
        ({"overused": False}, False, 2),
        (Reply(status=500), True, 2),
        (Reply(status=500), False, 0),
    ],
)
def test_an_overused_queue_gets_nothing(answer: Any, ignorable: bool, bound: int) -> None:
    with running_extender(overused=lambda _body: answer) as ext:
        nodes, jobs = two_nodes_two_pods()
        text = extender_conf(ext.url, "queueOverused", ignorable=ignorable)
        decisions = run_session(build_cluster(nodes, jobs), load_conf(text))

    assert len(decisions.binds) == bound
    assert ext.bodies("overused")[0]["queue"]["Name"] == "default"


@pytest.mark.parametrize(
    ("answer", "ignorable", "phase"),
    [
        ({"status": -1}, False, PodGroupPhase.PENDING),
        ({"status": 1}, False, PodGroupPhase.INQUEUE),
        (Reply(status=500), True, PodGroupPhase.INQUEUE),
        (Reply(status=500), False, PodGroupPhase.PENDING),
    ],
)
def test_the_enqueue_vote_admits_or_holds_a_pending_job(
    answer: Any, ignorable: bool, phase: PodGroupPhase
) -> None:
    with running_extender(enqueueable=lambda _body: answer) as ext:
        job = gang("job", 1, phase=PodGroupPhase.PENDING, min_resources=res(cpu="1"))
        text = extender_conf(
            ext.url, "jobEnqueueable", "jobEnqueued", actions="enqueue", ignorable=ignorable
        )
        decisions = run_session(build_cluster([build_node("n1")], [job]), load_conf(text))

    assert decisions.pod_group_phases.get("ns/job", PodGroupPhase.PENDING) == phase
    assert ext.bodies("enqueueable")[0]["job"]["PodGroup"]["spec"]["queue"] == "default"
    assert ("enqueued" in ext.verbs()) is (phase is PodGroupPhase.INQUEUE)


@pytest.mark.parametrize(("ready", "bound"), [(True, 1), (False, 0)])
def test_a_job_the_extender_calls_not_ready_is_not_bound(ready: bool, bound: int) -> None:
    with running_extender(ready=lambda _body: {"status": ready}) as ext:
        text = extender_conf(ext.url, "jobReady")
        decisions = run_session(
            build_cluster([build_node("n1")], [gang("job", 1)]), load_conf(text)
        )

    assert len(decisions.binds) == bound


def test_allocate_events_are_sent_for_every_placed_pod() -> None:
    with running_extender() as ext:
        nodes, jobs = two_nodes_two_pods()
        text = extender_conf(ext.url, "allocateFunc", "deallocateFunc")
        run_session(build_cluster(nodes, jobs), load_conf(text))

    placed = sorted(body["task"]["Name"] for body in ext.bodies("allocate"))
    assert placed == ["job-task-0", "job-task-1"]


# --- victims ---------------------------------------------------------------------------------------
def running_cluster() -> tuple[Any, JobInfo, JobInfo]:
    victims = [build_pod(f"low-task-{i}", status=TaskStatus.RUNNING, node="n1") for i in range(2)]
    low = build_pod_group("low", victims, min_member=1, phase=PodGroupPhase.RUNNING)
    high = gang("high", 1)
    return build_cluster([build_node("n1", cpu="2")], [low, high]), low, high


@pytest.mark.parametrize("verb", ["preemptable", "reclaimable"])
def test_the_extender_picks_the_victims_among_the_candidates(verb: str) -> None:
    def second_only(body: Any) -> dict[str, Any]:
        chosen = [e for e in body["evictees"] if e["Name"] == "low-task-1"]
        return {"status": 1, "victims": [*chosen, {"UID": "not/a-candidate"}]}

    with running_extender(**{verb: second_only}) as ext:
        cluster, low, high = running_cluster()
        ssn = open_session(cluster, load_conf(extender_conf(ext.url, verb, first=("priority",))))
        preemptor = high.tasks["ns/high-task-0"]
        candidates = list(low.tasks.values())
        dispatcher = ssn.preemptable if verb == "preemptable" else ssn.reclaimable
        chosen = dispatcher(preemptor, candidates)
        close_session(ssn)

    assert [t.name for t in chosen] == ["low-task-1"]
    asked = ext.bodies(ALL_VERBS[verb])[0]
    assert asked["evictor"]["Name"] == "high-task-0"
    assert sorted(e["Name"] for e in asked["evictees"]) == ["low-task-0", "low-task-1"]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ({"status": 0, "victims": None}, None),  # abstains
        ({"status": -1}, []),  # rejects: no victims
        (Reply(status=500), []),  # fails: no victims, ignorable or not
    ],
)
def test_abstaining_rejecting_and_failing_victim_answers(answer: Any, expected: Any) -> None:
    with running_extender(preemptable=lambda _body: answer) as ext:
        cluster, low, high = running_cluster()
        ssn = open_session(cluster, load_conf(extender_conf(ext.url, "preemptable")))
        plugin = ssn.plugins["extender"]
        assert isinstance(plugin, ExtenderPlugin)
        answered = plugin._victims_of("preemptable")(
            high.tasks["ns/high-task-0"], list(low.tasks.values())
        )
        close_session(ssn)

    assert answered == expected


# --- managed resources -------------------------------------------------------------------------------
@dataclass
class Interest:
    name: str
    managed: str | None
    requests: dict[str, str]
    init: dict[str, str] | None
    expected: bool


INTERESTS = [
    Interest("empty managed resources: every pod", None, {"cpu": "100m"}, None, True),
    Interest("managed resource requested", "[nvidia.com/gpu]", {"nvidia.com/gpu": "1"}, None, True),
    Interest(
        "managed resource in an init container",
        "[nvidia.com/gpu]",
        {"cpu": "100m"},
        {"nvidia.com/gpu": "1"},
        True,
    ),
    Interest(
        "no managed resource", "[nvidia.com/gpu]", {"cpu": "100m", "memory": "128Mi"}, None, False
    ),
    Interest(
        "one of several managed resources",
        "[nvidia.com/gpu, amd.com/gpu]",
        {"amd.com/gpu": "1"},
        None,
        True,
    ),
    Interest(
        "comma-separated list", "nvidia.com/gpu,amd.com/gpu", {"amd.com/gpu": "1"}, None, True
    ),
]


@pytest.mark.parametrize("case", INTERESTS, ids=lambda c: c.name)
def test_only_pods_asking_for_a_managed_resource_are_sent(case: Interest) -> None:
    with running_extender(predicate=refuse("n1")) as ext:
        pod = build_pod("job-task-0")
        pod.resreq = res(case.requests)
        if case.init is not None:
            pod.init_resreq = res(case.init)
        node = build_node("n1")
        node.allocatable = res({"nvidia.com/gpu": "4", "amd.com/gpu": "4"}, cpu="4", pods=110)
        cluster = build_cluster([node], [build_pod_group("job", [pod])])
        text = extender_conf(ext.url, "predicate", managed=case.managed)
        ssn = open_session(cluster, load_conf(text))
        plugin = ssn.plugins["extender"]
        assert isinstance(plugin, ExtenderPlugin)
        interested = plugin.is_interested(pod)
        refused = ssn.predicate_fn(pod, cluster.nodes["n1"]) is not None
        close_session(ssn)

    assert interested is case.expected
    assert refused is case.expected
    assert bool(ext.bodies("predicate")) is case.expected


def test_managed_resources_must_be_a_list_of_strings() -> None:
    with pytest.raises(ConfError) as refused:
        load_conf(extender_conf("http://x", managed="[1, 2]"))

    assert "extender.managedResources" in str(refused.value)


# --- the wire ------------------------------------------------------------------------------------------
def test_an_answer_over_ten_mebibytes_is_refused() -> None:
    huge = Reply(body=b'{"padding":"' + b"a" * (MAX_BODY_SIZE + 1) + b'"}')
    with running_extender(test=lambda _body: huge) as ext:
        client = ExtenderClient(ext.url, 5.0)
        with pytest.raises(ExtenderError, match="http: request body too large"):
            client.send("test", {"task": {}, "node": {}})
        client.close()


def test_a_non_200_answer_is_an_error_naming_the_verb_url_and_code() -> None:
    with running_extender(predicate=lambda _body: Reply(status=404)) as ext:
        client = ExtenderClient(ext.url + "/", 1.0)
        with pytest.raises(ExtenderError) as failed:
            client.send("predicate", {})
        client.close()

    assert (
        str(failed.value) == f"failed predicate with extender at URL {ext.url}/predicate, code 404"
    )


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("", 1.0), ("100ms", 0.1), ("2s", 2.0), ("soon", 1.0), ("0s", 1.0)],
)
def test_http_timeout_is_a_go_duration_defaulting_to_one_second(text: str, seconds: float) -> None:
    assert parse_timeout(text) == pytest.approx(seconds)


def test_a_task_goes_out_under_volcanos_go_field_names() -> None:
    pod = build_pod("job-task-0", cpu="500m", memory="1Gi")
    build_pod_group("job", [pod])
    body = task_json(pod)

    assert body["Resreq"] == {
        "MilliCPU": 500.0,
        "Memory": float(1 << 30),
        "ScalarResources": None,
        "MaxTaskNum": 1,
    }
    assert body["Pod"]["metadata"]["name"] == "job-task-0"
    assert body["Pod"]["spec"]["containers"][0]["resources"]["requests"] == {
        "cpu": "500m",
        "memory": "1Gi",
    }
    assert {"UID", "Job", "NodeName", "Status", "Priority", "Preemptable"} <= set(body)


def test_the_policy_editor_offers_the_extender_and_its_verbs() -> None:
    from scheduler.engine.catalogue import PLUGINS, plugin_info

    info = plugin_info("extender")

    assert "extender" in PLUGINS
    assert info is not None
    keys = {a.key: (a.type, a.default) for a in info.arguments}
    assert keys["extender.httpTimeout"] == ("str", "1s")
    assert keys["extender.ignorable"] == ("bool", False)
    assert keys["extender.managedResources"][0] == "list"
    assert {f"extender.{verb}Verb" for verb in ALL_VERBS} <= set(keys)
    assert "enablePredicate" in info.flags
