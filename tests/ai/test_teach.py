"""hint(): the master's move with a true reason; review(): a hand's costly decisions."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from helpers_ai import RULE_SETS, position, random_states
from test_ai_choose import ATTACK_DEAL, NIL_DEAL

from engine.ai import REASONS, choose_action, hint, review
from engine.ai.policy import choose as rule_choose
from engine.ai.policy import nil_risk
from engine.cards import cards_of, parse_card
from engine.game import BID, BIDDING, Game
from engine.replay import record_of
from engine.rules import Rules
from engine.view import view


def test_hint_is_the_masters_move_with_a_known_reason() -> None:
    for rules in (RULE_SETS[0], RULE_SETS[1], RULE_SETS[7], RULE_SETS[10]):
        for g in random_states(rules, 3, 6):
            v = view(g, g.to_move)
            h = hint(v, seed=2, budget_ms=15)
            assert h.action == choose_action(v, "master", 2, budget_ms=15)
            assert h.reason in REASONS
            assert hint(v, seed=2, budget_ms=15) == h  # deterministic


def test_hint_covers_the_partners_nil() -> None:
    g = position(NIL_DEAL, [3, 6, 3, 0], ["4H"], dealer=2)
    action, reason = hint(view(g, 0), budget_ms=40)
    assert action == parse_card("AH") and reason == "cover_nil"


def test_hint_keeps_own_nil() -> None:
    deal = [NIL_DEAL[2], NIL_DEAL[1], NIL_DEAL[0], NIL_DEAL[3]]
    g = position(deal, [6, 3, 0, 3], ["AH", "4H"], dealer=1)
    action, reason = hint(view(g, 0), budget_ms=40)
    assert action in (parse_card("KH"), parse_card("QH")) and reason == "keep_nil"


def test_hint_sets_the_opponents_nil() -> None:
    g = position(ATTACK_DEAL, [4, 4, 0, 3], ["5H"], dealer=2)
    action, reason = hint(view(g, 0), budget_ms=40)
    assert action == parse_card("2H") and reason == "set_nil"


def test_hint_lets_the_partner_win() -> None:
    # Seat 0 leads the king of clubs; its partner (seat 2) holds the ace: no need for it.
    hands = [
        "KC 2C 3C AS KS QS 9S AD KD QD 2H 3H 4H",
        "4C 5C 6C 2S 3S 4S 5S 2D 3D 4D 5H 6H 7H",
        "AC 8C 9C 6S 7S 8S 5D 6D 7D 8D 8H 9H TH",
        "TC JC QC 7C TS JS 9D TD JD JH QH KH AH",
    ]
    g = position(hands, [4, 2, 3, 3], ["KC", "4C"], dealer=3)
    assert g.to_move == 2
    action, reason = hint(view(g, 2), budget_ms=40)
    assert action == parse_card("8C") and reason == "partner_wins_trick"


def test_hint_blind_nil_is_called_before_looking() -> None:
    from engine.game import BLIND
    from engine.rules import CLUB

    g = Game(CLUB, 5)
    g.totals = [430, 100] if g.to_move % 2 else [100, 430]
    action, reason = hint(view(g, g.to_move), budget_ms=10)
    assert (action == BLIND) == (reason == "blind_nil")
    assert action == choose_action(view(g, g.to_move), "master", 0, budget_ms=10)


# ------------------------------------------------------------------ review
Chooser = Callable[[Game], int]


def _play_hand(rules: Rules, seed: int, seat: int, override: Chooser) -> Game:
    """One hand, every seat by the rule player except ``override`` for ``seat``
    (which returns -1 to leave a decision to the rule player)."""
    g = Game(rules, seed)
    while g.hand_no == 0 and not g.finished:
        a = -1
        if g.to_move == seat:
            a = override(g)
        g.apply_action(a if a >= 0 else rule_choose(g))
    return g


def test_review_finds_a_wild_overbid() -> None:
    def overbid(g: Game) -> int:
        return BID + 13 if g.phase == BIDDING else -1

    g = _play_hand(Rules(), 21, 1, overbid)
    mistakes = review(record_of(g), 1, budget_ms=200)
    assert 1 <= len(mistakes) <= 3
    bid = next(m for m in mistakes if m.phase == "bid")
    assert bid.played == BID + 13 and bid.better < BID + 10 and bid.gain >= 60
    assert bid.reason in REASONS and bid.trick is None and bid.hand == 0
    assert review(record_of(g), 1, budget_ms=200) == mistakes  # deterministic


def _thrown_nil() -> tuple[Game, int]:
    """A hand where seat 1 bids nil on a low hand and then, last to play to a
    trick, takes it with a card when a lower one would have lost it."""
    for seed in range(300):
        if nil_risk(Game(Rules(), seed).hands[1], 4) > 1.0:
            continue
        thrown = [-1]

        def bad_nil(g: Game, thrown: list[int] = thrown) -> int:
            if g.phase == BIDDING:
                return BID  # nil
            legal = g.legal_play_mask()
            if len(g.trick) == g.n - 1 and thrown[0] < 0 and g.tricks_won[1] == 0:
                win = g.win_card
                beats = [c for c in cards_of(legal) if c // 13 == win // 13 and c > win]
                ducks = [c for c in cards_of(legal) if c // 13 == win // 13 and c < win]
                if beats and ducks:
                    thrown[0] = len(g.tricks)
                    return beats[0]
            return -1

        g = _play_hand(Rules(), seed, 1, bad_nil)
        if thrown[0] >= 0:
            return g, thrown[0]
    raise AssertionError("no such hand")


def test_review_finds_a_nil_thrown_away() -> None:
    g, trick = _thrown_nil()
    mistakes = review(record_of(g), 1, budget_ms=300)
    plays = [m for m in mistakes if m.phase == "play"]
    assert any(m.trick == trick + 1 and m.gain >= 10 for m in plays), mistakes
    for m in plays:
        assert m.better != m.played and m.better in m.hand_cards and m.played in m.hand_cards
        assert len(m.table) < 4


def test_review_refuses_an_unfinished_hand() -> None:
    g = Game(Rules(), 4)
    for _ in range(10):
        g.apply_action(rule_choose(g))
    with pytest.raises(ValueError):
        review(record_of(g), 0)


def _winner(trick: tuple[tuple[int, int], ...]) -> tuple[int, int]:
    seat, win = trick[0]
    for s, c in trick[1:]:
        if (c // 13 == win // 13 and c > win) or (c // 13 == 3 and win // 13 != 3):
            seat, win = s, c
    return seat, win


@pytest.mark.parametrize("rules", [RULE_SETS[0], RULE_SETS[1], RULE_SETS[3], RULE_SETS[8]])
def test_every_reason_is_true_of_its_position(rules: Rules) -> None:
    seen = set()
    for seed in range(3):
        for g in random_states(rules, 40 + seed, 14):
            v = view(g, g.to_move)
            action, reason = hint(v, seed=1, budget_ms=8)
            seen.add(reason)
            seat, n = v.seat, v.players
            partner = (seat + 2) % 4 if n == 4 else -1
            mine = (seat % 2, seat % 2 + 2) if n == 4 else (seat,)

            def alive(s: int, v: object = v) -> bool:
                return v.bids[s] == 0 and v.tricks_won[s] == 0  # type: ignore[attr-defined]

            if v.phase == "bid":
                assert reason in ("bid_tricks", "bid_nil", "bid_for_win", "blind_nil")
                assert (reason == "bid_nil") <= (action == BID)
                continue
            if v.phase == "exchange":
                assert reason == "help_blind_nil"
                continue
            assert reason not in ("bid_tricks", "bid_nil", "bid_for_win", "blind_nil")
            if reason == "keep_nil":
                assert alive(seat)
            if reason == "cover_nil":
                assert partner >= 0 and alive(partner)
            if reason == "set_nil":
                assert any(alive(s) for s in range(n) if s not in mine)
            if reason == "partner_wins_trick":
                win_seat, win = _winner(v.trick)
                assert win_seat == partner
                assert _winner(((win_seat, win), (seat, action)))[0] == partner
            if reason in ("take_trick", "set_opponents") and v.trick:
                assert _winner((*v.trick, (seat, action)))[0] == seat
            if reason == "avoid_bags":
                contract = sum(v.bids[s] or 0 for s in mine)
                taken = sum(v.tricks_won[s] for s in mine if v.bids[s])
                nils = [s for s in mine if v.bids[s] == 0]
                if rules.failed_nil == "help_partner" and len(mine) == 2 and len(nils) == 1:
                    taken += v.tricks_won[nils[0]]
                assert contract and taken >= contract
            if reason == "cash_winner":
                assert not v.trick
    assert len(seen) >= 5
