"""Which ``Accept`` headers get a Table, and the ages kubectl prints in it."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import pytest

from kube.tables import human_age, wants_table


@dataclass(frozen=True)
class Case:
    name: str
    accept: str
    table: bool


CASES = [
    Case(
        "kubectl get",
        "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
        "g=meta.k8s.io,application/json",
        True,
    ),
    Case("older clients ask v1beta1", "application/json;as=Table;v=v1beta1;g=meta.k8s.io", True),
    Case("spaces around parameters", "application/json; as=Table; g=meta.k8s.io; v=v1", True),
    Case("plain JSON", "application/json", False),
    Case("no header", "", False),
    Case("protobuf Table only", "application/vnd.kubernetes.protobuf;as=Table;v=v1", False),
    Case("another group", "application/json;as=Table;v=v1;g=example.com", False),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_a_table_is_answered_only_when_asked(case: Case) -> None:
    assert wants_table(case.accept) is case.table


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [(0, "0s"), (45, "45s"), (119, "119s"), (192, "3m12s"), (600, "10m"), (5 * 3600, "5h"),
     (5 * 3600 + 120, "5h2m"), (20 * 3600, "20h"), (3 * 86400 + 4 * 3600, "3d4h"),
     (30 * 86400, "30d")],
)  # fmt: skip
def test_age_is_printed_as_kubectl_does(seconds: int, shown: str) -> None:
    now = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    assert human_age(now - dt.timedelta(seconds=seconds), now) == shown
