"""Sampled deals agree with everything the seat knows."""

from __future__ import annotations

import random

from helpers_ai import RULE_SETS

from engine.ai.knowledge import knowledge, sample_hands
from engine.ai.policy import choose as rule_choose
from engine.cards import SUIT_MASKS
from engine.game import PLAY, Game
from engine.view import view


def test_samples_respect_voids_counts_and_played_cards() -> None:
    rng = random.Random(1)
    seen_void = 0
    for i, rules in enumerate(RULE_SETS[:8]):
        g = Game(rules, 40 + i)
        while not g.finished and g.hand_no < 1:
            if g.phase == PLAY:
                seat = g.to_move
                k = knowledge(view(g, seat))
                for s in range(g.n):
                    # The truth is one consistent deal: it must pass the same checks.
                    assert not any(
                        k.voids[s] >> su & 1 and g.hands[s] & SUIT_MASKS[su] for su in range(4)
                    )
                hands = sample_hands(k, rng)
                assert hands is not None
                assert hands[seat] == g.hands[seat]
                total = 0
                for s in range(g.n):
                    assert hands[s].bit_count() == g.hands[s].bit_count()
                    assert not hands[s] & k.played
                    assert hands[s] & k.fixed[s] == k.fixed[s]
                    for su in range(4):
                        if k.voids[s] >> su & 1:
                            seen_void += 1
                            assert not hands[s] & SUIT_MASKS[su]
                    assert not total & hands[s]
                    total |= hands[s]
            g.apply_action(rule_choose(g))
    assert seen_void > 0
