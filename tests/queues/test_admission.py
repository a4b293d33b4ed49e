"""Queue admission: create/update/delete rules, each naming the field, nothing written."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from core.models import Node, Pod
from kube.admission_causes import AdmissionError, CauseType
from kube.status import KubeError
from queues.admission import admit_queue
from queues.models import PodGroup, Queue
from queues.services import queue_create, queue_delete

pytestmark = pytest.mark.django_db

INV, REQ, NS, FORB, NF = (
    CauseType.INVALID,
    CauseType.REQUIRED,
    CauseType.NOT_SUPPORTED,
    CauseType.FORBIDDEN,
    CauseType.NOT_FOUND,
)
CPU = 1000  # milli-units per CPU


def manifest(
    name: str = "team", spec: dict[str, Any] | None = None, **extra: Any
) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "Queue",
        "metadata": {"name": name, **extra.pop("metadata", {})},
        "spec": spec or {},
        **extra,
    }


def hierarchy(path: str, weights: str) -> dict[str, Any]:
    return {"annotations": {"volcano.sh/hierarchy": path, "volcano.sh/hierarchy-weights": weights}}


@dataclass
class Case:
    name: str
    doc: dict[str, Any]
    field: str | None = None
    reason: CauseType | None = None
    setup: Callable[[], object] = lambda: None


def parent_with_pods() -> None:
    Queue.objects.create(name="busy")
    group = PodGroup.objects.create(name="pg", queue="busy")
    node = Node.objects.create(name="n1")
    Pod.objects.create(name="p", pod_group=group, node=node, phase="Running")


CASES = [
    Case("weight in range", manifest(spec={"weight": 65535})),
    Case("weight too big", manifest(spec={"weight": 65536}), "spec.weight", INV),
    Case("state Closed on create", manifest(status={"state": "Closed"})),
    Case("state Closing on create", manifest(status={"state": "Closing"}), "status.state", NS),
    Case(
        "deserved covers guarantee",
        manifest(spec={"deserved": {"cpu": "2"}, "guarantee": {"resource": {"cpu": "1"}}}),
    ),
    Case(
        "deserved below guarantee",
        manifest(spec={"deserved": {"cpu": "1"}, "guarantee": {"resource": {"cpu": "2"}}}),
        "spec.deserved.cpu",
        INV,
    ),
    Case(
        "guarantee without deserved",
        manifest(spec={"guarantee": {"resource": {"cpu": "2"}}}),
        "spec.deserved.cpu",
        REQ,
    ),
    Case(
        "deserved within capability",
        manifest(spec={"deserved": {"cpu": "2"}, "capability": {"cpu": "2"}}),
    ),
    Case(
        "deserved above capability",
        manifest(spec={"deserved": {"cpu": "3"}, "capability": {"cpu": "2"}}),
        "spec.deserved.cpu",
        INV,
    ),
    Case("hierarchy of equal depth", manifest(metadata=hierarchy("root/sci", "1/2"))),
    Case(
        "hierarchy depths differ",
        manifest(metadata=hierarchy("root/sci", "1/2/3")),
        "metadata.annotations[volcano.sh/hierarchy-weights]",
        INV,
    ),
    Case(
        "hierarchy weight zero",
        manifest(metadata=hierarchy("root/sci", "1/0")),
        "metadata.annotations[volcano.sh/hierarchy-weights]",
        INV,
    ),
    Case(
        "hierarchy path below another queue's",
        manifest(metadata=hierarchy("root/sci/dev", "1/1/1")),
        "metadata.annotations[volcano.sh/hierarchy]",
        FORB,
        lambda: Queue.objects.create(
            name="sci", annotations=hierarchy("root/sci", "1/1")["annotations"]
        ),
    ),
    Case(
        "existing parent",
        manifest(spec={"parent": "org"}),
        setup=lambda: Queue.objects.create(name="org"),
    ),
    Case("missing parent", manifest(spec={"parent": "org"}), "spec.parent", NF),
    Case("parent is root", manifest(spec={"parent": "root"})),
    Case(
        "too deep",
        manifest(spec={"parent": "l5"}),
        "spec.parent",
        FORB,
        lambda: (
            [
                Queue.objects.create(name=f"l{i}", parent=f"l{i - 1}" if i > 1 else "")
                for i in range(1, 6)
            ]
            and None
        ),
    ),
    Case(
        "parent with allocated pods",
        manifest(spec={"parent": "busy"}),
        "spec.parent",
        FORB,
        parent_with_pods,
    ),
    Case(
        "capability within the parent's",
        manifest(spec={"parent": "org", "capability": {"cpu": "4"}}),
        setup=lambda: Queue.objects.create(name="org", capability={"cpu": 4 * CPU}),
    ),
    Case(
        "capability above the parent's",
        manifest(spec={"parent": "org", "capability": {"cpu": "8"}}),
        "spec.capability.cpu",
        INV,
        lambda: Queue.objects.create(name="org", capability={"cpu": 4 * CPU}),
    ),
    Case(
        "siblings deserve more than the parent",
        manifest(spec={"parent": "org", "deserved": {"cpu": "3"}}),
        "spec.deserved.cpu",
        INV,
        lambda: (
            Queue.objects.create(name="org", deserved={"cpu": 4 * CPU}),
            Queue.objects.create(name="sib", parent="org", deserved={"cpu": 2 * CPU}),
        ),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_queue_admission_rule(case: Case) -> None:
    case.setup()
    before = set(Queue.objects.values_list("name", flat=True))
    if case.field is None:
        assert queue_create(manifest=case.doc).name == "team"
        return
    with pytest.raises(KubeError) as caught:
        queue_create(manifest=case.doc)
    assert caught.value.code == 422
    assert (case.field, case.reason) in {(c.field, c.reason) for c in caught.value.causes}
    assert set(Queue.objects.values_list("name", flat=True)) == before


def test_weight_zero_defaults_to_one_and_hierarchy_gets_root() -> None:
    queue: Queue = admit_queue(
        Queue(name="team", weight=0, annotations=hierarchy("sci", "2")["annotations"])
    ).instance
    assert queue.weight == 1
    assert queue.annotations == hierarchy("root/sci", "1/2")["annotations"]
    assert queue.reclaimable


def admit_update(queue: Queue) -> None:
    """Admit ``queue``'s edited row against its stored one and save it (AdmissionError)."""
    admit_queue(queue, old=Queue.objects.get(pk=queue.pk))
    queue.save()


def test_root_queue_resources_cannot_be_modified() -> None:
    root = Queue.objects.get(name="root")  # there from the start (migration 0005)
    root.capability = {"cpu": CPU}
    with pytest.raises(AdmissionError) as caught:
        admit_update(root)
    assert [(c.field, c.reason) for c in caught.value.causes] == [("spec.capability", FORB)]
    root.refresh_from_db()
    assert root.capability == {}


def test_update_may_change_weight_but_not_set_closing() -> None:
    queue = Queue.objects.create(name="team")
    queue.weight = 5
    admit_update(queue)
    queue.state = "Closing"
    with pytest.raises(AdmissionError) as caught:
        admit_update(queue)
    assert caught.value.causes[0].field == "status.state"
    queue.refresh_from_db()
    assert (queue.weight, queue.state) == (5, "Open")


def test_parent_queue_capability_cannot_drop_below_a_childs() -> None:
    org = Queue.objects.create(name="org", capability={"cpu": 8 * CPU})
    Queue.objects.create(name="kid", parent="org", capability={"cpu": 6 * CPU})
    org.capability = {"cpu": 4 * CPU}
    with pytest.raises(AdmissionError) as caught:
        admit_update(org)
    assert caught.value.causes[0].field == "spec.capability.cpu"


@pytest.mark.parametrize("name", ["default", "root"])
def test_default_and_root_queues_cannot_be_deleted(name: str) -> None:
    queue = Queue.objects.get_or_create(name=name)[0]
    with pytest.raises(AdmissionError) as caught:
        queue_delete(queue=queue)
    assert caught.value.causes[0].reason == FORB
    assert Queue.objects.filter(name=name).exists()


def test_queue_with_children_cannot_be_deleted_and_a_leaf_can() -> None:
    org = Queue.objects.create(name="org")
    kid = Queue.objects.create(name="kid", parent="org")
    with pytest.raises(AdmissionError, match="child queues: kid"):
        queue_delete(queue=org)
    queue_delete(queue=kid)
    assert list(Queue.objects.filter(name__in=["org", "kid"]).values_list("name", flat=True)) == [
        "org"
    ]
