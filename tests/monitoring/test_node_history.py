"""Every node's load over time: recorded at most every period, merged honestly, pruned."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from monitoring.node_history import (
    NodeHistorySample,
    choose_node_resolution,
    compact_node_history,
    decode_nodes,
    encode_nodes,
    merge_node_samples,
    node_series,
    record_node_sample,
)
from monitoring.recorder import Tier, compact_history
from scheduler.worker import run_once
from tests.scheduler.factories import make_gang, make_node

T0 = datetime(2026, 1, 1, tzinfo=UTC)  # on a ten-minute boundary
TIERS = [Tier(0, 3600), Tier(60, 86400), Tier(600, 604800)]


def test_a_sample_packs_node_keys_and_their_amounts_and_reads_back() -> None:
    block = np.array([[1000, 2, 0, 1000], [500, 4, 8000, 2000]])
    keys, back = decode_nodes(encode_nodes([3, 7], block))
    assert keys.tolist() == [3, 7]
    assert back.tolist() == block.tolist()


def test_merging_takes_each_nodes_weighted_mean_and_counts_an_absent_node_as_zero() -> None:
    a = encode_nodes([1, 2], np.array([[1000, 0, 0, 1000], [4000, 0, 0, 2000]]))
    b = encode_nodes([1], np.array([[3000, 0, 0, 3000]]))
    keys, block = decode_nodes(merge_node_samples([(1, a), (3, b)]))
    assert keys.tolist() == [1, 2]
    # node 1: (1000 * 1 + 3000 * 3) / 4; node 2 held nothing in b's three sessions
    assert block[:, 0].tolist() == [2500, 1000]
    assert block[:, 3].tolist() == [2500, 500]


@pytest.mark.django_db
def test_a_sample_is_recorded_at_most_once_per_period(settings: Any) -> None:
    settings.VOLCANO_HISTORY_NODE_PERIOD = 10
    loads = {5: (2000, 1024, 0, 2), 6: (0, 0, 0, 0)}
    assert record_node_sample(loads, now=T0) is not None
    assert record_node_sample(loads, now=T0 + timedelta(seconds=4)) is None
    assert record_node_sample(loads, now=T0 + timedelta(seconds=10)) is not None
    keys, block = decode_nodes(NodeHistorySample.objects.first().data)  # type: ignore[union-attr]
    assert keys.tolist() == [5]  # a node holding nothing is left out (read as 0)
    assert block.tolist() == [[2000, 1024, 0, 2000]]  # pods counted x 1000, as resources are


@pytest.mark.django_db
def test_compaction_rolls_whole_minutes_up_and_prunes_past_each_tiers_keep() -> None:
    for second in range(0, 120, 10):  # two whole minutes, node 1 at 1 then 3 cores
        cpu = 1000 if second < 60 else 3000
        NodeHistorySample.objects.create(
            at=T0 + timedelta(seconds=second),
            data=encode_nodes([1], np.array([[cpu, 0, 0, 1000]])),
        )
    old = T0 - timedelta(hours=2)  # past the finest tier's hour
    NodeHistorySample.objects.create(at=old, data=encode_nodes([], np.zeros((0, 4))))

    result = compact_node_history(TIERS, now=T0 + timedelta(seconds=125))

    minutes = NodeHistorySample.objects.filter(resolution=60).order_by("at")
    assert [(m.at, m.samples) for m in minutes] == [
        (old.replace(second=0), 1), (T0, 6), (T0 + timedelta(minutes=1), 6),
    ]  # fmt: skip
    assert [decode_nodes(m.data)[1][0][0] for m in minutes[1:]] == [1000, 3000]
    assert not NodeHistorySample.objects.filter(resolution=0, at=old).exists()
    # three minutes, then the old minute's whole ten minutes into the coarsest tier
    assert result == {"rolled": 4, "pruned": 1}
    assert NodeHistorySample.objects.filter(resolution=600).count() == 1
    # Compacting again rolls nothing twice.
    assert compact_node_history(TIERS, now=T0 + timedelta(seconds=125))["rolled"] == 0


@pytest.mark.django_db
def test_the_historys_compaction_compacts_the_nodes_too() -> None:
    NodeHistorySample.objects.create(
        at=T0 - timedelta(days=8), resolution=600, data=encode_nodes([], np.zeros((0, 4)))
    )
    compact_history(now=T0)
    assert not NodeHistorySample.objects.exists()


@pytest.mark.django_db
def test_a_nodes_series_reads_its_amounts_and_zero_where_it_held_nothing() -> None:
    NodeHistorySample.objects.create(at=T0, data=encode_nodes([1, 2], np.array(
        [[1000, 0, 0, 1000], [2000, 0, 0, 1000]])))  # fmt: skip
    NodeHistorySample.objects.create(
        at=T0 + timedelta(seconds=10), data=encode_nodes([1], np.array([[500, 0, 0, 1000]]))
    )
    series = node_series(2, T0, T0 + timedelta(minutes=1), resolution=0)
    assert series.allocated["cpu"] == [2000, 0]
    assert len(series.times) == 2


def test_an_hour_reads_the_finest_tier_and_a_week_the_coarsest(settings: Any) -> None:
    settings.VOLCANO_HISTORY_NODE_PERIOD = 10
    now = T0
    assert choose_node_resolution(now - timedelta(hours=1), now, now=now) == 0
    assert choose_node_resolution(now - timedelta(hours=24), now, now=now) == 600
    assert choose_node_resolution(now - timedelta(days=7), now, now=now) == 600
    assert choose_node_resolution(now - timedelta(hours=6), now, now=now) == 60


@pytest.mark.django_db
def test_a_session_records_every_nodes_load(settings: Any) -> None:
    settings.VOLCANO_HISTORY_NODE_PERIOD = 0
    node = make_node("n1", cpu=8)
    make_gang("g", replicas=2, cpu=2)
    run_once(reconcile=False)
    keys, block = decode_nodes(NodeHistorySample.objects.get().data)
    assert keys.tolist() == [node.pk]
    assert block[0][0] == 4000
    assert block[0][3] == 2000
