"""The tier combinators: how plugin answers become one answer."""

from __future__ import annotations

from scheduler.engine.api.types import ABSTAIN, PERMIT, REJECT
from scheduler.engine.framework import dispatch


def const(value):
    return lambda *args: value


def test_first_nonzero_takes_the_first_opinion_in_tier_order():
    tiers = [[const(0), const(1)], [const(-1)]]
    assert dispatch.first_nonzero(tiers, "a", "b") == 1
    assert dispatch.first_nonzero([[const(0)], [const(0)]], "a", "b") == 0


def test_vote_reject_anywhere_wins_even_after_a_permit_in_the_same_tier():
    assert dispatch.vote([[const(PERMIT), const(REJECT)]]) is False


def test_vote_a_permitting_tier_ends_the_vote_before_a_later_reject():
    assert dispatch.vote([[const(PERMIT)], [const(REJECT)]]) is True


def test_vote_nobody_permitting_is_true():
    assert dispatch.vote([[const(ABSTAIN)], []]) is True


def test_all_pass_and_any_true():
    assert dispatch.all_pass([]) is True
    assert dispatch.all_pass([[const(True)], [const(False)]]) is False
    assert dispatch.any_true([[const(False)], [const(True)]]) is True


def test_intersect_keeps_victims_every_plugin_of_the_tier_names_in_first_order():
    tiers = [[const(["c", "b", "a"]), const(["a", "c"])]]
    assert dispatch.intersect_by_tier(tiers, "p", ["a", "b", "c"]) == ["c", "a"]


def test_intersect_abstaining_plugins_are_ignored_and_empty_falls_to_next_tier():
    tiers = [[const(None), const([])], [const(["x"])]]
    assert dispatch.intersect_by_tier(tiers, "p", ["x"]) == ["x"]
    assert dispatch.intersect_by_tier([[const(None)]], "p", ["x"]) == []


def test_starving_first_tier_with_a_function_decides_and_none_is_false():
    assert dispatch.starving_by_tier([[], [const(True), const(False)], [const(True)]]) is False
    assert dispatch.starving_by_tier([[], [const(True)]]) is True
    assert dispatch.starving_by_tier([[]]) is False


def test_first_answer_and_sum_scores():
    assert dispatch.first_answer([[const(None)], [const("why"), const("other")]]) == "why"
    assert dispatch.sum_scores([[const(1.5)], [const(2)]]) == 3.5


def test_intersect_a_tier_left_with_nothing_leaves_the_choice_to_the_next_tier():
    # Volcano since 1.11 tests a nil list, not an "initialised" flag: tier 1 named victims,
    # its intersection emptied them, and tier 2 decides afresh.
    tiers = [[const(["a"]), const(["b"])], [const(["a", "b"])]]
    assert dispatch.intersect_by_tier(tiers, "p", ["a", "b"]) == ["a", "b"]
    # An empty answer after victims drops them too; a later tier still decides.
    assert dispatch.intersect_by_tier(
        [[const(["a"]), const([])], [const(["b"])]], "p", ["a", "b"]
    ) == ["b"]
    # Within a tier, an empty intersection is "nothing yet": the next answer starts again.
    assert dispatch.intersect_by_tier(
        [[const(["a"]), const(["b"]), const(["b", "a"])]], "p", ["a", "b"]
    ) == ["b", "a"]
    # Every tier refusing: no victims.
    assert dispatch.intersect_by_tier([[const([])], [const([])]], "p", ["a"]) == []
