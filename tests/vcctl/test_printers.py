"""vcctl's tables and views, character for character (pkg/cli/job/list.go, queue/list.go)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from vcctl.printers import human_duration, job_table, queue_table, render
from vcctl.view import describe_events, describe_job

JOB: dict[str, Any] = {
    "apiVersion": "batch.volcano.sh/v1alpha1",
    "kind": "Job",
    "metadata": {
        "name": "job-1",
        "namespace": "default",
        "creationTimestamp": "2026-11-21T10:00:00Z",
        "labels": {"volcano.sh/job-type": "MPI"},
    },
    "spec": {"queue": "default", "tasks": [{"replicas": 2}, {"replicas": 3}]},
    "status": {
        "state": {"phase": "Running"},
        "minAvailable": 4,
        "pending": 1,
        "running": 4,
        "succeeded": 0,
        "failed": 0,
        "retryCount": 2,
    },
}
HEADER = (
    "Creation       Phase       JobType     Replicas    Min   Pending   Running   "
    "Succeeded   Failed    Unknown     RetryCount\n"
)


def test_job_list_prints_vcctl_columns_with_name_three_wider_than_longest():
    out = job_table([JOB], all_namespaces=False)
    assert out == (
        "Name    " + HEADER + "job-1   2026-11-21     Running     MPI         5           4     "
        "1         4         0           0         0           2         \n"
    )


def test_job_list_all_namespaces_puts_namespace_first():
    other = {**JOB, "metadata": {**JOB["metadata"], "namespace": "research-team"}}
    lines = job_table([JOB, other], all_namespaces=True).splitlines()
    assert lines[0].startswith("Namespace       Name    Creation")
    assert lines[1].startswith("default         job-1   2026-11-21")
    assert lines[2].startswith("research-team   job-1   2026-11-21")


def test_job_without_status_or_type_label_shows_batch_and_zeros():
    bare = {"metadata": {"name": "j"}, "spec": {"tasks": [{"replicas": 1}]}}
    row = job_table([bare], all_namespaces=False).splitlines()[1]
    assert row.split() == ["j", "Batch", "1", "0", "0", "0", "0", "0", "0", "0"]


def test_queue_table_has_vcctl_widths_and_completed_column():
    queue = {
        "metadata": {"name": "default"},
        "spec": {"weight": 1},
        "status": {"state": "Open", "inqueue": 1, "pending": 2, "running": 3, "completed": 4},
    }
    assert queue_table([queue]) == (
        "Name                     Weight  State   Inqueue Pending Running Unknown Completed\n"
        "default                  1       Open    1       2       3       0       4       \n"
    )


def test_output_json_and_yaml_round_trip_the_object():
    import json

    import yaml

    assert json.loads(render(JOB, "json")) == JOB
    assert render(JOB, "json").splitlines()[1] == '    "apiVersion": "batch.volcano.sh/v1alpha1",'
    text = render(JOB, "yaml")
    assert text.startswith("apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\n")
    assert yaml.safe_load(text) == JOB


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [
        (5, "5s"),
        (119, "119s"),
        (200, "3m20s"),
        (600, "10m"),
        (3 * 3600 + 60, "3h1m"),
        (30 * 3600, "30h"),
        (3 * 86400 + 3600, "3d1h"),
        (400 * 86400, "400d"),
        (-5, "<invalid>"),
    ],
)
def test_ages_read_like_kubectl(seconds, expected):
    assert human_duration(timedelta(seconds=seconds)) == expected


def test_job_view_describes_spec_status_and_events():
    job = {
        **JOB,
        "spec": {
            "minAvailable": 1,
            "queue": "default",
            "schedulerName": "volcano",
            "tasks": [
                {
                    "name": "nginx",
                    "replicas": 1,
                    "template": {
                        "spec": {
                            "restartPolicy": "Never",
                            "containers": [
                                {
                                    "name": "nginx",
                                    "image": "nginx:1.14",
                                    "resources": {"requests": {"cpu": "1", "memory": "1Gi"}},
                                }
                            ],
                        }
                    },
                }
            ],
        },
    }
    text = describe_job(job)
    assert "Name:       \tjob-1\n" in text
    assert 'Labels:     \t{"volcano.sh/job-type":"MPI"}\n' in text
    assert "Annotations:\t<none>\n" in text
    assert "  Scheduler Name:    \tvolcano\n" in text
    assert "          Image:\tnginx:1.14\n" in text
    assert "          Resources:\n            Limits:\n" in text
    assert "            Requests:\n              Cpu:   \t1\n              Memory:\t1Gi\n" in text
    assert "  Running:      \t4\n" in text
    assert "Succeeded" not in text  # vcctl prints only non-zero counts
    assert "    Phase:\tRunning\n" in text

    now = datetime(2026, 11, 21, 10, 5, tzinfo=UTC)
    event = {
        "type": "Normal",
        "reason": "Scheduled",
        "message": "all tasks bound ",
        "firstTimestamp": "2026-11-21T10:00:00Z",
        "lastTimestamp": "2026-11-21T10:04:00Z",
        "count": 3,
        "source": {"component": "volcano"},
    }
    events = describe_events([event], now=now).splitlines()
    assert events[0] == "Events:"
    assert events[1].split("\t")[0].strip() == "Type"
    assert [cell.strip() for cell in events[3].split("\t")] == [
        "Normal",
        "Scheduled",
        "60s (x3 over 5m)",
        "volcano",
        "all tasks bound",
    ]
    assert describe_events([], now=now) == "Events: \t<none>\n"
