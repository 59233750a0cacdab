"""The search's fast path (bitmask moves, ``play_unchecked``) equals the public path."""

from __future__ import annotations

import random
from dataclasses import asdict

from helpers_ai import RULE_SETS

from engine.cards import cards_of
from engine.game import PLAY, Game
from engine.scoring import SideScore


def test_fast_path_plays_the_same_games_as_the_public_api() -> None:
    for i, rules in enumerate(RULE_SETS):
        rng = random.Random(i)
        fast, public = Game(rules, 70 + i), Game(rules, 70 + i)
        while not public.finished and public.hand_no < 3:
            legal = public.legal_actions()
            a = rng.choice(legal)
            if public.phase == PLAY:
                assert cards_of(fast.legal_play_mask()) == legal
                fast.play_unchecked(a)
            else:
                fast.apply_action(a)
            public.apply_action(a)
            assert fast.to_dict() == public.to_dict()
        assert public.sheet, "a hand was scored"


def test_score_line_lists_every_field() -> None:
    s = SideScore(*range(11))
    assert s.to_dict() == asdict(s)
    assert list(s.to_dict()) == list(asdict(s))
