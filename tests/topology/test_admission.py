"""HyperNodes are refused by Volcano's rules, in Volcano's words, each at its field.

The CRD schema's rules (tier, tierName, members, type, exactMatch name, regexMatch pattern,
the selector's two CEL rules), the hypernode-validation-policy's (no members, no selector,
unmatched brackets) and the webhook's (a pattern Go's regexp refuses), all named at once.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.topology.kit import HYPER_NODES, by_labels, causes, exact, hyper_node, post, regex

pytestmark = pytest.mark.django_db

NAME_PATTERN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"


def _refused(client: Client, manifest: dict[str, Any]) -> list[tuple[str, str]]:
    found = causes(post(client, HYPER_NODES, manifest))
    name = manifest["metadata"]["name"]
    assert client.get(f"{HYPER_NODES}/{name}").status_code == 404
    return found


def test_a_valid_hyper_node_is_created_as_written(operator: Client) -> None:
    manifest = hyper_node("s0", 1, exact("node-0"), regex("^gpu-"), by_labels(rack="r1"),
                          tierName="leaf")  # fmt: skip

    response = post(operator, HYPER_NODES, manifest)

    assert response.status_code == 201, response.content
    assert response.json()["spec"] == manifest["spec"]
    assert operator.get(f"{HYPER_NODES}/s0").json()["spec"] == manifest["spec"]


def test_the_schema_rules_speak_in_kube_apiservers_words(operator: Client) -> None:
    manifest = hyper_node(
        "bad-schema",
        -1,
        {"type": "Switch", "selector": {"exactMatch": {"name": "Node_0"}}},
        {"selector": {"regexMatch": {"pattern": ""}}},
        {"type": "Node", "selector": {}},
        {"type": "Node", "selector": {"exactMatch": {"name": "a"}, "regexMatch": {"pattern": "b"}}},
        tierName="t" * 254,
    )

    assert _refused(operator, manifest) == [
        ("spec.tier", "Invalid value: -1: spec.tier in body should be greater than or equal to 0"),
        ("spec.tierName", "Too long: may not be more than 253 bytes"),
        ("spec.members[0].type",
         'Unsupported value: "Switch": supported values: "Node", "HyperNode"'),
        ("spec.members[0].selector.exactMatch.name",
         f'Invalid value: "Node_0": spec.members[0].selector.exactMatch.name in body should '
         f"match '{NAME_PATTERN}'"),
        ("spec.members[1].type", "Required value"),
        ("spec.members[1].selector.regexMatch.pattern",
         'Invalid value: "": spec.members[1].selector.regexMatch.pattern in body should be at '
         "least 1 chars long"),
        ("spec.members[2].selector",
         'Invalid value: "object": Either ExactMatch or RegexMatch or LabelMatch must be '
         "specified"),
        ("spec.members[3].selector",
         'Invalid value: "object": Only one of ExactMatch, RegexMatch, or LabelMatch can be '
         "specified"),
    ]  # fmt: skip


def test_a_missing_tier_is_required(operator: Client) -> None:
    manifest = hyper_node("no-tier", 1, exact("node-0"))
    del manifest["spec"]["tier"]

    assert _refused(operator, manifest) == [("spec.tier", "Required value")]


def test_members_empty_and_missing_are_refused_each_in_its_own_words(operator: Client) -> None:
    empty = hyper_node("empty", 1, members=[])
    missing = hyper_node("missing", 1)

    assert _refused(operator, empty) == [
        ("spec.members", "Invalid value: 0: spec.members in body should have at least 1 items")
    ]
    assert _refused(operator, missing) == [("spec.members", "member must have at least one member")]


def test_a_member_without_a_selector_is_refused_by_the_policy(operator: Client) -> None:
    manifest = hyper_node("no-selector", 1, {"type": "Node"})

    assert _refused(operator, manifest) == [
        ("spec.members[0].selector",
         "member selector must have one of exactMatch, regexMatch, or labelMatch")
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("node-(a", "member regexMatch pattern is invalid: unmatched parentheses"),
        ("node-[0-9", "member regexMatch pattern is invalid: unmatched square brackets"),
        ("node-{2", "member regexMatch pattern is invalid: unmatched curly braces"),
        ("node-a)", 'Invalid value: "node-a)": member regexMatch pattern is invalid: '
                    "error parsing regexp: unexpected ): `node-a)`"),
        ("*node", 'Invalid value: "*node": member regexMatch pattern is invalid: '
                  "error parsing regexp: missing argument to repetition operator: `*`"),
        ("(?=node)n", 'Invalid value: "(?=node)n": member regexMatch pattern is invalid: '
                      "error parsing regexp: invalid or unsupported Perl syntax: `(?=`"),
        (r"(a)\1", 'Invalid value: "(a)\\\\1": member regexMatch pattern is invalid: '
                   "error parsing regexp: invalid escape sequence: `\\1`"),
    ],
)  # fmt: skip
def test_a_regex_pattern_must_be_one_go_compiles(
    operator: Client, pattern: str, message: str
) -> None:
    manifest = hyper_node("bad-regex", 1, regex(pattern))

    assert _refused(operator, manifest) == [
        ("spec.members[0].selector.regexMatch.pattern", message)
    ]


def test_a_hyper_node_member_may_only_use_exact_match(operator: Client) -> None:
    manifest = hyper_node(
        "spine", 2, exact("leaf-0", "HyperNode"), regex("^leaf-", "HyperNode"),
        by_labels("HyperNode", tier="leaf"),
    )  # fmt: skip

    assert _refused(operator, manifest) == [
        ("spec.members[1].selector", "Forbidden: a member of type HyperNode may only use exactMatch"),
        ("spec.members[2].selector", "Forbidden: a member of type HyperNode may only use exactMatch"),
    ]  # fmt: skip


def test_a_label_match_with_an_unknown_operator_is_refused(operator: Client) -> None:
    member = {"type": "Node", "selector": {"labelMatch": {"matchExpressions": [
        {"key": "rack", "operator": "Near", "values": ["r1"]}]}}}  # fmt: skip

    assert _refused(operator, hyper_node("near", 1, member)) == [
        ("spec.members[0].selector.labelMatch.matchExpressions[0].operator",
         'Unsupported value: "Near": supported values: "In", "NotIn", "Exists", "DoesNotExist"')
    ]  # fmt: skip


def test_an_update_is_judged_by_the_same_rules(operator: Client) -> None:
    assert post(operator, HYPER_NODES, hyper_node("s1", 1, exact("node-0"))).status_code == 201
    patch = {"spec": {"members": [regex("node-(")]}}

    response = operator.patch(
        f"{HYPER_NODES}/s1", patch, content_type="application/merge-patch+json"
    )

    assert causes(response) == [
        ("spec.members[0].selector.regexMatch.pattern",
         "member regexMatch pattern is invalid: unmatched parentheses")
    ]  # fmt: skip


def test_everyone_reads_hyper_nodes_and_only_operators_write_them(
    operator: Client, viewer: Client, submitter: Client
) -> None:
    assert post(operator, HYPER_NODES, hyper_node("s2", 1, exact("node-0"))).status_code == 201

    assert viewer.get(f"{HYPER_NODES}/s2").status_code == 200
    assert submitter.get(HYPER_NODES).status_code == 200
    assert post(viewer, HYPER_NODES, hyper_node("s3", 1, exact("node-0"))).status_code == 403
    assert submitter.delete(f"{HYPER_NODES}/s2").status_code == 403
