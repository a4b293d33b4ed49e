"""P-guards: P-preempt with the victim and admission guards on (pdb, resourcequota, cdp, usage).

The cluster is P-preempt's (1,000 nodes, four low-priority pods of 7.2 CPU on each, 1,000
Inqueue preemptors of 24 CPU in queue ``high``), with what gives each guard work that changes
the outcome. Every node ``n`` belongs to rack ``r{n % 20}`` (label ``rack`` on its four pods) and
its pods to namespace ``team-{n % 4}``; a reclaimer needs three of a node's four pods, so a rack
whose pods cannot lose three is left alone:

- pdb: budgets over 7 of the 20 racks. r0-r2 exhausted (``disruptionsAllowed`` 0); r3-r5 with
  3 left (a node's worth; some pods already in ``disruptedPods``); r6 through a
  ``matchExpressions`` selector with 1 left (not enough for a node). A decoy budget selecting r7
  in another namespace than r7's pods must protect nothing.
- cdp: ``volcano.sh/cooldown-time: 10m`` labelled on r10-r13, scheduled 2 minutes (r10-r11,
  protected) and an hour (r12-r13, not) before the session's clock; r14 annotated ``30m``,
  scheduled 10 minutes before (protected).
- usage: every node reports usage; r15-r16 at cpu 85 % (over the default threshold of 80: no
  new pod, so no reclaim either); r17 at 95 % but measured 10 minutes ago (stale, ignored); r18
  without metrics; the rest between 30 and 75 %, which orders the nodes for the next session.
- resourcequota: 200 Pending one-pod jobs (1 CPU / 1 Gi) in the four namespaces. team-0's quota
  has half a CPU left and team-2's memory quota half a Gi (refused, with an ``Unschedulable``
  event); team-1 has room and team-3 no quota (passed on to overcommit, which refuses every job
  since the Inqueue preemptors already hold more than the over-committed idle CPU).

Tiers as Volcano's docs put them: pdb, cdp and usage in the first tier (the pdb, cdp and
usage guides). The docs give resourcequota no tier; it goes first in the second, beside the other
enqueue votes: in the first tier its permit would end the enqueue vote before overcommit and
proportion are asked, and after overcommit it would never be asked here.
"""

from __future__ import annotations

from datetime import timedelta

from bench.builders import GI, T0, Case, Workload, build_nodes, job_of
from scheduler.engine.api.cluster_info import ClusterInfo
from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.node_info import NODE_METRICS_PERIOD, NodeInfo, NodeUsage
from scheduler.engine.api.pdb_info import PdbInfo, PdbSelector
from scheduler.engine.api.queue_info import QueueInfo
from scheduler.engine.api.quota_info import QuotaInfo
from scheduler.engine.api.resource import Resource
from scheduler.engine.api.task_info import TaskInfo, TaskTemplate
from scheduler.engine.api.types import PodGroupPhase, TaskStatus
from scheduler.engine.framework.decisions import Decisions

__all__ = ["GUARDS_CONF", "p_guards"]

GUARDS_CONF = (
    'actions: "enqueue, allocate, preempt, reclaim, backfill"\ntiers:\n'
    "- plugins:\n  - name: priority\n  - name: gang\n  - name: conformance\n"
    "  - name: pdb\n  - name: cdp\n  - name: usage\n"
    # The second tier offers no victims of its own: Volcano decides victims tier by tier, so a
    # budget or cool-down refusing every victim in the first would otherwise leave the choice
    # to drf and proportion here.
    "- plugins:\n  - name: resourcequota\n  - name: overcommit\n"
    "  - name: drf\n    enablePreemptable: false\n    enableReclaimable: false\n"
    "  - name: predicates\n  - name: proportion\n    enableReclaimable: false\n"
    "  - name: nodeorder\n  - name: binpack\n"
)

NOW = T0 + timedelta(hours=1)  # ``cluster()``'s clock, as in the other sets
RACKS = 20
NAMESPACES = 4
EXHAUSTED = (0, 1, 2)  # budgets with no disruption left
LEFT = (3, 4, 5)  # budgets with a node's worth left
SHORT = 6  # a budget (matchExpressions) with one left: too few for a node
DECOY = 7  # a budget selecting this rack in a namespace its pods are not in
COOLING = (10, 11)  # cool-down label, scheduled 2 minutes ago
COOLED = (12, 13)  # cool-down label, scheduled an hour ago
COOLING_ANNOTATED = 14  # cool-down annotation, scheduled 10 minutes ago
OVERLOADED = (15, 16)  # cpu 85 %: over the threshold
STALE = 17  # cpu 95 %, measured 10 minutes before the clock
NO_METRICS = 18
PROTECTED = frozenset({*EXHAUSTED, SHORT, *COOLING, COOLING_ANNOTATED, *OVERLOADED})
EVICTABLE = frozenset({*LEFT, DECOY, *COOLED, STALE, NO_METRICS})
COOLDOWN = "volcano.sh/cooldown-time"
BURST_JOBS = 200
QUOTA_REFUSED = frozenset({"team-0", "team-2"})


def _rack(node_name: str) -> int:
    return int(node_name.removeprefix("node-")) % RACKS


def _usage(n: int) -> NodeUsage:
    rack = n % RACKS
    if rack == NO_METRICS:
        return NodeUsage()
    cpu = 85.0 if rack in OVERLOADED else 95.0 if rack == STALE else 30.0 + (n * 37) % 46
    age = timedelta(minutes=10) if rack == STALE else timedelta(seconds=30)
    return NodeUsage(
        metrics_time=NOW - age,
        cpu_usage_avg={NODE_METRICS_PERIOD: cpu},
        mem_usage_avg={NODE_METRICS_PERIOD: 40.0 + n % 20},
    )


def _templates() -> dict[tuple[str, int], TaskTemplate]:
    """One template per (namespace, rack), shared by the rack's pods (one spec per rack)."""
    out = {}
    for rack in range(RACKS):
        labels = {"app": "low", "rack": f"r{rack}"}
        if rack in COOLING or rack in COOLED:
            labels[COOLDOWN] = "10m"
        namespace = f"team-{rack % NAMESPACES}"
        out[(namespace, rack)] = TaskTemplate(namespace=namespace, labels=labels)
    return out


def _pdbs() -> list[PdbInfo]:
    def budget(rack: int, allowed: int, disrupted: frozenset[str] = frozenset()) -> PdbInfo:
        return PdbInfo(
            name=f"pdb-r{rack}",
            namespace=f"team-{rack % NAMESPACES}",
            selector=PdbSelector(match_labels=(("rack", f"r{rack}"),)),
            disruptions_allowed=allowed,
            disrupted_pods=disrupted,
        )

    pdbs = [budget(rack, 0) for rack in EXHAUSTED]
    # Pods the API server already evicted for these budgets are not charged again.
    pdbs += [budget(rack, 3, frozenset({f"low-{rack}-worker-0"})) for rack in LEFT]
    pdbs.append(
        PdbInfo(
            name=f"pdb-r{SHORT}",
            namespace=f"team-{SHORT % NAMESPACES}",
            selector=PdbSelector(expressions=(("rack", "In", (f"r{SHORT}", "r99")),)),
            disruptions_allowed=1,
        )
    )
    pdbs.append(
        PdbInfo(
            name=f"pdb-r{DECOY}-elsewhere",
            namespace=f"team-{(DECOY + 1) % NAMESPACES}",
            selector=PdbSelector(match_labels=(("rack", f"r{DECOY}"),)),
            disruptions_allowed=0,
        )
    )
    return pdbs


def _quotas() -> list[QuotaInfo]:
    cpu, memory = 400_000, 400 * GI
    return [
        QuotaInfo("compute", "team-0", Resource({"cpu": cpu}), Resource({"cpu": cpu - 500})),
        QuotaInfo("compute", "team-1", Resource({"cpu": cpu}), Resource({"cpu": cpu // 2})),
        QuotaInfo("compute", "team-2", Resource({"cpu": cpu}), Resource({"cpu": cpu // 2})),
        QuotaInfo(
            "memory", "team-2", Resource({"memory": memory}), Resource({"memory": memory - GI // 2})
        ),
    ]


def _low_jobs(nodes: list[NodeInfo], gone: frozenset[str]) -> list[JobInfo]:
    """One elastic job per node: four pods of 7.2 CPU on it, ``minAvailable`` 1.

    P-preempt's pods, grouped so that gang lets three of a node's pods go: with P-preempt's
    one-pod gangs, gang's reclaimable answers none in the first tier, which hands the choice to
    the second tier's proportion, and pdb and cdp (first tier) would never be heard.
    """
    request = Resource({"cpu": 7200, "memory": 8 * GI, "pods": 1000})
    templates = _templates()
    jobs = []
    for n, node in enumerate(nodes):
        rack = n % RACKS
        namespace = f"team-{rack % NAMESPACES}"
        if rack in COOLING:
            scheduled = NOW - timedelta(minutes=2)
        elif rack == COOLING_ANNOTATED:
            scheduled = NOW - timedelta(minutes=10)
        else:
            scheduled = NOW - timedelta(hours=1)
        annotations = {COOLDOWN: "30m"} if rack == COOLING_ANNOTATED else {}
        name = f"low-{n}"
        low = JobInfo(
            name=name,
            namespace=namespace,
            queue="low",
            min_available=1,
            min_resources=Resource({"cpu": 7200, "memory": 8 * GI}),
            priority=100,
            creation_timestamp=T0,
            phase=PodGroupPhase.RUNNING,
        )
        for k in range(4):
            task = TaskInfo(
                name=f"{name}-worker-{k}",
                namespace=namespace,
                job=low.uid,
                resreq=request,
                status=TaskStatus.RUNNING,
                node_name=node.name,
                priority=100,
                role="worker",
                creation_timestamp=T0,
                annotations=annotations,
                template=templates[(namespace, rack)],
                scheduled_at=scheduled,
            )
            if task.uid not in gone:
                low.add_task(task)
        jobs.append(low)
    return jobs


def _pending_jobs() -> list[JobInfo]:
    big = Resource({"cpu": 24000, "memory": 32 * GI, "pods": 1000})
    small = Resource({"cpu": 1000, "memory": GI, "pods": 1000})
    jobs = [
        job_of(
            f"high-{j}",
            "high",
            big,
            1,
            min_member=1,
            created=T0 + timedelta(minutes=10, seconds=j),
            priority=1000,
            phase=PodGroupPhase.INQUEUE,
        )
        for j in range(1000)
    ]
    jobs += [
        job_of(
            f"burst-{j}",
            "high",
            small,
            1,
            min_member=1,
            created=T0 + timedelta(minutes=20, seconds=j),
            priority=1000,
            namespace=f"team-{j % NAMESPACES}",
        )
        for j in range(BURST_JOBS)
    ]
    return jobs


def p_guards(seed: int) -> Workload:
    """P-preempt's cluster and preemptors with budgets, quotas, cool-downs and node usage."""

    def build(gone: frozenset[str] = frozenset()) -> ClusterInfo:
        nodes = build_nodes(1000)
        for n, node in enumerate(nodes):
            node.resource_usage = _usage(n)
        queues = [
            QueueInfo(name="low", weight=1, reclaimable=True, creation_timestamp=T0),
            QueueInfo(name="high", weight=3, reclaimable=False, creation_timestamp=T0),
        ]
        return ClusterInfo.build(
            now=NOW,
            nodes=nodes,
            jobs=_low_jobs(nodes, gone) + _pending_jobs(),
            queues=queues,
            pdbs=_pdbs(),
            resource_quotas=_quotas(),
        )

    def after(decisions: Decisions) -> ClusterInfo:
        return build(frozenset(e.task for e in decisions.evictions))

    return Workload("P-guards", seed, [Case("P-guards", GUARDS_CONF, build, after, check)])


def check(decisions: Decisions) -> str:
    """Assert that every guard changed the outcome; return a line saying by how much."""
    by_rack = [0] * RACKS
    for eviction in decisions.evictions:
        by_rack[_rack(eviction.node)] += 1
    kept = sorted(r for r in PROTECTED if by_rack[r])
    assert not kept, f"guarded racks lost pods: {[f'r{r}' for r in kept]}"
    idle = sorted(r for r in EVICTABLE if not by_rack[r])
    assert not idle, f"unguarded racks lost none: {[f'r{r}' for r in idle]}"
    refused = {uid.split("/")[0] for uid in decisions.pod_group_events}
    assert refused == QUOTA_REFUSED, f"quota refusals in {sorted(refused)}"
    assert not decisions.enqueued, f"enqueued {len(decisions.enqueued)} burst jobs"
    return (
        f"guards held: 0 victims on the {len(PROTECTED) * 1000 // RACKS} guarded nodes, "
        f"{len(decisions.evictions)} elsewhere; {len(decisions.pod_group_events)} jobs "
        f"refused by quota ({', '.join(sorted(QUOTA_REFUSED))})"
    )
