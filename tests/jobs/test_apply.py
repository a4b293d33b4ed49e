"""``manage.py apply -f``: kubectl's create/configure lines, all or nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command
from django.core.management.base import CommandError

from core.models import PriorityClass
from jobs.admission import admit_job
from jobs.models import Job, TaskSpec
from kube.manifests import dump_manifest, load_manifest
from queues.models import PodGroup, Queue

pytestmark = pytest.mark.django_db

EXAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "examples"  # ../shared/examples


def apply(*paths: Path) -> list[str]:
    """Run the command and return its output lines."""
    out = StringIO()
    args = [arg for path in paths for arg in ("-f", str(path))]
    call_command("apply", *args, stdout=out)
    return out.getvalue().splitlines()


def test_applying_the_examples_creates_them_in_dependency_order() -> None:
    lines = apply(EXAMPLES / "jobs", EXAMPLES / "queues")
    assert lines == [
        "priorityclass.scheduling.k8s.io/high-priority created",
        "queue.scheduling.volcano.sh/default configured",
        "queue.scheduling.volcano.sh/test created",
        "job.batch.volcano.sh/mindspore-cpu created",
        "job.batch.volcano.sh/job-1 created",
        "job.batch.volcano.sh/tensorflow-dist-mnist created",
        "job.batch.volcano.sh/test-job created",
        "podgroup.scheduling.volcano.sh/test created",
    ]
    job = Job.objects.get(name="tensorflow-dist-mnist")
    assert list(job.tasks.values_list("name", "replicas")) == [("ps", 1), ("worker", 2)]
    assert Queue.objects.get(name="default").capability == {"cpu": 4000, "memory": 4 * 2**30 * 1000}
    assert PodGroup.objects.get(name="test").priority_class_name == "high-prority"


def test_applying_twice_changes_nothing() -> None:
    apply(EXAMPLES / "jobs", EXAMPLES / "queues")
    versions = dict(Job.objects.values_list("name", "resource_version"))
    assert all(
        line.endswith(" unchanged") for line in apply(EXAMPLES / "jobs", EXAMPLES / "queues")
    )
    assert dict(Job.objects.values_list("name", "resource_version")) == versions


def test_stored_job_dumps_to_what_was_applied() -> None:
    path = EXAMPLES / "jobs" / "test-job-volumes.yaml"
    apply(EXAMPLES / "queues", path)
    stored = dump_manifest(Job.objects.get(name="test-job"))
    # What was applied, with the admission defaults (task minAvailable, maxRetry) filled in.
    loaded = admit_job(load_manifest(yaml.safe_load(path.read_text())))
    from_file = dump_manifest(loaded.instance, loaded.children)
    assert stored["spec"] == from_file["spec"]
    assert stored["metadata"]["uid"]
    # A stored object's dump (with uid, resourceVersion, time) loads back the same too.
    reloaded = load_manifest(stored)
    assert dump_manifest(reloaded.instance, reloaded.children) == stored


def test_changing_replicas_reports_configured_and_replaces_tasks(tmp_path: Path) -> None:
    source = (EXAMPLES / "jobs" / "nginx-sleep.yaml").read_text()
    apply(EXAMPLES / "queues" / "test.yaml")
    first = tmp_path / "job.yaml"
    first.write_text(source)
    assert apply(first) == ["job.batch.volcano.sh/job-1 created"]
    first.write_text(source.replace("replicas: 1", "replicas: 3"))
    assert apply(first) == ["job.batch.volcano.sh/job-1 configured"]
    assert list(TaskSpec.objects.values_list("name", "replicas")) == [("nginx", 3)]


def test_multi_document_file_with_one_bad_document_writes_nothing(tmp_path: Path) -> None:
    manifest = tmp_path / "bundle.yaml"
    manifest.write_text(
        (EXAMPLES / "queues" / "test.yaml").read_text()
        + "\n---\n"
        + (EXAMPLES / "jobs" / "nginx-sleep.yaml")
        .read_text()
        .replace("replicas: 1", "replicas: one")
    )
    with pytest.raises(CommandError) as caught:
        apply(manifest)
    assert "bundle.yaml#2: spec.tasks[0].replicas" in str(caught.value)
    assert not Queue.objects.filter(name="test").exists()
    assert not Job.objects.exists()


def test_a_row_the_database_refuses_rolls_back_the_whole_batch(tmp_path: Path) -> None:
    manifest = tmp_path / "classes.yaml"
    manifest.write_text(
        "\n---\n".join(
            f"apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
            f"metadata: {{name: {name}}}\nvalue: 10\nglobalDefault: true\n"
            for name in ("first", "second")
        )
    )
    with pytest.raises(CommandError, match="globalDefault"):
        apply(manifest)
    assert not PriorityClass.objects.filter(name__in=["first", "second"]).exists()


def test_missing_path_is_an_error() -> None:
    with pytest.raises(CommandError, match="does not exist"):
        apply(Path("/nonexistent/manifest.yaml"))


def test_apply_command_exits_non_zero_from_the_shell(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\n"
        "metadata: {name: q}\nspec: {weight: 0}\n"
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "apply", "-f", str(bad)],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "VOLCANO_DATA_DIR": str(tmp_path)},
    )
    assert result.returncode != 0
    assert "spec.weight" in result.stderr


def test_applying_a_dumped_job_ignores_its_status(tmp_path: Path) -> None:
    manifest = yaml.safe_load((EXAMPLES / "jobs" / "mindspore-cpu.yaml").read_text())
    manifest["status"] = {"state": {"phase": "Running"}, "running": 8, "retryCount": 2}
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(manifest))
    apply(path)
    job = Job.objects.get(name="mindspore-cpu")
    assert (job.phase, job.running, job.retry_count) == ("", 0, 0)


def test_reapplying_a_queue_file_does_not_reopen_a_closed_queue(tmp_path: Path) -> None:
    apply(EXAMPLES / "queues" / "test.yaml")
    Queue.objects.filter(name="test").update(state="Closed")
    path = tmp_path / "q.yaml"
    path.write_text(
        (EXAMPLES / "queues" / "test.yaml").read_text().replace("weight: 1", "weight: 4")
    )
    assert apply(path) == ["queue.scheduling.volcano.sh/test configured"]
    queue = Queue.objects.get(name="test")
    assert (queue.weight, queue.state) == (4, "Closed")
