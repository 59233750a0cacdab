"""The arena's PIMC baseline: legal, deterministic, and a search (it beats blunders)."""

from __future__ import annotations

import pytest
from helpers_ai import RULE_SETS, position, random_states
from test_ai_choose import NIL_DEAL

from engine.ai import pimc
from engine.cards import parse_card
from engine.rules import Rules
from engine.view import view


@pytest.mark.parametrize("rules", RULE_SETS[::3], ids=lambda r: str(r.diff_from_preset()))
def test_legal_and_deterministic(rules: Rules) -> None:
    for i, g in enumerate(random_states(rules, 5, 8)):
        v = view(g, g.to_move)
        a = pimc.choose(v, seed=i)
        assert a in v.legal
        assert pimc.choose(v, seed=i) == a


def test_covers_the_partners_nil() -> None:
    g = position(NIL_DEAL, [3, 6, 3, 0], ["4H"], dealer=2)
    assert pimc.choose(view(g, 0)) == parse_card("AH")


def test_bags_are_charged() -> None:
    # Bids in order: seat 3 bids 3, seat 0 six, seat 1 three, seat 2 three.
    g = position(NIL_DEAL, [3, 6, 3, 3], [], dealer=2)
    tricks = [5, 2, 0, 6]
    # Seats 0 and 2 bid 9 and take 5: -90. Seats 1 and 3 bid 6 and take 8:
    # +62 with 2 bags, charged -10 each.
    assert pimc.hand_value(g, 0, tricks) == pytest.approx(-90 - (62 - 20))
