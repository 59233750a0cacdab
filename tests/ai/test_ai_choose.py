"""choose_action: always legal, deterministic, blind to hidden cards, protects a nil."""

from __future__ import annotations

import pytest
from helpers_ai import RULE_SETS, position, random_states

from engine.ai import LEVELS, choose_action
from engine.cards import parse_card
from engine.game import BID, BLIND, Game
from engine.rules import CLUB, Rules
from engine.view import view


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: str(r.diff_from_preset()))
def test_always_legal_every_rule_set(rules: Rules) -> None:
    for seed in range(3):
        for i, g in enumerate(random_states(rules, seed, 12)):
            v = view(g, g.to_move)
            for level in ("novice", "amateur"):
                assert choose_action(v, level, seed) in v.legal
            if i % 3 == 0:
                assert choose_action(v, "master", seed, budget_ms=4) in v.legal


def test_whole_games_at_every_level_stay_legal() -> None:
    for seed, rules in enumerate([Rules(), CLUB, Rules(players=5)]):
        g = Game(rules, seed)
        steps = 0
        while not g.finished and g.hand_no < 1:
            v = view(g, g.to_move)
            level = LEVELS[(g.to_move + seed) % 3]
            a = choose_action(v, level, seed, budget_ms=3)
            g.apply_action(a, g.to_move)  # raises if illegal
            steps += 1
        assert steps > 0


def test_unknown_level_and_wrong_seat_are_refused() -> None:
    g = Game(Rules(), 1)
    with pytest.raises(ValueError):
        choose_action(view(g, g.to_move), "grandmaster")
    other = (g.to_move + 1) % 4
    with pytest.raises(ValueError):
        choose_action(view(g, other))


def test_same_view_and_seed_same_decision() -> None:
    for g in random_states(Rules(), 11, 8):
        v = view(g, g.to_move)
        first = choose_action(v, "master", 5, budget_ms=20)
        assert choose_action(v, "master", 5, budget_ms=20) == first
        assert choose_action(v, "novice", 5) == choose_action(v, "novice", 5)


def _swap_hidden(g: Game, seat: int) -> Game:
    """The same public state with two other seats' unplayed cards of one suit swapped."""
    h = g.copy()
    a, b = [s for s in range(4) if s != seat][:2]
    ma, mb = h.hands[a], h.hands[b]
    # Give b all of a's cards and vice versa: legal only where both hold equal counts.
    h.hands[a], h.hands[b] = mb, ma
    return h


def test_decision_ignores_hidden_cards() -> None:
    # At the first lead no voids are known: hidden hands of equal size may be swapped.
    for seed in range(6):
        g = Game(Rules(), seed)
        while g.phase == "bid":
            g.apply_action(g.legal_actions()[len(g.legal_actions()) // 4])
        seat = g.to_move
        other = _swap_hidden(g, seat)
        assert other.hands != g.hands
        v1, v2 = view(g, seat), view(other, seat)
        assert v1 == v2
        assert choose_action(v1, "master", 3, budget_ms=15) == choose_action(
            v2, "master", 3, budget_ms=15
        )


def _club_bidding(totals: list[int], seed: int) -> Game:
    g = Game(CLUB, seed)
    g.totals = list(totals)
    return g


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("totals", [[430, 100], [300, 100]])
def test_blind_nil_decision_does_not_look_at_the_hand(level: str, totals: list[int]) -> None:
    # Team 1 (seats 1, 3) far behind: whether to call blind nil is decided
    # before the cards are seen, so any hand gives the same call.
    calls = set()
    for seed in range(8):
        g = _club_bidding(totals, seed)
        seat = g.to_move
        if seat % 2 == 0:
            continue
        v = view(g, seat)
        assert BLIND in v.legal
        decisions = set()
        for other_seed in range(4):
            h = g.copy()
            donor = Game(CLUB, 1000 + other_seed)
            h.hands = list(donor.hands)
            decisions.add(choose_action(view(h, seat), level, 1, budget_ms=5) == BLIND)
        assert len(decisions) == 1
        calls |= decisions
    if level != "master":
        # The rule player calls it only when the opponents are near the target.
        assert calls == {totals == [430, 100]}
    # Not behind: never blind.
    g = _club_bidding([0, 0], 4)
    v = view(g, g.to_move)
    assert choose_action(v, level, 1, budget_ms=5) != BLIND


def test_master_calls_blind_nil_when_far_behind_with_hands_to_go() -> None:
    # 200 behind, the opponents 200 from the target: a blind nil's 200 points
    # can still win the game, looking and bidding rarely can.
    for seed in (2, 5):
        g = _club_bidding([300, 100], seed)
        assert g.to_move % 2 == 1
        assert choose_action(view(g, g.to_move), "master", 1) == BLIND


NIL_DEAL = [
    # seat 0 (me): the ace and a low heart
    "AH 3H AS KS QS 9S AC KC QC AD KD QD JD",
    # seat 1
    "5H 6H 7H 2S 3S 4S 5S 2C 3C 4C 2D 3D 4D",
    # seat 2 (my partner, nil): high hearts are dangerous
    "KH QH 2H 6S 7S 5C 6C 7C 8C 5D 6D 7D 8D",
    # seat 3 leads
    "4H 8H 9H TH JH 8S TS JS 9C TC JC 9D TD",
]


@pytest.mark.parametrize("level", ["amateur", "master"])
def test_covers_partners_nil(level: str) -> None:
    # Dealer 2: seat 3 bids first and leads; bids in order 3, 0, 1, 2 (partner nil).
    g = position(NIL_DEAL, [3, 6, 3, 0], ["4H"], dealer=2)
    assert g.to_move == 0
    v = view(g, 0)
    assert choose_action(v, level, 0, budget_ms=40) == parse_card("AH")


@pytest.mark.parametrize("level", ["amateur", "master"])
def test_nil_player_ducks(level: str) -> None:
    # My partner leads the ace of hearts; I am nil with K, Q and 2 of hearts: dump a high one.
    deal = [NIL_DEAL[2], NIL_DEAL[1], NIL_DEAL[0], NIL_DEAL[3]]
    # Dealer 1: seat 2 bids first and leads; bids in order 2, 3, 0, 1 -> seat 0 bids nil.
    g = position(deal, [6, 3, 0, 3], ["AH", "4H"], dealer=1)
    assert g.bids[0] == 0 and g.to_move == 0
    # K and Q are equivalent here (nothing between them); the 2 would keep a danger.
    assert choose_action(view(g, 0), level, 0, budget_ms=40) in (parse_card("KH"), parse_card("QH"))


def test_bids_respect_restrictions() -> None:
    for rules in (Rules(suicide=True), Rules(bid_sum="club"), Rules(bicycle=True)):
        for seed in range(10):
            g = Game(rules, seed)
            while g.phase == "bid":
                v = view(g, g.to_move)
                a = choose_action(v, "master", seed, budget_ms=5)
                assert a in v.legal
                g.apply_action(a)
            if rules.suicide:
                for team in ((0, 2), (1, 3)):
                    b = sorted(g.bids[s] for s in team)
                    assert b[0] == 0 and (b[1] == 0 or b[1] >= 4)
            if rules.bicycle:
                assert 0 not in g.bids
            if rules.bid_sum == "club":
                assert sum(g.bids) <= 13
    assert BID  # keep the import meaningful


ATTACK_DEAL = [
    "AH 2H AS KS QS AC KC QC AD KD QD JD TD",  # seat 0: me
    "9H KH 2S 3S 4S 2C 3C 4C 5C 2D 3D 4D 5D",  # seat 1: nil with only high hearts
    "3H 4H 6H 7H 8H 5S 6S 7S 6C 7C 8C 6D 7D",  # seat 2: my partner
    "5H TH JH QH 8S 9S TS JS 9C TC JC 8D 9D",  # seat 3: leads a low heart
]


@pytest.mark.parametrize("level", ["amateur", "master"])
def test_attacks_opponents_nil(level: str) -> None:
    # Dealer 2: bids in order 3, 0, 1, 2; seat 1 bids nil and plays right after me.
    g = position(ATTACK_DEAL, [4, 4, 0, 3], ["5H"], dealer=2)
    assert g.bids[1] == 0 and g.to_move == 0
    # Under the 5: the nil must then win the trick with the 9 or the king.
    assert choose_action(view(g, 0), level, 0, budget_ms=40) == parse_card("2H")


def test_a_failing_player_is_logged_and_the_rule_player_moves(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import engine.ai.player as player

    def broken(*_args: object) -> object:
        raise RuntimeError("search broke")

    monkeypatch.setattr(player, "decide", broken)
    g = Game(Rules(), 3)
    v = view(g, g.to_move)
    with caplog.at_level("ERROR", logger="engine.ai.player"):
        a = choose_action(v, "master", 1, budget_ms=5)
    assert a in v.legal
    rec = next(r for r in caplog.records if "search broke" in str(r.exc_info))
    assert "fallback move: the rule player's action" in rec.getMessage()
    assert str(a - BID) in rec.getMessage()  # the bid taken is named
