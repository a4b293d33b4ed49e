"""The history in the admin: listed for a superuser, never added or edited there."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.test import Client
from django.urls import reverse

from tests.monitoring.helpers import sample, store

pytestmark = pytest.mark.django_db


def test_a_superuser_sees_samples_but_cannot_add_or_edit_them(superuser_client: Client) -> None:
    row = store(datetime(2026, 1, 1, tzinfo=UTC), sample(queues={"a": 0.5}))

    listing = superuser_client.get(reverse("admin:monitoring_historysample_changelist"))
    add = superuser_client.get(reverse("admin:monitoring_historysample_add"))
    change = superuser_client.post(
        reverse("admin:monitoring_historysample_change", args=[row.pk]), {"resolution": 60}
    )

    assert listing.status_code == 200
    assert b"2026" in listing.content
    assert add.status_code == 403
    assert change.status_code == 403
    row.refresh_from_db()
    assert row.resolution == 0


def test_anonymous_users_are_sent_to_log_in(client: Client) -> None:
    response = client.get(reverse("admin:monitoring_historysample_changelist"))

    assert response.status_code == 302
