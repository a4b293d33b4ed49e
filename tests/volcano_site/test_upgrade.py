"""A database made before the house moved migrates to the new layout with every row intact.

``tests/fixtures/databases/main-2effdda.sqlite3.gz`` is a real database made at commit 2effdda
(the layout before Pod, Node, Namespace, Event, Secret and PriorityClass moved to ``core``,
PodGroup to ``queues``, the Kubeflow jobs to ``training`` and Failpoint to ``kube``): the demo cluster, jobs run for
a few sessions, Kubeflow jobs, an ssh job's Secrets (their keys replaced by placeholders), a
namespace with a grant and a token, a pending Command, an eviction, audit entries and history.
The second test makes the old layout on the test database itself (PostgreSQL in CI), fills it
through the old models and migrates forward and back.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests/fixtures/databases/main-2effdda.sqlite3.gz"

# What the fixture held when it was made, by today's labels (ChangeEvent: by kind).
ROWS = {
    "core.node": 20, "core.nodeloadstamp": 1, "core.namespace": 2, "core.pod": 27,
    "core.event": 58, "core.secret": 2, "core.priorityclass": 5,
    "queues.queue": 6, "queues.podgroup": 11,
    "jobs.job": 8, "jobs.taskspec": 8, "jobs.command": 1, "jobs.podeviction": 1,
    "training.pytorchjob": 1, "training.tfjob": 1, "training.mpijob": 1,
    "scheduler.schedulerconfiguration": 1, "scheduler.sessionrecord": 16,
    "monitoring.historysample": 16, "monitoring.nodehistorysample": 1,
    "kube.changeevent": 204, "accounts.apitoken": 1, "accounts.namespacegrant": 1,
    "accounts.auditentry": 2, "auth.user": 3,
}  # fmt: skip
MOVED = {
    "jobs.pod": "core.pod", "jobs.event": "core.event", "jobs.secret": "core.secret",
    "jobs.priorityclass": "core.priorityclass", "jobs.podgroup": "queues.podgroup",
    "jobs.pytorchjob": "training.pytorchjob", "jobs.tfjob": "training.tfjob",
    "jobs.mpijob": "training.mpijob", "scheduler.node": "core.node",
    "scheduler.nodeloadstamp": "core.nodeloadstamp", "kube.namespace": "core.namespace",
    "scheduler.failpoint": "kube.failpoint",
}  # fmt: skip

# Read back through today's models, in a process of its own on the upgraded file.
READ_BACK = """
import json
from django.apps import apps
from django.contrib.contenttypes.models import ContentType
from core.models import Pod
from kube.models import ChangeEvent
rows = {m._meta.label_lower: m._default_manager.count() for m in apps.get_models()}
pods = list(Pod.objects.select_related("job", "pod_group", "node"))
print(json.dumps({
    "rows": rows,
    "bound": sum(p.node is not None for p in pods),
    "grouped": sum(p.pod_group is not None for p in pods),
    "owned": sum(p.job is not None for p in pods),
    "kinds": sorted(set(ChangeEvent.objects.values_list("kind", flat=True))),
    "types": sorted(f"{c.app_label}.{c.model}" for c in ContentType.objects.all()),
}))
"""


def _manage(data_dir: Path, *args: str) -> str:
    env = {**os.environ, "VOLCANO_DATA_DIR": str(data_dir)}
    for name in ("DATABASE_URL", "REDIS_URL", "VOLCANO_EMBEDDED_SCHEDULER"):
        env.pop(name, None)
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_a_database_made_at_2effdda_migrates_with_every_row(tmp_path: Path) -> None:
    with gzip.open(FIXTURE) as packed, (tmp_path / "db.sqlite3").open("wb") as db:
        shutil.copyfileobj(packed, db)

    applied = _manage(tmp_path, "migrate", "--noinput")
    after = json.loads(_manage(tmp_path, "shell", "--no-imports", "-c", READ_BACK))

    assert "core.0002_tables_and_labels" in applied.replace("Applying ", "").replace("... OK", "")
    assert {label: after["rows"].get(label) for label in ROWS} == ROWS
    # Every pod kept its node and PodGroup; the Kubeflow jobs' seven belong to no Volcano Job.
    assert (after["bound"], after["grouped"], after["owned"]) == (27, 27, 20)
    # Watches resumed across the upgrade find their kinds under today's labels.
    assert not set(after["kinds"]) & set(MOVED)
    assert {"core.pod", "queues.podgroup", "training.pytorchjob", "core.node"} <= set(
        after["kinds"]
    )
    # The content types moved with their models (the admin log and permissions point at them).
    assert not set(after["types"]) & set(MOVED)
    assert set(MOVED.values()) <= set(after["types"])
    _manage(tmp_path, "makemigrations", "--check", "--dry-run")


# The layout of 2effdda: each app's last migration then.
OLD = [
    ("jobs", "0015_pod_container_state"),
    ("queues", "0005_root_queue"),
    ("scheduler", "0007_node_info_and_addresses"),
    ("kube", "0004_object_owners_and_finalizers"),
    ("core", None),
    ("training", None),
]
# The apps that had migrations then, at those migrations: the old models' state.
OLD_STATE = [(app, name) for app, name in OLD if name is not None]


def _old_rows(old: Any) -> None:
    """Fill the old layout through its own (historical) models."""
    node = old.get_model("scheduler", "Node").objects.create(name="n1", uid="0" * 32)
    job = old.get_model("jobs", "Job").objects.create(name="j1", namespace="default")
    group = old.get_model("jobs", "PodGroup").objects.create(
        name="j1", namespace="default", job=job, uid="1" * 32
    )
    old.get_model("jobs", "Pod").objects.create(
        name="j1-w-0", namespace="default", job=job, pod_group=group, node=node, uid="2" * 32
    )
    old.get_model("kube", "Namespace").objects.create(name="team-b")
    old.get_model("kube", "ChangeEvent").objects.create(
        kind="jobs.pod", type="ADDED", namespace="default", name="j1-w-0", object_pk=1
    )
    old.get_model("kube", "OwnerLink").objects.create(
        owner_uid="1" * 32, owner_kind="jobs.podgroup", dependent_kind="jobs.pod",
        dependent_pk=1, dependent_name="j1-w-0",
    )  # fmt: skip
    old.get_model("scheduler", "Failpoint").objects.create(name="bind.node", action="error")
    content_types = old.get_model("contenttypes", "ContentType").objects
    content_types.get_or_create(app_label="jobs", model="pod")
    content_types.get_or_create(app_label="scheduler", model="failpoint")


@pytest.mark.django_db(transaction=True)
def test_the_old_layout_migrates_forward_and_back_on_this_database() -> None:
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    try:
        executor.migrate(OLD)
        executor.loader.build_graph()
        _old_rows(executor.loader.project_state(OLD_STATE).apps)

        executor.loader.build_graph()
        executor.migrate(latest)

        pod = apps.get_model("core", "Pod").objects.select_related("job", "pod_group", "node").get()
        assert (pod.name, pod.job.name, pod.pod_group.name, pod.node.name) == (
            "j1-w-0", "j1", "j1", "n1",
        )  # fmt: skip
        assert apps.get_model("core", "Namespace").objects.filter(name="team-b").exists()
        change = apps.get_model("kube", "ChangeEvent").objects.get(name="j1-w-0")
        link = apps.get_model("kube", "OwnerLink").objects.get()
        assert (change.kind, link.owner_kind, link.dependent_kind) == (
            "core.pod", "queues.podgroup", "core.pod",
        )  # fmt: skip
        assert ContentType.objects.filter(app_label="core", model="pod").exists()
        assert not ContentType.objects.filter(app_label="jobs", model="pod").exists()
        armed = apps.get_model("kube", "Failpoint").objects.get()
        assert (armed.name, armed.action) == ("bind.node", "error")
        assert ContentType.objects.filter(app_label="kube", model="failpoint").exists()
        assert not ContentType.objects.filter(app_label="scheduler", model="failpoint").exists()

        # And back: the old layout keeps the rows and takes its labels again.
        executor.loader.build_graph()
        executor.migrate(OLD)
        old = executor.loader.project_state(OLD_STATE).apps
        assert old.get_model("jobs", "Pod").objects.get().name == "j1-w-0"
        assert old.get_model("kube", "ChangeEvent").objects.get().kind == "jobs.pod"
        assert old.get_model("scheduler", "Failpoint").objects.get().name == "bind.node"
    finally:
        executor.loader.build_graph()
        executor.migrate(latest)
        ContentType.objects.clear_cache()
