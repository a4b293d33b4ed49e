"""Enqueue: which Pending PodGroups become Inqueue."""

from __future__ import annotations

from scheduler.engine.api.types import ABSTAIN, PERMIT, REJECT, PodGroupPhase
from scheduler.engine.framework import run_session
from tests.engine.builders import build_cluster, build_node, conf, gang, res


def pending(name, *, min_resources=True, minutes=0):
    job = gang(name, 1, phase=PodGroupPhase.PENDING, minutes=minutes)
    if min_resources:
        job.min_resources = res(cpu="1")
    return job


def test_rejected_job_stays_pending_and_admitted_one_is_told_to_plugins(probe):
    told = []
    probe["job_enqueueable"] = lambda job: REJECT if job.name == "no" else ABSTAIN
    probe["job_enqueued"] = lambda job: told.append(job.name)
    cluster = build_cluster([build_node("n1")], [pending("no"), pending("yes", minutes=1)])
    decisions = run_session(cluster, conf("enqueue", ("probe",)))
    assert decisions.pod_group_phases == {
        "ns/no": PodGroupPhase.PENDING,
        "ns/yes": PodGroupPhase.INQUEUE,
    }
    assert told == ["yes"]
    assert decisions.enqueued == ["ns/yes"]


def test_job_without_min_resources_is_admitted_without_a_vote(probe):
    probe["job_enqueueable"] = lambda job: REJECT
    cluster = build_cluster([build_node("n1")], [pending("free", min_resources=False)])
    decisions = run_session(cluster, conf("enqueue", ("probe",)))
    assert decisions.pod_group_phases["ns/free"] == PodGroupPhase.INQUEUE


def test_enqueue_sees_earlier_admissions_in_job_order(probe):
    admitted: list[str] = []
    probe["job_enqueueable"] = lambda job: PERMIT if not admitted else REJECT
    probe["job_enqueued"] = lambda job: admitted.append(job.name)
    cluster = build_cluster(
        [build_node("n1")], [pending("second", minutes=5), pending("first", minutes=1)]
    )
    decisions = run_session(cluster, conf("enqueue", ("probe",)))
    assert admitted == ["first"]
    assert decisions.pod_group_phases["ns/second"] == PodGroupPhase.PENDING


def test_enqueue_flag_off_means_the_vote_is_not_asked(probe):
    probe["job_enqueueable"] = lambda job: REJECT
    from scheduler.engine.conf import load_conf

    text = 'actions: "enqueue"\ntiers:\n- plugins:\n  - name: probe\n    enableJobEnqueued: false\n'
    decisions = run_session(build_cluster([build_node("n1")], [pending("j")]), load_conf(text))
    assert decisions.pod_group_phases["ns/j"] == PodGroupPhase.INQUEUE
