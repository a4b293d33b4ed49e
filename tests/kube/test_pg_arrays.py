"""Array literals reach PostgreSQL as the very values sent, whatever characters they hold."""

from __future__ import annotations

import pytest
from django.db import connection

from kube.pg_arrays import int_array, text_array

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="PostgreSQL arrays: needs DATABASE_URL pointing at PostgreSQL (.ci/run sets it)",
    ),
]

AWKWARD = [
    "plain",
    "",
    'a "quoted" word',
    "back\\slash and \\\\ two",
    "{braces}, commas, NULL",
    "NULL",
    "tab\tnewline\nend",
    "Successfully assigned default/job-0 to node-é",
    None,
]


def test_text_and_bigint_arrays_round_trip() -> None:
    ids = [1, 2**62, -5, 0]
    with connection.cursor() as cursor:
        cursor.execute("SELECT %s::text[], %s::bigint[]", [text_array(AWKWARD), int_array(ids)])
        texts, numbers = cursor.fetchone()

    assert texts == AWKWARD
    assert numbers == ids


def test_empty_arrays_are_empty() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT %s::text[], %s::bigint[]", [text_array([]), int_array([])])
        assert cursor.fetchone() == ([], [])
