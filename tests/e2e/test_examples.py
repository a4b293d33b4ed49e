"""Each of Volcano's example jobs, submitted unchanged, runs to Completed on the embedded stack."""

from __future__ import annotations

import pytest

from core.models import Pod
from jobs.models import Job
from tests.e2e.stack import Clock, apply_file, nodes

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("manifest", "job_name"),
    [
        ("nginx-sleep.yaml", "job-1"),
        ("mindspore-cpu.yaml", "mindspore-cpu"),
        ("tensorflow-dist-mnist.yaml", "tensorflow-dist-mnist"),
        ("test-job-volumes.yaml", "test-job"),
    ],
)
def test_example_job_reaches_completed(manifest: str, job_name: str) -> None:
    nodes(4)
    apply_file("test.yaml")
    apply_file("high-priority-class.yaml")
    apply_file(manifest)
    clock = Clock()
    seen: set[str] = set()

    def completed() -> bool:
        phase = Job.objects.get(name=job_name).phase
        seen.add(phase)
        return phase == "Completed"

    clock.run_until(completed, cycles=90)

    assert "Running" in seen
    assert Pod.objects.filter(job__name=job_name, phase="Succeeded").exists()
