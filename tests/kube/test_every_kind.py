"""Every served kind behaves the Kubernetes way through the API, from what its app declares.

Each kind's registry entry carries a minimal manifest (``Entry.example``), a value it refuses
(``Entry.invalid``) and, for a kind clients may not create, who does (``Entry.created_by``).
From those alone each kind is listed, created (JSON and YAML), read, patched, printed as a
Table, watched, deleted and refused a bad field, so a kind an app adds is exercised without a
test of its own (tests of what a kind does beyond that stay beside its app's). A read-only
kind's object is made through the store (``kube.store.object_create``, beneath the views
that refuse clients' writes), and the API refuses every write to it.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml
from django.test import Client

from kube import registry
from kube.registry import Entry
from kube.store import object_create
from tests.kube.kind_kit import (
    NAMESPACE,
    TABLE,
    collection_path,
    entry_id,
    first_event_of,
    object_path,
    operator_client,
    post,
    with_value,
)

pytestmark = pytest.mark.django_db

ENTRIES = registry.entries()
WRITABLE = [entry for entry in ENTRIES if not entry.created_by]
READ_ONLY = [entry for entry in ENTRIES if entry.created_by]
# A label the tests put on an object and change: what a merge patch changes, unless the kind
# keeps no labels (``Entry.change``).
LABEL_PATCH = {"metadata": {"labels": {"exercised": "patched"}}}
WHERE = "its app's <app>/api/kinds.py (see kube.registry.Entry)"


def _ids(entries: list[Entry]) -> list[str]:
    return [entry_id(entry) for entry in entries]


@pytest.fixture
def operator(django_user_model: Any) -> Client:
    """Return a client sending an operator's API token."""
    return operator_client(django_user_model)


@pytest.fixture(autouse=True)
def _example_needs(request: pytest.FixtureRequest) -> None:
    """Create, through the store, what the kind's example refers to (``Entry.example_needs``)."""
    callspec = getattr(request.node, "callspec", None)
    entry = callspec.params.get("entry") if callspec is not None else None
    for manifest in entry.example_needs if isinstance(entry, Entry) else ():
        kind = (manifest["apiVersion"], manifest["kind"])
        needed = next(e for e in ENTRIES if (e.resource.manifest.api_version,
                                             e.resource.manifest.kind) == kind)  # fmt: skip
        namespace = NAMESPACE if needed.resource.namespaced else None
        object_create(needed.resource, copy.deepcopy(dict(manifest)), namespace=namespace,
                      dry_run=False)  # fmt: skip


def _example(entry: Entry) -> dict[str, Any]:
    assert entry.example is not None, f"{entry_id(entry)} declares no example in {WHERE}"
    return copy.deepcopy(dict(entry.example))


def _name(entry: Entry) -> str:
    return str(_example(entry)["metadata"]["name"])


def _create(client: Client, entry: Entry) -> dict[str, Any]:
    """Create the kind's example as a client would (a read-only kind's: through the store)."""
    if entry.created_by:
        namespace = NAMESPACE if entry.resource.namespaced else None
        return object_create(entry.resource, _example(entry), namespace=namespace, dry_run=False)
    response = post(client, collection_path(entry), _example(entry))
    assert response.status_code == 201, response.content
    created: dict[str, Any] = response.json()
    return created


def _list_version(client: Client, entry: Entry) -> str:
    response = client.get(collection_path(entry))
    assert response.status_code == 200, response.content
    return str(response.json()["metadata"]["resourceVersion"])


@pytest.mark.parametrize("entry", ENTRIES, ids=_ids(ENTRIES))
def test_every_kind_declares_how_it_is_exercised(entry: Entry) -> None:
    name = entry_id(entry)
    assert entry.example is not None, (
        f"{name} declares no example: add example=<a minimal valid manifest> to its Entry in "
        f"{WHERE}"
    )
    assert entry.example["kind"] == entry.resource.kind, name
    assert entry.example["apiVersion"] == entry.resource.api_version, name
    assert entry.example["metadata"]["name"], name
    assert entry.invalid is not None or entry.created_by, (
        f"{name} declares no invalid value: add invalid=Invalid(<path>, <value>) to its Entry in "
        f"{WHERE}"
    )
    assert entry.resource.writable or entry.created_by, (
        f"{name} is read-only: say who creates its objects (created_by=...) in {WHERE}"
    )


@pytest.mark.parametrize("entry", ENTRIES, ids=_ids(ENTRIES))
def test_list(operator: Client, entry: Entry) -> None:
    _create(operator, entry)

    response = operator.get(collection_path(entry))

    assert response.status_code == 200, response.content
    listed = response.json()
    assert listed["kind"] == f"{entry.resource.kind}List"
    assert listed["apiVersion"] == entry.group_version
    assert int(listed["metadata"]["resourceVersion"]) > 0
    assert _name(entry) in [item["metadata"]["name"] for item in listed["items"]]


@pytest.mark.parametrize("entry", ENTRIES, ids=_ids(ENTRIES))
def test_create(operator: Client, entry: Entry) -> None:
    if entry.created_by:
        pytest.skip(f"clients do not create {entry_id(entry)}: {entry.created_by}")
    response = post(operator, collection_path(entry), _example(entry))

    assert response.status_code == 201, response.content
    created = response.json()
    assert created["kind"] == entry.resource.kind
    assert created["apiVersion"] == entry.group_version
    assert created["metadata"]["name"] == _name(entry)
    if entry.resource.namespaced:
        assert created["metadata"]["namespace"] == NAMESPACE
    again = post(operator, collection_path(entry), _example(entry))
    assert again.status_code == 409, again.content
    assert again.json()["reason"] == "AlreadyExists"


@pytest.mark.parametrize("entry", ENTRIES, ids=_ids(ENTRIES))
def test_create_from_yaml(operator: Client, entry: Entry) -> None:
    if entry.created_by:
        pytest.skip(f"clients do not create {entry_id(entry)}: {entry.created_by}")
    body = yaml.safe_dump(_example(entry))

    response = operator.post(collection_path(entry), body, content_type="application/yaml")

    assert response.status_code == 201, response.content
    assert operator.get(object_path(entry, _name(entry))).json() == response.json()


@pytest.mark.parametrize("entry", READ_ONLY, ids=_ids(READ_ONLY))
def test_a_read_only_kind_refuses_every_write(operator: Client, entry: Entry) -> None:
    created = post(operator, collection_path(entry), _example(entry))
    assert created.status_code == 405, created.content
    _create(operator, entry)
    item = object_path(entry, _name(entry))

    patched = operator.patch(item, "{}", content_type="application/merge-patch+json")
    deleted = operator.delete(item)

    assert (patched.status_code, deleted.status_code) == (405, 405)
    assert operator.get(item).status_code == 200


@pytest.mark.parametrize("entry", ENTRIES, ids=_ids(ENTRIES))
def test_get(operator: Client, entry: Entry) -> None:
    created = _create(operator, entry)

    response = operator.get(object_path(entry, _name(entry)))

    assert response.status_code == 200, response.content
    assert response.json() == created


@pytest.mark.parametrize("entry", WRITABLE, ids=_ids(WRITABLE))
def test_merge_patch(operator: Client, entry: Entry) -> None:
    created = _create(operator, entry)
    change = dict(entry.change or LABEL_PATCH)
    item = object_path(entry, _name(entry))

    response = operator.patch(item, change, content_type="application/merge-patch+json")

    assert response.status_code == 200, response.content
    patched = response.json()
    assert _contains(patched, change), (change, patched)
    assert operator.get(item).json() == patched
    before = created["metadata"].get("resourceVersion", "")
    after = patched["metadata"].get("resourceVersion", "")
    # A kind without versions (an Event) says "" before and after; any other moves on.
    assert (after != before) if before else after == "", (before, after)


def _contains(document: Any, part: Any) -> bool:
    if isinstance(part, dict):
        return isinstance(document, dict) and all(
            _contains(document.get(key), value) for key, value in part.items()
        )
    return bool(document == part)


@pytest.mark.parametrize("entry", ENTRIES, ids=_ids(ENTRIES))
def test_table(operator: Client, entry: Entry) -> None:
    _create(operator, entry)

    response = operator.get(collection_path(entry), HTTP_ACCEPT=TABLE)

    assert response.status_code == 200, response.content
    table = response.json()
    assert (table["kind"], table["apiVersion"]) == ("Table", "meta.k8s.io/v1")
    names = ["Name"] * entry.name_first + [column.name for column in entry.columns]
    assert [column["name"] for column in table["columnDefinitions"]] == names
    assert [column["priority"] for column in table["columnDefinitions"]] == [0] * (
        entry.name_first
    ) + [column.priority for column in entry.columns]
    rows = [row for row in table["rows"] if row["object"]["metadata"]["name"] == _name(entry)]
    assert len(rows) == 1, table["rows"]
    assert len(rows[0]["cells"]) == len(names)
    name_cell = 0 if entry.name_first else names.index("Name")
    assert rows[0]["cells"][name_cell] == _name(entry)


@pytest.mark.parametrize("entry", ENTRIES, ids=_ids(ENTRIES))
def test_watch_from_a_list_sees_the_object_added(operator: Client, entry: Entry) -> None:
    version = _list_version(operator, entry)
    _create(operator, entry)

    response = operator.get(
        f"{collection_path(entry)}?watch=1&resourceVersion={version}&timeoutSeconds=5"
    )

    assert response.status_code == 200
    seen = first_event_of(response, _name(entry))
    assert seen["type"] == "ADDED"
    assert seen["object"]["kind"] == entry.resource.kind


@pytest.mark.parametrize("entry", WRITABLE, ids=_ids(WRITABLE))
def test_watch_sees_a_patch_modify_the_object(operator: Client, entry: Entry) -> None:
    _create(operator, entry)
    version = _list_version(operator, entry)
    item = object_path(entry, _name(entry))
    change = dict(entry.change or LABEL_PATCH)
    operator.patch(item, change, content_type="application/merge-patch+json")

    response = operator.get(
        f"{collection_path(entry)}?watch=1&resourceVersion={version}&timeoutSeconds=5"
    )

    seen = first_event_of(response, _name(entry))
    assert seen["type"] == "MODIFIED"
    assert _contains(seen["object"], change), seen


@pytest.mark.parametrize("entry", WRITABLE, ids=_ids(WRITABLE))
def test_delete(operator: Client, entry: Entry) -> None:
    _create(operator, entry)
    item = object_path(entry, _name(entry))

    response = operator.delete(item)

    assert response.status_code in (200, 202), response.content
    after = operator.get(item)
    if after.status_code == 200:  # deleted gracefully: marked, gone later
        assert after.json()["metadata"]["deletionTimestamp"], after.json()
    else:
        assert after.status_code == 404, after.content
        assert after.json()["reason"] == "NotFound"


@pytest.mark.parametrize("entry", ENTRIES, ids=_ids(ENTRIES))
def test_an_invalid_value_is_refused_naming_its_field(operator: Client, entry: Entry) -> None:
    if entry.created_by:
        pytest.skip(f"clients do not create {entry_id(entry)}: {entry.created_by}")
    assert entry.invalid is not None, f"{entry_id(entry)} declares no invalid value in {WHERE}"
    invalid = entry.invalid
    manifest = with_value(_example(entry), invalid.path, invalid.value)

    response = post(operator, collection_path(entry), manifest)

    assert response.status_code == 422, response.content
    status = response.json()
    assert status["reason"] == "Invalid"
    fields = [cause["field"] for cause in status["details"]["causes"]]
    assert invalid.cause_field in fields, status
    assert operator.get(object_path(entry, _name(entry))).status_code == 404
