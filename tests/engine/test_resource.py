"""Resource arithmetic and comparisons, and the array rows of the resource index."""

from __future__ import annotations

import numpy as np
import pytest

from apis.errors import QuantityError
from scheduler.engine.api.resource import Resource, ResourceIndex
from tests.engine.builders import res


def test_parse_reads_kubernetes_quantities_in_milli_units():
    r = res({"nvidia.com/gpu": "2"}, cpu="500m", memory="1Gi")
    assert r.get("cpu") == 500
    assert r.get("memory") == 2**30 * 1000
    assert r.get("nvidia.com/gpu") == 2000
    assert r.get("absent") == 0


def test_parse_names_the_field_of_a_bad_quantity():
    with pytest.raises(QuantityError, match=r"spec.cpu"):
        Resource.parse({"cpu": "lots"}, field="spec")


def test_add_and_subtract_give_new_values_and_keep_the_operands():
    a, b = res(cpu="1"), res(cpu="2", memory="1Gi")
    assert a + b == res(cpu="3", memory="1Gi")
    assert (b - a).get("cpu") == 1000
    assert a == res(cpu="1")


def test_less_equal_counts_a_missing_dimension_as_zero_or_unlimited():
    gpu = res({"nvidia.com/gpu": "1"}, cpu="1")
    assert not gpu.less_equal(res(cpu="4"))
    assert gpu.less_equal(res(cpu="4"), missing_is_infinite=True)
    assert res(cpu="1").less_equal(res(cpu="1"))


def test_queue_quota_comparison_skips_pods_and_unrequested_dimensions():
    request = res(cpu="1", pods=1)
    quota = res(cpu="2", memory="0", pods=0)
    assert request.less_equal_with_dimension(quota)
    assert not res(cpu="3").less_equal_with_dimension(quota)


def test_best_effort_means_nothing_but_the_pod_slot():
    assert res(pods=1).is_best_effort()
    assert not res(cpu="100m", pods=1).is_best_effort()


def test_index_puts_cpu_memory_pods_first_and_round_trips_rows():
    index = ResourceIndex(["nvidia.com/gpu", "memory", "example.com/foo"])
    assert index.names[:3] == ("cpu", "memory", "pods")
    r = res({"nvidia.com/gpu": "1"}, cpu="2", memory="1Gi", pods=1)
    row = index.vector(r)
    assert row.dtype == np.int64
    assert index.vector(r) is row  # memoised
    assert index.resource(row) == r


def test_index_refuses_a_resource_it_does_not_know():
    with pytest.raises(KeyError):
        ResourceIndex([]).vector(res({"example.com/bar": "1"}))
