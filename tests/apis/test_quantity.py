"""Kubernetes quantities: exact milli-units in, canonical text out, bad input named."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.core.exceptions import ValidationError

from apis.errors import QuantityError
from apis.quantity import format_quantity, parse_quantity
from apis.wire import format_resources
from kube.forms import ResourceListField


@dataclass(frozen=True)
class Case:
    name: str
    value: object
    milli: int


GOOD = [
    Case("milli cpu", "500m", 500),
    Case("fraction", "1.5", 1500),
    Case("binary giga", "2Gi", 2 * 2**30 * 1000),
    Case("decimal giga", "1G", 10**9 * 1000),
    Case("exponent", "1e3", 1_000_000),
    Case("plain bytes", "128974848", 128974848 * 1000),
    Case("tenth", "0.1", 100),
    Case("yaml integer", 2, 2000),
    Case("yaml float", 0.5, 500),
    Case("mebi", "4096Mi", 4 * 2**30 * 1000),
    Case("kilo", "1k", 1_000_000),
    Case("gpu count", "8", 8000),
    Case("zero", "0", 0),
    Case("sub-milli rounds up", "1u", 1),
]

BAD = ["lots", "-1", "1.5.2", "2Xi", "", "1 Gi", "Gi", "--1", "1e", True, None, [1]]


@pytest.mark.parametrize("case", GOOD, ids=lambda c: c.name)
def test_quantity_parses_to_exact_milli_units(case: Case) -> None:
    assert parse_quantity(case.value, field="spec.capability.cpu") == case.milli


@pytest.mark.parametrize("value", BAD, ids=repr)
def test_bad_quantity_is_refused_naming_field_and_value(value: object) -> None:
    with pytest.raises(QuantityError) as caught:
        parse_quantity(value, field="spec.capability.nvidia.com/gpu")
    assert caught.value.field == "spec.capability.nvidia.com/gpu"
    assert repr(value) in str(caught.value)


def test_memory_prints_binary_and_cpu_prints_cores_or_millis() -> None:
    assert format_resources({"memory": 4 * 2**30 * 1000, "cpu": 2500, "pods": 110_000}) == {
        "cpu": "2500m",
        "memory": "4Gi",
        "pods": "110",
    }
    assert format_quantity(1_000_000) == "1000"


@pytest.mark.parametrize("text", ["500m", "2Gi", "1G", "1e3", "128974848", "0.1", "3"])
def test_formatted_quantity_parses_back_to_the_same_amount(text: str) -> None:
    milli = parse_quantity(text, field="q")
    assert parse_quantity(format_quantity(milli, binary=True), field="q") == milli
    assert parse_quantity(format_quantity(milli), field="q") == milli


def test_resource_list_field_reads_and_writes_quantities() -> None:
    field = ResourceListField()
    assert field.clean("cpu=4, memory=8Gi, nvidia.com/gpu=1") == {
        "cpu": 4000,
        "memory": 8 * 2**30 * 1000,
        "nvidia.com/gpu": 1000,
    }
    assert field.prepare_value({"cpu": 500, "memory": 2**30 * 1000}) == "cpu=500m, memory=1Gi"


def test_resource_list_field_names_the_bad_resource() -> None:
    field = ResourceListField()
    with pytest.raises(ValidationError, match="memory") as caught:
        field.clean("cpu=1, memory=lots")
    assert "lots" in str(caught.value)
