"""The queue pages: shares from the engine, the editor with preview, actions, roles and audit."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

import pytest
import yaml
from django.test import Client

from accounts.models import AuditEntry
from jobs.models import Job
from jobs.services import job_submit
from kube.render import render
from queues.api.resources import QUEUES
from queues.models import Queue
from queues.services import spec_fingerprint
from scheduler.live_shares import live_shares
from scheduler.worker import run_once
from tests.console.compose import composed
from tests.scheduler.factories import make_node, make_queue

pytestmark = pytest.mark.django_db

CORE = 1000


def _job(name: str, *, queue: str, replicas: int, cpu: str = "2", priority_class: str = "") -> None:
    spec: dict[str, Any] = {"containers": [{"name": "main", "image": "busybox",
                            "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}}}]}  # fmt: skip
    job_spec: dict[str, Any] = {
        "minAvailable": 1, "queue": queue, "schedulerName": "volcano",
        "tasks": [{"name": "worker", "replicas": replicas, "template": {"spec": spec}}],
    }  # fmt: skip
    if priority_class:
        job_spec["priorityClassName"] = priority_class
    job_submit(manifest={
        "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
        "metadata": {"name": name, "namespace": "default"}, "spec": job_spec,
    })  # fmt: skip


@pytest.fixture
def busy_cluster() -> None:
    """Two 8-core nodes; queues a and b (weight 1 each) both ask for more than the cluster."""
    make_node("n1", cpu=8, memory_gi=64)
    make_node("n2", cpu=8, memory_gi=64)
    make_queue("a")
    make_queue("b")
    _job("ja", queue="a", replicas=8)
    _job("jb", queue="b", replicas=8)
    run_once()
    run_once()


def _editor_post(queue: Queue, **changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "source": "form", "name": queue.name, "parent": queue.parent, "weight": queue.weight,
        "priority": queue.priority, "dequeue_strategy": queue.dequeue_strategy,
        "resource_version": queue.resource_version, "spec": spec_fingerprint(queue),
    }  # fmt: skip
    if queue.reclaimable:
        data["reclaimable"] = "on"
    data.update(changes)
    return data


def test_the_queue_list_shows_the_engines_deserved_shares(
    console_login: Callable[..., Client], busy_cluster: None
) -> None:
    shares = live_shares()
    assert shares.plugin == "proportion"
    assert shares.queues["a"].deserved["cpu"] == pytest.approx(8 * CORE)
    page = console_login("vera", "viewer").get("/queues/").content.decode()
    assert '<a href="/queues/a/">a</a>' in page
    assert "proportion plugin" in page
    assert re.search(r"class=\"pair\">8 / 8 cores</span>", page)  # allocated / deserved cpu, cores
    assert 'data-figure="queue-share-0"' in page  # the cpu chart
    assert "New queue" not in page  # a viewer cannot create


def test_root_heads_the_list_and_takes_no_share(
    console_login: Callable[..., Client], busy_cluster: None
) -> None:
    """Root holds no job, so proportion leaves it out, as Volcano's does: a and b split it all."""
    shares = live_shares()
    assert not shares.queues["root"].taking_part
    assert shares.queues["root"].deserved == {}
    assert shares.queues["a"].deserved["cpu"] == pytest.approx(8 * CORE)
    assert shares.queues["b"].deserved["cpu"] == pytest.approx(8 * CORE)
    page = console_login("vera", "viewer").get("/queues/").content.decode()
    names = re.findall(r'<a href="/queues/([a-z0-9-]+)/">', page)
    assert names[0] == "root"
    assert {"a", "b", "default"} <= set(names)


def test_root_capacity_hierarchy_gives_the_same_shares_as_before(busy_cluster: None) -> None:
    """Capacity's hierarchy hangs every queue under root: the real row changes nothing."""
    from scheduler.cache.snapshot import read_snapshot
    from scheduler.engine import load_conf
    from scheduler.engine.shares import queue_shares

    Queue.objects.filter(name__in=["a", "b"]).update(deserved={"cpu": 8 * CORE})
    conf = load_conf(
        "actions: enqueue, allocate\n"
        "tiers:\n- plugins:\n  - name: priority\n  - name: gang\n"
        "- plugins:\n  - name: predicates\n  - name: capacity\n    enableHierarchy: true\n"
    )
    cluster = read_snapshot().cluster
    with_row = queue_shares(cluster, conf)
    del cluster.queues["root"]  # as before root was a row: capacity makes one up
    without_row = queue_shares(cluster, conf)
    for name in ("a", "b"):
        assert with_row.queues[name].deserved == without_row.queues[name].deserved
        assert with_row.queues[name].deserved["cpu"] == pytest.approx(8 * CORE)


def test_a_weight_preview_equals_the_shares_after_saving(
    console_login: Callable[..., Client], busy_cluster: None
) -> None:
    client = console_login("olga", "operator")
    queue = Queue.objects.get(name="a")
    checked = client.post("/queues/a/edit/check/", _editor_post(queue, weight=3))
    assert "Valid: Volcano's admission accepts this queue." in checked.content.decode()
    # The check asks the editor's preview slot to follow: it posts the same edit to the
    # scheduler, whose answer is every queue's share now and after saving.
    assert checked["HX-Trigger-After-Settle"] == "queue-checked"
    assert 'hx-post="/queues/a/edit/preview/"' in checked.content.decode()
    answer = client.post("/queues/a/edit/preview/", _editor_post(queue, weight=3))
    body = answer.content.decode()
    assert answer.status_code == 200
    previewed = {
        name: float(after)
        for name, after in re.findall(
            r'<th scope="row">(\w+)</th>.*?data-resource="cpu" data-after="([\d.]+)"', body, re.S
        )
    }
    assert previewed == {"a": pytest.approx(12 * CORE), "b": pytest.approx(4 * CORE)}
    assert Queue.objects.get(name="a").weight == 1  # a preview writes nothing

    saved = client.post("/queues/a/edit/", _editor_post(queue, weight=3))
    assert saved.status_code == 302
    after = live_shares()
    assert {n: after.queues[n].deserved["cpu"] for n in ("a", "b")} == previewed
    run_once()  # the next session computes, and stores, what the preview said
    stored = {
        q.name: q.share_status["deserved"]["cpu"] for q in Queue.objects.filter(name__in="ab")
    }
    assert stored == previewed


def test_the_form_and_the_yaml_are_two_views_of_one_manifest(
    console_login: Callable[..., Client], busy_cluster: None
) -> None:
    client = console_login("olga", "operator")
    queue = Queue.objects.get(name="a")
    body = client.post(
        "/queues/a/edit/check/", _editor_post(queue, weight=5, **{"capability:cpu": "6"})
    ).content.decode()
    text = re.search(r'<textarea id="queue-yaml"[^>]*>(.*?)</textarea>', body, re.S)
    assert text is not None
    manifest = yaml.safe_load(text.group(1).replace("&quot;", '"').replace("&#x27;", "'"))
    assert manifest["spec"]["weight"] == 5
    assert manifest["spec"]["capability"] == {"cpu": "6"}

    yaml_text = "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: a}\n"
    yaml_text += "spec: {weight: 7, reclaimable: false, deserved: {cpu: '4'}}\n"
    body = client.post(
        "/queues/a/edit/check/", {"source": "yaml", "yaml": yaml_text}
    ).content.decode()
    assert '<div id="queue-form-fields" hx-swap-oob="innerHTML">' in body
    assert 'name="weight" value="7"' in body
    assert 'name="deserved:cpu" value="4"' in body
    assert 'name="reclaimable" id="id_reclaimable" checked' not in body


@pytest.mark.parametrize(
    ("changes", "slot", "words"),
    [
        ({"weight": 0}, "err-weight", "must be greater than or equal to 1"),
        ({"weight": 70000}, "err-weight", "must be in the range 1-65535"),
        ({"capability:cpu": "lots"}, "", "spec.capability.cpu"),
        (
            {"guarantee:cpu": "4", "deserved:cpu": "2"},
            "err-deserved-cpu",
            "deserved[cpu]=2 must be >= guarantee[cpu]=4",
        ),
        ({"deserved:cpu": "8", "capability:cpu": "4"}, "err-deserved-cpu", "must be <= capability"),
    ],
)
def test_a_refused_field_is_named_and_nothing_is_written(
    console_login: Callable[..., Client], changes: dict[str, Any], slot: str, words: str
) -> None:
    make_node("n1", cpu=8)
    queue = make_queue("a")
    client = console_login("olga", "operator")
    answer = client.post("/queues/a/edit/check/", _editor_post(queue, **changes))
    checked = html.unescape(answer.content.decode())
    assert words in checked
    assert "cannot be saved" in checked
    if slot:
        assert re.search(
            rf'id="{slot}" role="alert" hx-swap-oob="true">[^<]*{re.escape(words)}', checked
        )
    saved = client.post("/queues/a/edit/", _editor_post(queue, **changes))
    assert saved.status_code == 400
    assert Queue.objects.get(name="a").resource_version == queue.resource_version


def test_saving_refuses_when_someone_changed_the_spec_meanwhile(
    console_login: Callable[..., Client],
) -> None:
    queue = make_queue("a")
    client = console_login("olga", "operator")
    Queue.objects.filter(name="a").update(resource_version=queue.resource_version + 1, weight=9)
    answer = client.post("/queues/a/edit/", _editor_post(queue, weight=2))
    assert answer.status_code == 409
    assert "changed by someone else meanwhile" in answer.content.decode()
    assert Queue.objects.get(name="a").weight == 9


def test_a_status_write_meanwhile_does_not_refuse_the_save(
    console_login: Callable[..., Client],
) -> None:
    queue = make_queue("a")
    client = console_login("olga", "operator")
    stored = Queue.objects.get(name="a")
    stored.running = 3  # the queue controller counting PodGroups: the resourceVersion moves
    stored.save()
    answer = client.post("/queues/a/edit/", _editor_post(queue, weight=2))
    assert answer.status_code == 302
    assert Queue.objects.get(name="a").weight == 2


def test_creating_a_queue_by_yaml_and_the_audit_records_who(
    console_login: Callable[..., Client],
) -> None:
    client = console_login("olga", "operator")
    text = "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: ml}\n"
    text += "spec: {weight: 4, capability: {cpu: '16', memory: 64Gi}}\n"
    answer = client.post("/queues/new/", {"source": "yaml", "yaml": text})
    assert answer.status_code == 302
    queue = Queue.objects.get(name="ml")
    assert (queue.weight, queue.capability["cpu"]) == (4, 16 * CORE)
    entry = AuditEntry.objects.get(kind="Queue", name="ml")
    assert (entry.actor_name, entry.action) == ("olga", "create")
    page = client.get("/queues/ml/").content.decode()
    assert "olga" in page  # the history on the queue's page


@pytest.mark.parametrize("role", ["viewer", "submitter"])
def test_only_operators_change_queues(console_login: Callable[..., Client], role: str) -> None:
    queue = make_queue("a")
    client = console_login("sam", role)
    assert client.get("/queues/a/").status_code == 200
    assert client.get("/queues/a/edit/").status_code == 403
    assert client.get("/queues/new/").status_code == 403
    assert client.post("/queues/a/edit/", _editor_post(queue, weight=5)).status_code == 403
    assert client.post("/queues/a/edit/check/", _editor_post(queue, weight=5)).status_code == 403
    assert client.post("/queues/a/edit/preview/", _editor_post(queue, weight=5)).status_code == 403
    assert client.post("/queues/a/action/", {"action": "close"}).status_code == 403
    assert client.post("/queues/a/action/", {"action": "delete"}).status_code == 403
    stored = Queue.objects.get(name="a")
    assert (stored.weight, stored.state) == (1, "Open")
    assert not AuditEntry.objects.exists()


def test_delete_is_refused_with_the_reason_for_default_children_and_jobs(
    console_login: Callable[..., Client],
) -> None:
    make_node("n1", cpu=8)
    make_queue("parent-q")
    make_queue("child-q", parent="parent-q")
    make_queue("busy")
    make_queue("empty")
    _job("j", queue="busy", replicas=1)
    client = console_login("olga", "operator")
    page = client.get("/queues/default/").content.decode()
    assert "Volcano never deletes the default queue." in page
    for name, words in (
        ("default", "never deletes the default"),
        ("parent-q", "child queues: child-q"),
        ("busy", "holds 1 job(s)"),
    ):
        answer = client.post(f"/queues/{name}/action/", {"action": "delete"}, follow=True)
        assert words in answer.content.decode()
        assert Queue.objects.filter(name=name).exists()
    answer = client.post("/queues/empty/action/", {"action": "delete"})
    assert answer.status_code == 302
    assert not Queue.objects.filter(name="empty").exists()


def test_closing_a_queue_with_running_jobs_leaves_it_closing(
    console_login: Callable[..., Client], busy_cluster: None
) -> None:
    client = console_login("olga", "operator")
    client.post("/queues/a/action/", {"action": "close"})
    assert Queue.objects.get(name="a").state == "Closing"
    client.post("/queues/a/action/", {"action": "open"})
    assert Queue.objects.get(name="a").state == "Open"
    actions = list(AuditEntry.objects.filter(name="a").values_list("after", flat=True))
    assert {"state": "Open"} in actions
    assert any(a and a.get("state") in ("Closing", "Closed") for a in actions)


def test_the_queue_page_lists_waiting_jobs_in_the_engines_order(
    console_login: Callable[..., Client],
) -> None:
    from core.models import PriorityClass

    PriorityClass.objects.create(name="urgent", value=1000)
    make_node("n1", cpu=1)  # too small for any of them: all three wait
    make_queue("a")
    _job("first", queue="a", replicas=1, cpu="2")
    _job("second", queue="a", replicas=1, cpu="2")
    _job("later-urgent", queue="a", replicas=1, cpu="2", priority_class="urgent")
    run_once()
    run_once()
    assert not Job.objects.filter(phase="Running").exists()
    page = composed(console_login("vera", "viewer", ("default",)), "/queues/a/")
    line = page[page.index("What runs next") : page.index("Jobs by phase")]
    positions = [line.index(f">{name}</a>") for name in ("later-urgent", "first", "second")]
    assert positions == sorted(positions)  # priority first, then the older job


def test_waiting_jobs_of_unreadable_namespaces_are_counted_not_shown(
    console_login: Callable[..., Client],
) -> None:
    make_node("n1", cpu=1)
    make_queue("a")
    _job("secret", queue="a", replicas=1, cpu="2")
    run_once()
    page = composed(console_login("vera", "viewer", ("team-x",)), "/queues/a/")
    assert "secret" not in page
    assert "1 more waiting job is in a namespace you cannot read." in page


def test_a_queue_change_runs_the_schedulers_what_if_without_saving(
    console_login: Callable[..., Client], busy_cluster: None, settings: Any
) -> None:
    from scheduler.whatif_runs import get_run

    settings.VOLCANO_WHATIF_INLINE = True
    client = console_login("olga", "operator")
    queue = Queue.objects.get(name="a")
    answer = client.post("/queues/a/edit/whatif/", _editor_post(queue, weight=3))
    assert answer.status_code == 302
    run_id = answer["Location"].rstrip("/").rsplit("/", 1)[-1]
    run = get_run(run_id, user=client.user)  # type: ignore[attr-defined]
    assert run is not None
    assert run.report is not None
    assert run.report.queue_changes["a"]["weight"] == 3
    draft, active = run.report.draft.queues["a"], run.report.active.queues["a"]
    assert draft.deserved["cpu"] > active.deserved["cpu"]  # a weight of 3 deserves more
    assert Queue.objects.get(name="a").weight == 1  # nothing saved
    page = client.get(answer["Location"]).content.decode()
    assert "weight" in page


def test_a_viewer_cannot_run_a_queue_what_if(console_login: Callable[..., Client]) -> None:
    queue = make_queue("a")
    client = console_login("vera", "viewer")
    assert client.post("/queues/a/edit/whatif/", _editor_post(queue, weight=3)).status_code == 403


def test_the_queue_page_shows_its_jobs_by_phase_from_the_jobs_fragment(
    console_login: Callable[..., Client],
) -> None:
    make_node("n1", cpu=1)
    make_queue("a")
    _job("first", queue="a", replicas=1, cpu="2")
    client = console_login("vera", "viewer", ("default",))
    page = client.get("/queues/a/").content.decode()
    # The queue's page holds the jobs app's and the monitoring app's sections, loaded by URL.
    assert 'hx-get="/queues/a/jobs/"' in page
    assert 'hx-get="/queues/a/history/?range=1h"' in page
    shown = composed(client, "/queues/a/")
    assert '<a href="/jobs/?queue=a&amp;phase=New">New 1</a>' in shown
    assert client.get("/queues/ghost/jobs/").status_code == 404
    assert Client().get("/queues/a/jobs/").status_code == 302  # signed out: sign in first


def test_saving_in_the_editor_is_the_apis_write_with_its_generation_and_audit(
    console_login: Callable[..., Client], busy_cluster: None
) -> None:
    client = console_login("olga", "operator")
    queue = Queue.objects.get(name="a")
    before = render(QUEUES, queue)["metadata"]
    saved = client.post("/queues/a/edit/", _editor_post(queue, weight=3))
    assert saved.status_code == 302
    after = render(QUEUES, Queue.objects.get(name="a"))["metadata"]
    assert after["generation"] == before["generation"] + 1  # a spec change, as kubectl's
    assert int(after["resourceVersion"]) > int(before["resourceVersion"])
    entry = AuditEntry.objects.get(kind="Queue", name="a", action="update")
    assert entry.actor_name == "olga"
    assert entry.after is not None
    assert entry.after["weight"] == 3


def test_overused_is_only_a_queue_holding_more_than_it_deserves_and_amounts_have_units(
    console_login: Callable[..., Client],
) -> None:
    share = {"plugin": "proportion", "taking_part": True, "overused": True, "at": "now"}
    make_queue("idle", allocated={}, share_status={**share, "deserved": {}})
    make_queue("full", allocated={"cpu": 2 * CORE},
               share_status={**share, "deserved": {"cpu": 2 * CORE}})  # fmt: skip
    make_queue("greedy", allocated={"cpu": 3 * CORE},
               share_status={**share, "deserved": {"cpu": 1500}})  # fmt: skip
    body = console_login("vera", "viewer").get("/queues/").content.decode()
    rows = {
        n: body[body.index(f">{n}</a>") :].split("</li>")[0] for n in ("idle", "full", "greedy")
    }
    assert ">overused<" not in rows["idle"]
    assert "at its share" not in rows["idle"]
    assert ">overused<" not in rows["full"]
    assert "at its share" in rows["full"]
    assert ">overused<" in rows["greedy"]
    assert "3 / 1.5 cores" in rows["greedy"]
    assert "2 / 2 cores" in rows["full"]
