"""``manage.py apply`` takes HyperNodes after the nodes they name, and refuses a bad one by
Volcano's rules, naming the field and writing nothing."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
import yaml
from django.core.management import CommandError, call_command

from tests.topology.kit import exact, hyper_node, node, regex
from topology.models import HyperNode

pytestmark = pytest.mark.django_db


def _apply(path: Path) -> list[str]:
    out = StringIO()
    call_command("apply", "-f", str(path), stdout=out)
    return out.getvalue().splitlines()


def test_a_bundle_creates_nodes_before_the_hyper_nodes_that_name_them(tmp_path: Path) -> None:
    bundle = tmp_path / "topology.yaml"
    documents = [
        hyper_node("spine", 2, exact("leaf", "HyperNode")),
        hyper_node("leaf", 1, exact("n-0"), tierName="rack"),
        node("n-0"),
    ]
    bundle.write_text(yaml.safe_dump_all(documents))

    assert _apply(bundle) == [
        "node/n-0 created",
        "hypernode.topology.volcano.sh/spine created",
        "hypernode.topology.volcano.sh/leaf created",
    ]
    assert _apply(bundle)[1:] == [
        "hypernode.topology.volcano.sh/spine unchanged",
        "hypernode.topology.volcano.sh/leaf unchanged",
    ]
    assert HyperNode.objects.get(name="leaf").tier_name == "rack"


def test_apply_refuses_a_bad_hyper_node_naming_the_field(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(hyper_node("bad", 1, regex("rack-[0-9"))))

    with pytest.raises(CommandError, match=r"spec\.members\[0\]\.selector\.regexMatch\.pattern"):
        call_command("apply", "-f", str(path), stdout=StringIO())
    assert not HyperNode.objects.exists()
