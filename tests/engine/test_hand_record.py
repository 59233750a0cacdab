"""A finished hand's record (engine.record) against the game it came from."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import CLUB, EngineError, Game, Rules
from engine.cards import deck
from engine.game import PLAY
from engine.record import hand_record, hands_finished


def played(rules: Rules, seed: int, hands: int, choice_seed: int = 0) -> Game:
    """A game with random legal moves until ``hands`` hands are over (or it ends)."""
    rng = random.Random(choice_seed)
    g = Game(rules, seed)
    while len(g.sheet) < hands and not g.finished:
        g.apply_action(rng.choice(g.legal_actions()))
    return g


def test_a_seeded_hand_is_recorded_as_dealt_and_played() -> None:
    g = played(Rules(), 2024, 1)
    rec = hand_record(g, 0)
    start = Game(Rules(), 2024)
    assert rec.hand_no == 0 and rec.players == 4 and rec.dealer == start.first_dealer
    assert [list(h) for h in rec.dealt] == start.dealt
    # The bids in their order, from the seat after the dealer.
    assert [s for s, _ in rec.bids] == [(rec.dealer + 1 + i) % 4 for i in range(4)]
    assert [b for _, b in rec.bids] == [g.sheet[0]["bids"][s] for s, _ in rec.bids]
    # Every trick: its cards are the game's actions in order, led by the last winner.
    cards = [c for t in rec.tricks for _, c in t.cards]
    assert cards == g.actions[4 : 4 + 52]
    assert rec.tricks[0].leader == (rec.dealer + 1) % 4
    for before, after in zip(rec.tricks, rec.tricks[1:], strict=False):
        assert after.leader == before.winner
    for t in rec.tricks:
        assert t.cards[0][0] == t.leader
        assert [s for s, _ in t.cards] == [(t.leader + i) % 4 for i in range(4)]
    assert [sum(t.winner == s for t in rec.tricks) for s in range(4)] == g.sheet[0]["tricks"]
    assert rec.line == g.sheet[0] and rec.totals == tuple(s["total"] for s in g.sheet[0]["sides"])


def test_a_hand_in_play_has_no_record() -> None:
    g = played(Rules(), 7, 1)
    assert hands_finished(g) == 1 and not g.finished
    for hand in (1, 2, -1, 99):
        with pytest.raises(EngineError) as e:
            hand_record(g, hand)
        assert e.value.code == "hand_not_finished"
    fresh = Game(Rules(), 7)
    with pytest.raises(EngineError):
        hand_record(fresh, 0)


@given(
    st.sampled_from([Rules(), CLUB, Rules(players=3), Rules(players=6)]),
    st.integers(0, 2**40),
    st.integers(0, 2**20),
)
@settings(max_examples=30, deadline=None)
def test_every_finished_hand_replays_its_game(rules: Rules, seed: int, choices: int) -> None:
    g = played(rules, seed, 3, choices)
    n = rules.players
    for hand in range(hands_finished(g)):
        rec = hand_record(g, hand)
        assert sorted(c for h in rec.dealt for c in h) == sorted(deck(n))
        assert len(rec.tricks) == len(rec.dealt[0])
        assert sorted(c for t in rec.tricks for _, c in t.cards) == sorted(deck(n))
        taken = [sum(t.winner == s for t in rec.tricks) for s in range(n)]
        assert taken == g.sheet[hand]["tricks"]
        # A seat plays only what it held once the passes were made.
        held = [set(h) for h in rec.dealt]
        for giver, taker, cards in rec.exchanges:
            assert set(cards) <= held[giver]
            held[giver] -= set(cards)
            held[taker] |= set(cards)
        for t in rec.tricks:
            for seat, c in t.cards:
                assert c in held[seat]
                held[seat].discard(c)


@given(st.integers(0, 2**30), st.integers(2, 13), st.integers(0, 3))
@settings(max_examples=40, deadline=None)
def test_a_claimed_hand_is_recorded_up_to_the_claim(seed: int, left: int, extra: int) -> None:
    """A hand a claim ended: the tricks played, the trick the claim cut short
    (no taker), and the claim with the tricks it gave; nothing after it."""
    rng = random.Random(seed)
    g = Game(Rules(), seed)
    while g.phase != PLAY:
        g.apply_action(rng.choice(g.legal_actions()))
    while 13 - len(g.tricks) > left:
        g.apply_action(rng.choice(g.legal_actions()))
    for _ in range(extra):
        g.apply_action(rng.choice(g.legal_actions()))
    claimer, cut, won = g.to_move, list(g.trick), list(g.tricks_won)
    g.concede_claim(claimer)
    rec = hand_record(g, 0)
    assert rec.claim == (claimer, left)
    full = [t for t in rec.tricks if t.winner is not None]
    assert len(full) == 13 - left
    assert [sum(t.winner == s for t in full) for s in range(4)] == won
    if cut:
        assert rec.tricks[-1].winner is None and [c for _, c in rec.tricks[-1].cards] == cut
    else:
        assert not rec.tricks or rec.tricks[-1].winner is not None
    assert rec.line == g.sheet[0]
    assert rec.line["tricks"][claimer] == won[claimer] + left
