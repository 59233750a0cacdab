"""The arena's plain search baseline: legal, deterministic, rule bids, a fixed margin."""

from __future__ import annotations

import random

import pytest
from helpers_ai import RULE_SETS, position, random_states
from test_ai_choose import NIL_DEAL

from engine.ai import plain, policy
from engine.ai.knowledge import any_world
from engine.ai.worlds import sample_worlds
from engine.cards import parse_card
from engine.game import PLAY
from engine.rules import Rules
from engine.scoring import side_of
from engine.view import view


@pytest.mark.parametrize("rules", RULE_SETS[::3], ids=lambda r: str(r.diff_from_preset()))
def test_legal_and_deterministic(rules: Rules) -> None:
    for i, g in enumerate(random_states(rules, 6, 8)):
        v = view(g, g.to_move)
        a = plain.choose(v, seed=i)
        assert a in v.legal
        assert plain.choose(v, seed=i) == a


@pytest.mark.parametrize("rules", [RULE_SETS[0], RULE_SETS[1], RULE_SETS[7]])
def test_bids_are_the_rule_players(rules: Rules) -> None:
    seen = 0
    for i, g in enumerate(random_states(rules, 11, 40)):
        if g.phase == PLAY:
            continue
        v = view(g, g.to_move)
        # The rule player reads only the own hand and public facts: any world will do.
        assert plain.choose(v, seed=i) == policy.choose(any_world(v, 0), v.seat)
        seen += 1
    assert seen


def test_margin_keeps_the_conventional_card() -> None:
    assert plain.pick({1: 10.0, 2: 12.9}, prior=1) == 1
    assert plain.pick({1: 10.0, 2: 13.1}, prior=1) == 2
    assert plain.pick({1: 10.0, 2: 9.0}, prior=2) == 2  # worse, but within the margin
    assert plain.pick({1: 10.0, 2: 6.0}, prior=2) == 1


def test_covers_the_partners_nil() -> None:
    g = position(NIL_DEAL, [3, 6, 3, 0], ["4H"], dealer=2)
    assert plain.choose(view(g, 0)) == parse_card("AH")


def test_values_follow_the_hand_scoring() -> None:
    g = position(NIL_DEAL, [3, 6, 3, 0], ["4H"], dealer=2)
    v = view(g, 0)
    worlds = sample_worlds(v, random.Random(0), 12)
    vals = plain.card_values([parse_card("AH"), parse_card("3H")], worlds, side_of(4, 0))
    # Ducking with the 3 leaves the nil partner to take the trick with K or Q: far worse.
    assert vals[parse_card("AH")] > vals[parse_card("3H")] + plain.MARGIN
