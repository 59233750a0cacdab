"""The questions the bot asks the engine instead of working the rules out
itself: may a seat still go blind, why an action is refused, who receives the
pass, what the group may see, whether a bid was kept."""

from __future__ import annotations

import json
import random
import re

import pytest
import spades_scenarios as sc
from test_rules import DEAL, act, deal, new_game, snapshot

from engine.cards import card_str
from engine.errors import EngineError
from engine.game import BID, BIDDING, BLIND, EXCHANGE, Game
from engine.rules import Rules
from engine.scoring import bid_made, partner
from engine.view import PublicView, public_view, view, views

CARD = re.compile(r'"([2-9TJQKA][CDHS])"')


# ------------------------------------------------------------ blind nil
def test_blind_possible_off_and_after_the_bid() -> None:
    g = new_game("classic")
    deal(g, DEAL)
    assert not any(g.blind_possible(s) for s in range(4))
    g = new_game({"preset": "classic", "blind_nil": "chicago"})
    deal(g, DEAL)
    assert all(g.blind_possible(s) for s in range(4))  # before anyone's turn too
    act(g, 3)  # seat 0 bids a number: its chance is gone, the others keep theirs
    assert [g.blind_possible(s) for s in range(4)] == [False, True, True, True]


@pytest.mark.parametrize(
    ("totals", "possible"),
    [([0, 100], [True, False, True, False]), ([0, 99], [False] * 4), ([150, 0], [False, True] * 2)],
)
def test_club_blind_possible_for_the_team_100_behind(
    totals: list[int], possible: list[bool]
) -> None:
    g = new_game("club", totals=totals)
    deal(g, DEAL)
    assert [g.blind_possible(s) for s in range(4)] == possible


def test_club_blind_possible_once_per_team() -> None:
    g = new_game("club", totals=[0, 200])
    deal(g, DEAL)
    act(g, "blind")  # seat 0
    assert not g.blind_possible(2)  # its partner, before its turn
    act(g, 4)
    assert not g.blind_possible(2) and not g.blind_allowed(2)


def test_blind_possible_is_never_wrong_to_say_no() -> None:
    """Over random hands of every blind-nil rule: whenever a seat is offered
    blind nil at its turn, ``blind_possible`` said so at every step before
    (the cards stayed face down); at its turn it equals ``blind_allowed``."""
    rng = random.Random(3)
    rule_sets = [
        {"preset": "classic", "blind_nil": "chicago"},
        {"preset": "classic", "blind_nil": "chicago", "bid_sum": "no_hell"},
        {"preset": "classic", "blind_nil": "chicago", "suicide": True},
        {"preset": "club"},
        {"preset": "club", "failed_nil": "bags"},
    ]
    offered = 0
    for i in range(200):
        rules = rule_sets[i % len(rule_sets)]
        g = Game(Rules.from_json(rules), i)
        for _ in range(rng.randrange(8) * 4 * 14):  # a few hands in
            if g.finished:
                break
            g.apply_action(rng.choice(g.legal_actions()))
        while g.phase != BIDDING and not g.finished:
            g.apply_action(rng.choice(g.legal_actions()))
        said: dict[int, list[bool]] = {s: [] for s in range(g.n)}
        while g.phase == BIDDING:
            for s in range(g.n):
                if g.bids[s] is None and s != g.to_move:
                    said[s].append(g.blind_possible(s))
            seat = g.to_move
            assert g.blind_possible(seat) == g.blind_allowed(seat)
            if g.blind_allowed(seat):
                offered += 1
                assert all(said[seat]), (rules, i, seat)
            g.apply_action(rng.choice(g.legal_actions()))
        assert not any(g.blind_possible(s) for s in range(g.n))
    assert offered > 50  # the property was really exercised


# ------------------------------------------------------------ refusals
def test_refusal_names_the_code_and_changes_nothing() -> None:
    g = new_game("classic")
    deal(g, DEAL)
    before = snapshot(g)
    assert g.refusal(BLIND) == "blind_not_allowed"
    assert g.refusal(BID + 3, seat=2) == "not_your_turn"
    assert g.refusal(sc.card_to_int("AS")) == "wrong_phase"
    assert g.refusal(BID + 3) is None
    act(g, 3, 3, 3, 3)
    assert g.refusal(sc.card_to_int("AS")) == "spades_not_broken"  # seat 0 leads
    assert g.refusal(sc.card_to_int("8S")) == "card_not_in_hand"
    act(g, "2C")
    assert g.refusal(sc.card_to_int("QH")) == "must_follow_suit"  # seat 1 has clubs
    assert snapshot(g) != before
    mid = snapshot(g)
    for a in range(BLIND + 1):
        code = g.refusal(a)
        if a in g.legal_actions():
            assert code is None
        else:
            with pytest.raises(EngineError) as err:
                g.copy().apply_action(a)
            assert code == err.value.code
    assert snapshot(g) == mid


# ------------------------------------------------------------ exchange
def test_passing_names_giver_and_taker() -> None:
    g = new_game("club", totals=[0, 200])
    deal(g, DEAL)
    assert g.passing() is None
    act(g, "blind", 4, 3, 3)
    assert g.phase == EXCHANGE and g.passing() == (0, 2)
    assert public_view(g).pass_to == 2
    v = view(g, 0)
    assert v.cards_allowed == tuple(sorted(v.hand)) and v.bids_allowed == ()
    act(g, "2C")
    assert view(g, 0).picking == (sc.card_to_int("2C"),)
    assert sc.card_to_int("2C") not in view(g, 0).cards_allowed
    act(g, "3C")
    assert g.passing() == (2, 0) and public_view(g).pass_to == 0
    act(g, "8C", "9C")
    assert g.passing() is None and public_view(g).pass_to == -1


# ------------------------------------------------------------ views
def test_public_view_shows_no_card_of_any_hand() -> None:
    rng = random.Random(5)
    for seed in range(60):
        rules = "club" if seed % 2 else {"preset": "classic", "blind_nil": "chicago"}
        g = Game(Rules.from_json(rules, 4 if seed % 2 else 3 + seed % 4), seed)
        for _ in range(rng.randrange(200)):
            if g.finished:
                break
            g.apply_action(rng.choice(g.legal_actions()))
        pv = public_view(g)
        assert type(pv) is PublicView and not hasattr(pv, "hand")
        shown = set(CARD.findall(json.dumps(pv.to_dict())))
        on_table = {card_str(c) for _s, c in pv.trick}
        on_table |= {card_str(c) for _ld, cs, _w in pv.tricks for c in cs}
        assert shown <= on_table
        assert views(g, range(g.n)) == [view(g, seat) for seat in range(g.n)]
        for seat in range(g.n):
            v = view(g, seat)
            assert {f: getattr(v, f) for f in PublicView.__dataclass_fields__} == {
                f: getattr(pv, f) for f in PublicView.__dataclass_fields__
            }


def test_seat_view_lists_the_bids_and_blind_it_may_make() -> None:
    g = new_game({"preset": "classic", "blind_nil": "chicago", "bid_sum": "club"})
    deal(g, DEAL)
    act(g, 5, 5)
    v = view(g, 2)
    assert v.bids_allowed == tuple(range(4)) and v.may_blind and v.blind_possible
    assert view(g, 3).bids_allowed == () and not view(g, 3).may_blind


def test_last_trick_pairs_seats_with_cards() -> None:
    g = new_game("classic")
    deal(g, DEAL)
    act(g, 3, 3, 3, 3)
    assert public_view(g).last_trick is None
    act(g, "2C", "5C", "8C", "JC")
    pairs, winner = public_view(g).last_trick or ((), -1)
    assert [(s, card_str(c)) for s, c in pairs] == [(0, "2C"), (1, "5C"), (2, "8C"), (3, "JC")]
    assert winner == 3


# ------------------------------------------------------------ score sheet
def test_bid_made_and_partner() -> None:
    assert [partner(4, s) for s in range(4)] == [2, 3, 0, 1]
    assert partner(3, 0) is None and partner(6, 5) is None
    g = new_game("classic")
    deal(g, DEAL)
    act(g, 0, 4, 5, 5)  # seat 0 nil, its partner (2) bids 5; seats 1 and 3 bid 4 + 5
    rng = random.Random(1)
    while g.phase != "deal" and not g.finished:
        g.apply_action(rng.choice(g.legal_actions()))
    line = g.sheet[-1]
    assert bid_made(4, line, 0) == (line["tricks"][0] == 0)
    for seat in (1, 2, 3):
        side = line["sides"][seat % 2]
        assert bid_made(4, line, seat) == (side["taken"] >= side["contract"])
