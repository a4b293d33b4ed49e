"""resourcequota: enqueue within the namespace's ResourceQuota status, and the refusal's event.

Admission cases are scenario files (tests/scenarios/resourcequota, from Volcano's
resourcequota_test.go); these check what the scenario output does not show.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from apis.errors import EngineError
from scheduler.engine.api.cluster_info import ClusterInfo
from scheduler.engine.api.quota_info import QuotaInfo
from scheduler.engine.api.types import PodGroupPhase
from scheduler.engine.framework import run_session
from scheduler.engine.framework.decisions import PodGroupEvent
from scheduler.engine.simulate import execute
from scheduler.engine.util.scenario import load_scenario
from tests.engine.builders import T0, build_node, build_pod_group, conf, res

CONF = conf("enqueue", ("priority", "gang", "resourcequota"))


def _cluster(quotas: list[QuotaInfo], **group: object) -> ClusterInfo:
    job = build_pod_group("pg", [], phase=PodGroupPhase.PENDING, **group)  # type: ignore[arg-type]
    return ClusterInfo.build(now=T0, nodes=[build_node("n1")], jobs=[job], resource_quotas=quotas)


def test_refusal_records_volcanos_event_naming_quota_and_resources() -> None:
    quota = QuotaInfo("compute", "ns", hard=res(cpu="2", memory="4Gi"), used=res(cpu="1"))
    cluster = _cluster([quota], min_resources=res(cpu="2", memory="1Gi"))
    decisions = run_session(cluster, CONF)
    assert decisions.pod_group_phases["ns/pg"] == PodGroupPhase.PENDING
    assert decisions.pod_group_events["ns/pg"] == [
        PodGroupEvent(
            "Normal",
            "Unschedulable",
            "resource quota insufficient, requested: map[cpu:2], used: map[cpu:1], "
            "limited: map[cpu:2] (ResourceQuota ns/compute)",
        )
    ]


def test_admitted_job_records_no_event() -> None:
    quota = QuotaInfo("compute", "ns", hard=res(cpu="8"))
    decisions = run_session(_cluster([quota], min_resources=res(cpu="2")), CONF)
    assert decisions.pod_group_phases["ns/pg"] == PodGroupPhase.INQUEUE
    assert decisions.pod_group_events == {}


def test_quota_names_of_min_resources_are_compared() -> None:
    """The live cache keeps only scheduling names in min_resources; the quota names it read
    from the PodGroup (requests.cpu, count/pods) are what a quota on them limits."""
    quota = QuotaInfo("compute", "ns", hard=res({"requests.cpu": "1"}))
    cluster = _cluster([quota], min_resources=res(cpu="2"))
    cluster.jobs["ns/pg"].quota_min_resources = res({"requests.cpu": "2"}, cpu="2")
    assert run_session(cluster, CONF).pod_group_phases["ns/pg"] == PodGroupPhase.PENDING


def test_quota_in_other_namespace_does_not_apply() -> None:
    quota = QuotaInfo("compute", "other", hard=res(cpu="1"))
    decisions = run_session(_cluster([quota], min_resources=res(cpu="2")), CONF)
    assert decisions.pod_group_phases["ns/pg"] == PodGroupPhase.INQUEUE


SCENARIO = """
name: quota
objects:
- apiVersion: v1
  kind: ResourceQuota
  metadata: {name: compute, namespace: ns}
  spec: {hard: {cpu: '4'}}
  status: {hard: {cpu: '4', requests.memory: 8Gi}, used: {cpu: 1500m}}
"""


def test_scenario_reads_the_status_only() -> None:
    cluster = load_scenario(SCENARIO).cluster
    (quota,) = cluster.quotas_of("ns")
    assert quota == QuotaInfo(
        "compute", "ns", hard=res({"requests.memory": "8Gi"}, cpu="4"), used=res(cpu="1500m")
    )
    assert cluster.quotas_of("default") == []


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ("used: {cpu: 1500m}", "used: {cpu: lots}", "status.used.cpu"),
        ("used: {cpu: 1500m}", "spent: {cpu: 1}", "status.spent"),
        ("spec: {hard:", "spec: {scopez: [], hard:", "spec.scopez"),
    ],
)
def test_malformed_quota_names_the_field(old: str, new: str, field: str) -> None:
    with pytest.raises(EngineError) as info:
        load_scenario(SCENARIO.replace(old, new))
    assert f"(ResourceQuota ns/compute).{field}" in str(info.value)


def test_simulate_text_output_shows_the_event(tmp_path: Path) -> None:
    path = tmp_path / "quota.yaml"
    path.write_text(
        SCENARIO
        + """- apiVersion: scheduling.volcano.sh/v1beta1
  kind: PodGroup
  metadata: {name: pg, namespace: ns}
  spec: {minMember: 1, minResources: {cpu: '3'}}
config: |
  actions: "enqueue"
  tiers:
  - plugins:
    - name: resourcequota
"""
    )
    out, err = io.StringIO(), io.StringIO()
    assert execute([str(path)], fmt="text", check=False, stdout=out, stderr=err) == 0
    assert (
        "event     ns/pg: Normal Unschedulable resource quota insufficient, requested: "
        "map[cpu:3], used: map[cpu:1500m], limited: map[cpu:4] (ResourceQuota ns/compute)"
    ) in out.getvalue()


def test_scenario_keeps_quota_names_for_resourcequota_only() -> None:
    text = """
name: names
objects:
- apiVersion: scheduling.volcano.sh/v1beta1
  kind: PodGroup
  metadata: {name: pg, namespace: ns}
  spec: {minMember: 1, minResources: {cpu: '2', requests.cpu: '2', count/pods: '1'}}
"""
    job = load_scenario(text).cluster.jobs["ns/pg"]
    assert job.min_resources == res(cpu="2")
    assert job.quota_min_resources == res({"requests.cpu": "2", "count/pods": "1"}, cpu="2")
