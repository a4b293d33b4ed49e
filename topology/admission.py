"""HyperNode admission: Volcano's CRD schema, ValidatingAdmissionPolicy and webhook rules.

kube-apiserver judges a HyperNode in three steps, each with its own words, and so do we:

1. the CRD's schema (``topology.volcano.sh_hypernodes.yaml``): ``spec.tier`` >= 0,
   ``tierName`` at most 253 bytes, at least one member, each with a ``type`` of Node or
   HyperNode, an ``exactMatch.name`` that is a DNS subdomain, a non-empty
   ``regexMatch.pattern``, and the selector's two CEL rules (one of exactMatch, regexMatch or
   labelMatch; no more than one);
2. the ``hypernode-validation-policy``: a HyperNode with no ``members`` at all, a member whose
   selector is left out, and the bracket counts of each regex pattern. Its other rules repeat
   the schema's, which speaks first, so their messages never show;
3. Volcano's webhook: each regex pattern must compile as Go's ``regexp`` does.

kube-apiserver stops at the first step that refuses; here every step's findings are named at
once, each at its field path, so a user fixes the manifest in one go. One rule is ours:
Volcano's scheduler links HyperNodes only through ``exactMatch`` (it skips any other selector
of a HyperNode member), so such a member is refused rather than silently ignored.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from kube.admission_causes import Causes, CauseType
from topology.go_regexp import go_regexp_error
from topology.models import HyperNode, MemberType

__all__ = ["admit_hyper_node", "validate_hyper_node"]

MAX_TIER_NAME = 253
NAME_PATTERN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
MAX_NAME = 253
SELECTORS = ("exactMatch", "regexMatch", "labelMatch")
OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
# The CRD's CEL rules on a member's selector.
EITHER = "Either ExactMatch or RegexMatch or LabelMatch must be specified"
ONLY_ONE = "Only one of ExactMatch, RegexMatch, or LabelMatch can be specified"
# The ValidatingAdmissionPolicy's messages.
NO_MEMBERS = "member must have at least one member"
NO_SELECTOR = "member selector must have one of exactMatch, regexMatch, or labelMatch"
UNMATCHED = "member regexMatch pattern is invalid: unmatched {}"
BRACKETS = (("(", ")", "parentheses"), ("[", "]", "square brackets"), ("{", "}", "curly braces"))
HYPER_NODE_EXACT_ONLY = "Forbidden: a member of type HyperNode may only use exactMatch"


def _shown(value: Any) -> str:
    return json.dumps(value)


def _unsupported(value: Any, allowed: tuple[str, ...] | list[str]) -> str:
    """kube-apiserver's words for a value outside an enum."""
    choices = ", ".join(_shown(item) for item in allowed)
    return f"Unsupported value: {_shown(value)}: supported values: {choices}"


def _validate_exact_match(match: Mapping[str, Any], at: str, causes: Causes) -> None:
    if "name" not in match:
        causes.required(f"{at}.name")
        return
    name = str(match["name"])
    where = f"{at}.name"
    if not name:
        causes.invalid(where, f'Invalid value: "": {where} in body should be at least 1 chars long')
    elif len(name) > MAX_NAME:
        causes.add(where, CauseType.TOO_LONG, f"Too long: may not be more than {MAX_NAME} bytes")
    elif not re.match(NAME_PATTERN, name):
        causes.invalid(
            where, f"Invalid value: {_shown(name)}: {where} in body should match '{NAME_PATTERN}'"
        )


def _validate_regex_match(match: Mapping[str, Any], at: str, causes: Causes) -> str:
    """Check the schema's rules on a regexMatch; return the pattern ("" when unusable)."""
    where = f"{at}.pattern"
    if "pattern" not in match:
        causes.required(where)
        return ""
    pattern = str(match["pattern"])
    if not pattern:
        causes.invalid(where, f'Invalid value: "": {where} in body should be at least 1 chars long')
    return pattern


def _validate_label_match(selector: Mapping[str, Any], at: str, causes: Causes) -> None:
    """Refuse an operator no label selector knows (Volcano's member would select nothing)."""
    for index, expression in enumerate(selector.get("matchExpressions") or []):
        where = f"{at}.matchExpressions[{index}]"
        for key in ("key", "operator"):
            if key not in expression:
                causes.required(f"{where}.{key}")
        operator = expression.get("operator")
        if operator is not None and operator not in OPERATORS:
            causes.add(
                f"{where}.operator", CauseType.NOT_SUPPORTED, _unsupported(operator, OPERATORS)
            )


def _validate_pattern(pattern: str, at: str, causes: Causes) -> None:
    """The policy's bracket counts, then the webhook's compile (Go's regexp)."""
    for opening, closing, words in BRACKETS:
        if opening in pattern and pattern.count(opening) != pattern.count(closing):
            causes.invalid(at, UNMATCHED.format(words))
            return
    if error := go_regexp_error(pattern):
        causes.invalid(
            at, f"Invalid value: {_shown(pattern)}: member regexMatch pattern is invalid: {error}"
        )


def _validate_member(member: Mapping[str, Any], at: str, causes: Causes) -> list[tuple[str, str]]:
    """Check one member's schema rules; return its regex patterns for the later steps."""
    member_type = member.get("type")
    if member_type is None:
        causes.required(f"{at}.type")
    elif member_type not in MemberType.values:
        causes.add(
            f"{at}.type", CauseType.NOT_SUPPORTED, _unsupported(member_type, MemberType.values)
        )
    selector = member.get("selector")
    if selector is None:
        return []
    where = f"{at}.selector"
    given = [name for name in SELECTORS if name in selector]
    if not given:
        causes.invalid(where, f'Invalid value: "object": {EITHER}')
    elif len(given) > 1:
        causes.invalid(where, f'Invalid value: "object": {ONLY_ONE}')
    patterns = []
    if "exactMatch" in selector:
        _validate_exact_match(selector["exactMatch"], f"{where}.exactMatch", causes)
    if "regexMatch" in selector:
        pattern = _validate_regex_match(selector["regexMatch"], f"{where}.regexMatch", causes)
        if pattern:
            patterns.append((pattern, f"{where}.regexMatch.pattern"))
    if "labelMatch" in selector:
        _validate_label_match(selector["labelMatch"], f"{where}.labelMatch", causes)
    if member_type == MemberType.HYPER_NODE and given and given != ["exactMatch"]:
        causes.forbidden(where, HYPER_NODE_EXACT_ONLY)
    return patterns


def validate_hyper_node(hyper_node: HyperNode) -> Causes:
    """Return every rule ``hyper_node`` breaks, the schema's first, then the policy's and the
    webhook's."""
    causes = Causes()
    if hyper_node.tier < 0:
        causes.invalid(
            "spec.tier",
            f"Invalid value: {hyper_node.tier}: spec.tier in body should be greater than or "
            "equal to 0",
        )
    if len(hyper_node.tier_name.encode()) > MAX_TIER_NAME:
        causes.add(
            "spec.tierName",
            CauseType.TOO_LONG,
            f"Too long: may not be more than {MAX_TIER_NAME} bytes",
        )
    members = hyper_node.members
    if members is None:
        causes.invalid("spec.members", NO_MEMBERS)
        return causes
    if not members:
        causes.invalid(
            "spec.members", "Invalid value: 0: spec.members in body should have at least 1 items"
        )
    patterns: list[tuple[str, str]] = []
    for index, member in enumerate(members):
        at = f"spec.members[{index}]"
        patterns += _validate_member(member, at, causes)
        if member.get("selector") is None:
            causes.invalid(f"{at}.selector", NO_SELECTOR)
    for pattern, at in patterns:
        _validate_pattern(pattern, at, causes)
    return causes


def admit_hyper_node(hyper_node: HyperNode) -> None:
    """Raise ``AdmissionError`` naming every rule ``hyper_node`` breaks; nothing is written."""
    validate_hyper_node(hyper_node).raise_if_any(kind="HyperNode", name=hyper_node.name)
