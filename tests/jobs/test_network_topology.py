"""A Job's networkTopology and its tasks' partitionPolicy: stored as given, refused in Volcano's
words at the field's path, and copied by the job controller to the job's PodGroup."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from django.test import Client

from core.models import PodPhase
from jobs.models import Job
from queues.models import PodGroup, Queue
from tests.jobs.controller_kit import admit, pods, set_pods, start, submit, task, tick
from tests.kube.api_kit import JOBS, PODGROUPS, example

pytestmark = pytest.mark.django_db


def job_manifest(**spec: Any) -> dict[str, Any]:
    manifest = example("jobs/nginx-sleep.yaml")
    manifest["metadata"]["name"] = "topo"
    manifest["spec"]["queue"] = "default"
    manifest["spec"].update(spec)
    return manifest


def post(client: Client, manifest: dict[str, Any]) -> Any:
    return client.post(
        JOBS.format(ns="default"), json.dumps(manifest), content_type="application/json"
    )


def causes(response: Any) -> list[tuple[str, str, str]]:
    assert response.status_code == 422, response.content
    return [(c["field"], c["reason"], c["message"]) for c in response.json()["details"]["causes"]]


# -- the manifest ---------------------------------------------------------------------------


def test_network_topology_round_trips_through_the_api(operator: Client) -> None:
    topology = {"mode": "soft", "highestTierAllowed": 2}
    assert post(operator, job_manifest(networkTopology=topology)).status_code == 201

    shown = operator.get(JOBS.format(ns="default") + "/topo").json()

    assert shown["spec"]["networkTopology"] == topology
    assert Job.objects.get(name="topo").network_topology == topology


def test_a_network_topology_without_mode_is_hard_as_the_crd_defaults_it(operator: Client) -> None:
    assert (
        post(operator, job_manifest(networkTopology={"highestTierName": "spine"})).status_code
        == 201
    )

    shown = operator.get(JOBS.format(ns="default") + "/topo").json()

    assert shown["spec"]["networkTopology"] == {"mode": "hard", "highestTierName": "spine"}


def test_a_job_without_network_topology_shows_none(operator: Client) -> None:
    assert post(operator, job_manifest()).status_code == 201
    shown = operator.get(JOBS.format(ns="default") + "/topo").json()
    assert "networkTopology" not in shown["spec"]
    assert "partitionPolicy" not in shown["spec"]["tasks"][0]


def test_partition_policy_round_trips_with_min_partitions_defaulted(operator: Client) -> None:
    manifest = job_manifest()
    manifest["spec"]["tasks"][0].update(
        replicas=4,
        partitionPolicy={
            "totalPartitions": 2,
            "partitionSize": 2,
            "networkTopology": {"mode": "hard", "highestTierAllowed": 1},
        },
    )
    assert post(operator, manifest).status_code == 201

    task0 = operator.get(JOBS.format(ns="default") + "/topo").json()["spec"]["tasks"][0]

    assert task0["partitionPolicy"] == {
        "totalPartitions": 2,
        "partitionSize": 2,
        "networkTopology": {"mode": "hard", "highestTierAllowed": 1},
        "minPartitions": 0,
    }
    assert task0["minAvailable"] == 4  # minPartitions 0: all replicas, as Volcano's webhook


# -- admission ------------------------------------------------------------------------------

NT = "spec.networkTopology"
BOTH = (
    "must not specify 'highestTierAllowed' and 'highestTierName' in networkTopology simultaneously"
)


@pytest.mark.parametrize(
    ("topology", "expected"),
    [
        (
            {"mode": "medium"},
            [(f"{NT}.mode", "FieldValueNotSupported", "Unsupported value: 'medium'")],
        ),
        (
            {"highestTierAllowed": -1},
            [
                (
                    f"{NT}.highestTierAllowed",
                    "FieldValueInvalid",
                    "must be greater than or equal to 0",
                )
            ],
        ),
        (
            {"highestTierName": "x" * 254},
            [(f"{NT}.highestTierName", "FieldValueTooLong", "may not be more than 253")],
        ),
        (
            {"highestTierAllowed": 1, "highestTierName": "spine"},
            [(NT, "FieldValueForbidden", BOTH)],
        ),
        (
            {"mode": "", "highestTierAllowed": -3},
            [
                (f"{NT}.mode", "FieldValueNotSupported", 'supported: "hard", "soft"'),
                (f"{NT}.highestTierAllowed", "FieldValueInvalid", "-3"),
            ],
        ),
        (
            {"highestTierAllowed": "two"},
            [(f"{NT}.highestTierAllowed", "FieldValueInvalid", "expected an integer")],
        ),
        ({"tier": 1}, [(f"{NT}.tier", "FieldValueInvalid", "unknown field")]),
        ("hard", [(NT, "FieldValueInvalid", "expected an object")]),
    ],
    ids=["mode", "negative-tier", "long-name", "both", "two-at-once", "type", "unknown", "scalar"],
)
def test_a_bad_network_topology_is_422_at_its_field(
    operator: Client, topology: Any, expected: list[tuple[str, str, str]]
) -> None:
    found = causes(post(operator, job_manifest(networkTopology=topology)))

    assert [(field, reason) for field, reason, _ in found] == [(f, r) for f, r, _ in expected]
    for (_, _, message), (_, _, part) in zip(found, expected, strict=True):
        assert part in message
    assert not Job.objects.exists()


def partitioned(
    replicas: int = 4, min_available: int | None = None, **policy: Any
) -> dict[str, Any]:
    manifest = job_manifest()
    task0 = manifest["spec"]["tasks"][0]
    task0.update(replicas=replicas, partitionPolicy=policy)
    if min_available is not None:
        task0["minAvailable"] = min_available
    return manifest


TASK = "spec.tasks[0]"


@pytest.mark.parametrize(
    ("manifest", "expected"),
    [
        (
            partitioned(totalPartitions=2, partitionSize=3),
            [(f"{TASK}.replicas", "'Replicas' are not equal to TotalPartitions*PartitionSize")],
        ),
        (
            partitioned(totalPartitions=2),
            [(f"{TASK}.partitionPolicy.partitionSize", "Required value")],
        ),
        (
            partitioned(totalPartitions=0, partitionSize=2, minPartitions=-1),
            [
                (f"{TASK}.partitionPolicy.totalPartitions", "must be greater than or equal to 1"),
                (f"{TASK}.partitionPolicy.minPartitions", "must be greater than or equal to 0"),
            ],
        ),
        (
            partitioned(min_available=3, totalPartitions=2, partitionSize=2, minPartitions=1),
            [
                (
                    f"{TASK}.minAvailable",
                    "'MinAvailable' is not equal to MinPartitions*PartitionSize",
                )
            ],
        ),
        (
            partitioned(
                totalPartitions=2,
                partitionSize=2,
                networkTopology={"highestTierAllowed": 1, "highestTierName": "leaf"},
            ),
            [(f"{TASK}.partitionPolicy.networkTopology", BOTH)],
        ),
    ],
    ids=["replicas", "required", "minimums", "min-available", "both-tiers"],
)
def test_a_bad_partition_policy_is_422_at_its_field(
    operator: Client, manifest: dict[str, Any], expected: list[tuple[str, str]]
) -> None:
    found = causes(post(operator, manifest))

    assert [field for field, _, _ in found] == [field for field, _ in expected]
    for (_, _, message), (_, part) in zip(found, expected, strict=True):
        assert part in message
    assert not Job.objects.exists()


def test_min_partitions_sets_the_tasks_and_the_jobs_min_available(operator: Client) -> None:
    manifest = partitioned(totalPartitions=3, partitionSize=2, minPartitions=2, replicas=6)
    manifest["spec"].pop("minAvailable", None)
    assert post(operator, manifest).status_code == 201

    spec = operator.get(JOBS.format(ns="default") + "/topo").json()["spec"]

    assert spec["tasks"][0]["minAvailable"] == 4
    assert spec["minAvailable"] == 4


def test_network_topology_may_not_change_after_creation(operator: Client) -> None:
    assert (
        post(operator, job_manifest(networkTopology={"highestTierAllowed": 1})).status_code == 201
    )
    stored = operator.get(JOBS.format(ns="default") + "/topo").json()
    changed = copy.deepcopy(stored)
    changed["spec"]["networkTopology"]["highestTierAllowed"] = 2

    response = operator.put(
        JOBS.format(ns="default") + "/topo", json.dumps(changed), content_type="application/json"
    )

    assert [(f, r) for f, r, _ in causes(response)] == [(NT, "FieldValueForbidden")]
    assert Job.objects.get(name="topo").network_topology == {
        "mode": "hard",
        "highestTierAllowed": 1,
    }


# -- the job controller ---------------------------------------------------------------------


def test_the_controller_copies_network_topology_to_the_jobs_pod_group(operator: Client) -> None:
    job = submit(networkTopology={"mode": "hard", "highestTierAllowed": 1})
    tick(job)

    group = PodGroup.objects.get(job=job)
    shown = operator.get(PODGROUPS.format(ns="default") + f"/{group.name}").json()

    assert shown["spec"]["networkTopology"] == {"mode": "hard", "highestTierAllowed": 1}


def test_a_tier_name_is_copied_and_a_job_without_topology_gives_a_group_without(
    operator: Client,
) -> None:
    named = submit("named", networkTopology={"mode": "soft", "highestTierName": "spine"})
    plain = submit("plain")
    tick(named)
    tick(plain)

    named_group = PodGroup.objects.get(job=named)
    plain_group = operator.get(
        PODGROUPS.format(ns="default") + f"/{PodGroup.objects.get(job=plain).name}"
    ).json()

    assert named_group.network_topology == {"mode": "soft", "highestTierName": "spine"}
    assert "networkTopology" not in plain_group["spec"]
    assert "subGroupPolicy" not in plain_group["spec"]


def test_a_partitioned_task_becomes_a_sub_group_policy_and_labels_its_pods() -> None:
    partition = {
        "totalPartitions": 2,
        "partitionSize": 2,
        "minPartitions": 1,
        "networkTopology": {"mode": "hard", "highestTierAllowed": 1},
    }
    job = submit(tasks=[task("ps", 1), task("worker", 4, partitionPolicy=partition)])
    tick(job)

    group = PodGroup.objects.get(job=job)
    assert group.sub_group_policy == [
        {
            "name": "worker",
            "networkTopology": {"mode": "hard", "highestTierAllowed": 1},
            "subGroupSize": 2,
            "minSubGroups": 1,
            "labelSelector": {"matchLabels": {"volcano.sh/task-spec": "worker"}},
            "matchLabelKeys": ["volcano.sh/partition-id"],
        }
    ]
    assert group.min_task_member == {"ps": 1, "worker": 2}
    admit(job)
    tick(job)
    labels = {name: pod.labels.get("volcano.sh/partition-id") for name, pod in pods(job).items()}
    assert labels == {
        "job-ps-0": None,
        "job-worker-0": "0",
        "job-worker-1": "0",
        "job-worker-2": "1",
        "job-worker-3": "1",
    }


def test_the_controller_restores_a_changed_sub_group_policy_but_not_network_topology() -> None:
    partition = {"totalPartitions": 2, "partitionSize": 1}
    job = submit(
        tasks=[task("worker", 2, partitionPolicy=partition)],
        networkTopology={"highestTierAllowed": 2},
    )
    tick(job)
    group = PodGroup.objects.get(job=job)
    wanted = group.sub_group_policy
    group.sub_group_policy = [{**wanted[0], "subGroupSize": 5}]
    group.network_topology = {"mode": "soft"}
    group.save()

    tick(job)

    group.refresh_from_db()
    assert group.sub_group_policy == wanted
    # Volcano copies networkTopology when it creates the group only.
    assert group.network_topology == {"mode": "soft"}


def test_restart_partition_restarts_only_the_failed_pods_partition() -> None:
    partition = {"totalPartitions": 2, "partitionSize": 2}
    policies = [{"exitCode": 3, "action": "RestartPartition"}]
    job = submit(
        tasks=[task("ps", 1), task("worker", 4, partitionPolicy=partition, policies=policies)]
    )
    start(job)
    kept = {name: pod.uid for name, pod in pods(job).items() if name != "job-worker-2"}

    set_pods(job, PodPhase.FAILED, "job-worker-2", exit_code=3)
    tick(job)

    assert (job.phase, job.retry_count) == ("Restarting", 1)
    assert sorted(pods(job)) == ["job-ps-0", "job-worker-0", "job-worker-1"]
    assert all(pods(job)[name].uid == kept[name] for name in pods(job))


def test_restart_partition_of_a_task_without_partitions_does_nothing() -> None:
    job = submit(
        tasks=[task("worker", 2, policies=[{"exitCode": 3, "action": "RestartPartition"}])]
    )
    start(job)

    set_pods(job, PodPhase.FAILED, "job-worker-1", exit_code=3)
    tick(job)

    assert (job.phase, job.retry_count) == ("Running", 0)
    assert sorted(pods(job)) == ["job-worker-0", "job-worker-1"]


def test_the_console_shows_the_topology_in_the_job_and_queue_manifests(
    console_login: Any,
) -> None:
    job = submit(
        tasks=[task("worker", 2, partitionPolicy={"totalPartitions": 2, "partitionSize": 1})],
        networkTopology={"mode": "hard", "highestTierAllowed": 1},
    )
    tick(job)
    Queue.objects.filter(name="default").update(
        affinity={"nodeGroupAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": ["g1"]}}
    )
    client = console_login("olga-pages", "operator")

    job_page = client.get("/jobs/default/job/")
    queue_page = client.get("/queues/default/")

    assert job_page.status_code == queue_page.status_code == 200
    assert "networkTopology:" in job_page.content.decode()
    assert "highestTierAllowed: 1" in job_page.content.decode()
    assert "partitionPolicy:" in job_page.content.decode()
    assert "nodeGroupAffinity:" in queue_page.content.decode()
    assert client.get("/podgroups/").status_code == 200
