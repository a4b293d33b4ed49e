"""Scheduler rows: exactly one active configuration, Volcano's default after migrate."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from core.models import Node
from scheduler.defaults import DEFAULT_SCHEDULER_CONF
from scheduler.models import SchedulerConfiguration
from scheduler.services import scheduler_conf_activate, scheduler_conf_create

pytestmark = pytest.mark.django_db

OTHER_CONF = """\
actions: "enqueue, allocate"
tiers:
- plugins:
  - name: priority
  - name: gang
"""


def test_active_configuration_after_migrate_is_volcanos_default(examples_dir: object) -> None:
    active = SchedulerConfiguration.objects.get(is_active=True)
    assert active.version == 1
    assert active.text == DEFAULT_SCHEDULER_CONF
    shipped = (examples_dir / "scheduler-conf" / "default.conf").read_text()  # type: ignore[operator]
    assert active.text == shipped


def test_database_allows_only_one_active_configuration() -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        SchedulerConfiguration.objects.create(version=2, text=OTHER_CONF, is_active=True)
    assert SchedulerConfiguration.objects.count() == 1


def test_activating_a_new_version_deactivates_the_old_one() -> None:
    new = scheduler_conf_create(text=OTHER_CONF, comment="fewer actions")
    assert not new.is_active
    scheduler_conf_activate(configuration=new)
    assert list(SchedulerConfiguration.objects.filter(is_active=True)) == [new]
    assert new.version == 2


def test_a_conf_the_engine_refuses_is_not_stored() -> None:
    with pytest.raises(ValidationError) as caught:
        scheduler_conf_create(text='actions: "allocate"\ntiers:\n- plugins:\n  - name: nosuch\n')
    assert "nosuch" in str(caught.value)
    assert SchedulerConfiguration.objects.count() == 1


def test_the_active_configuration_cannot_be_deleted() -> None:
    with pytest.raises(ValidationError):
        SchedulerConfiguration.objects.get(is_active=True).delete()
    assert SchedulerConfiguration.objects.filter(is_active=True).exists()


def test_node_names_are_unique() -> None:
    Node.objects.create(name="node-1")
    with pytest.raises(IntegrityError), transaction.atomic():
        Node.objects.create(name="node-1")
    assert Node.objects.count() == 1
