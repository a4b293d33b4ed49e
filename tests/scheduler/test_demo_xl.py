"""The XL demo (``make run DEMO=1 SIZE=xl``): the demo cluster grown to the XL node count."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from core.models import Node
from scheduler.demo import DemoStream, load_xl_nodes

pytestmark = pytest.mark.django_db


def test_xl_nodes_fill_the_cluster_to_its_count_with_pod_ranges_and_only_once() -> None:
    Node.objects.create(name="already-here")

    assert load_xl_nodes(total=40) == 39
    assert load_xl_nodes(total=40) == 0  # a restart adds nothing

    xl = Node.objects.filter(name__startswith="xl-")
    assert xl.count() == 39
    assert xl.filter(pod_cidr="").count() == 0  # the IPAM controller has nothing left to do
    assert len(set(Node.objects.exclude(pod_cidr="").values_list("pod_cidr", flat=True))) == 39
    gpu = Node.objects.get(name="xl-00000")
    assert gpu.allocatable["nvidia.com/gpu"] == 8000
    assert gpu.labels["topology.kubernetes.io/zone"] == "zone-a"
    assert gpu.addresses[0]["type"] == "InternalIP"


def test_the_demo_command_names_the_size_and_refuses_an_unknown_one() -> None:
    with pytest.raises(CommandError, match="size"):
        call_command("demo_cluster", "--size", "huge", stdout=StringIO())


def test_the_xl_stream_keeps_more_jobs_going(monkeypatch: pytest.MonkeyPatch) -> None:
    assert DemoStream().cap == 30
    monkeypatch.setenv("VOLCANO_DEMO_SIZE", "xl")
    assert DemoStream().cap == 300
