"""Bounded parsing: hostile YAML and JSON are refused before they can expand, recurse or
overflow, with the field named where a value is at fault; ordinary manifests pass."""

from __future__ import annotations

import json

import pytest
import yaml

from apis.safe_yaml import MAX_DEPTH, YamlLimitError, load_all, load_json, load_one
from tests.apis.yaml_kit import LAUGHS


def test_an_alias_bomb_is_refused_before_it_expands() -> None:
    assert len(LAUGHS) < 1000  # a few hundred bytes that would expand to 9**9 nodes
    with pytest.raises(YamlLimitError, match="aliases multiply") as refused:
        load_all(LAUGHS)
    assert refused.value.code == 400


def test_a_few_aliases_as_manifests_use_them_still_load() -> None:
    text = "base: &base {cpu: '1'}\ntasks: [{requests: *base}, {requests: *base}]"
    assert load_one(text)["tasks"][1]["requests"] == {"cpu": "1"}


def test_an_alias_that_refers_to_itself_is_refused() -> None:
    with pytest.raises(YamlLimitError, match="refers to itself"):
        load_all("a: &a [*a]")


def test_nesting_deeper_than_the_limit_is_refused_not_a_recursion_error() -> None:
    deep_yaml = "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5)
    with pytest.raises(YamlLimitError, match="nests deeper"):
        load_all(deep_yaml)
    deep_json = "[" * 100_000 + "]" * 100_000
    with pytest.raises(YamlLimitError, match="nests deeper"):
        load_json(deep_json)


def test_an_integer_of_thousands_of_digits_names_its_field() -> None:
    text = "spec:\n  tasks:\n  - replicas: " + "9" * 5000
    with pytest.raises(YamlLimitError) as refused:
        load_all(text)
    assert (refused.value.code, refused.value.field) == (422, "spec.tasks[0].replicas")
    with pytest.raises(YamlLimitError) as in_json:
        load_json('{"spec": {"minAvailable": ' + "9" * 5000 + "}}")
    assert (in_json.value.code, in_json.value.field) == (422, "spec.minAvailable")


def test_integers_past_64_bits_and_infinite_floats_name_their_field() -> None:
    with pytest.raises(YamlLimitError) as big:
        load_all("spec: {minAvailable: 99999999999999999999}")
    assert big.value.field == "spec.minAvailable"
    with pytest.raises(YamlLimitError) as inf_yaml:
        load_all("spec: {weight: .inf}")
    assert (inf_yaml.value.code, inf_yaml.value.field) == (422, "spec.weight")
    with pytest.raises(YamlLimitError) as inf_json:
        load_json('{"spec": {"weight": 1e400}}')
    assert (inf_json.value.code, inf_json.value.field) == (422, "spec.weight")
    with pytest.raises(YamlLimitError):
        load_json('{"spec": {"weight": NaN}}')


def test_ordinary_documents_load_as_before() -> None:
    text = "a: 1\n---\n---\nb: [x, {c: 2.5}]\n"
    assert load_all(text) == [{"a": 1}, {"b": ["x", {"c": 2.5}]}]
    assert load_json(json.dumps({"k": [1, 2, {"z": None}]})) == {"k": [1, 2, {"z": None}]}


def test_malformed_yaml_still_raises_yamls_own_error_with_its_line() -> None:
    with pytest.raises(yaml.MarkedYAMLError):
        load_all("a: [unclosed")
