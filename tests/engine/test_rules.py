"""Rules of play: bidding and its restrictions, blind nil and the club exchange,
following suit, breaking spades, trick winners, dealers, 3/5/6 players, the end
of the game, rule-set validation and every error code (state unchanged)."""

from __future__ import annotations

import json
from typing import Any

import pytest
import reference as ref
import spades_scenarios as sc

from engine.errors import EngineError
from engine.game import Game, apply
from engine.replay import ReplayError, replay
from engine.rules import Rules
from engine.view import view

# A fixed 4-player deal (seat: cards) used by the play tests; dealer 3, so seat 0 leads.
DEAL = [
    ["AS", "KS", "QS", "JS", "TS", "9S", "AH", "KH", "2C", "3C", "4C", "2D", "3D"],
    ["8S", "7S", "QH", "JH", "TH", "9H", "5C", "6C", "7C", "4D", "5D", "6D", "7D"],
    ["6S", "5S", "4S", "8H", "7H", "6H", "5H", "8C", "9C", "TC", "8D", "9D", "TD"],
    ["3S", "2S", "4H", "3H", "2H", "JC", "QC", "KC", "AC", "JD", "QD", "KD", "AD"],
]


def new_game(
    rules: Any = "classic",
    n: int = 4,
    dealer: int = 3,
    totals: list[int] | None = None,
    bags: list[int] | None = None,
) -> Game:
    """A game before its first deal; totals/bags set through the serialised form."""
    g = Game(Rules.from_json(rules, n), None, dealer % n)
    if totals is not None or bags is not None:
        d = json.loads(json.dumps(g.to_dict()))
        if totals is not None:
            d["totals"] = totals
        if bags is not None:
            d["bags"] = bags
        g = Game.from_dict(d)
    return g


def deal(g: Game, cards: list[list[str]]) -> None:
    g.deal([[sc.card_to_int(c) for c in h] for h in cards])


def act(g: Game, *actions: Any) -> None:
    for a in actions:
        g.apply_action(sc.ref_to_eng(a))


def legal(g: Game) -> list[Any]:
    return [sc.eng_to_ref(a) for a in g.legal_actions()]


def bids_of(g: Game) -> list[int]:
    return [a for a in legal(g) if a != "blind"]


def snapshot(g: Game) -> str:
    return json.dumps(g.to_dict(), sort_keys=True)


def assert_refused(
    g: Game, action: Any, code: str, seat: int | None = None, raw: bool = False
) -> None:
    """The action (bid number, "blind", card; or an engine int if ``raw``) raises
    ``code`` and the state is exactly as before."""
    before = snapshot(g)
    with pytest.raises(EngineError) as err:
        g.apply_action(action if raw else sc.ref_to_eng(action), seat)
    assert err.value.code == code
    assert snapshot(g) == before


def ready_to_play(rules: Any = "classic", bids: tuple = (3, 3, 3, 3)) -> Game:
    g = new_game(rules)
    deal(g, DEAL)
    act(g, *bids)
    assert g.phase == "play"
    return g


def hand_record(n: int, dealer: int, bids: list[Any], tricks: list[int]) -> dict:
    d, plays = sc.constructed_hand(n, dealer, tricks)
    return {"deal": d, "bids": sc.in_bidding_order(n, dealer, bids), "plays": plays}


# ================================================================= bidding
@pytest.mark.parametrize("n", [3, 4, 5, 6])
@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_bidding_and_first_lead_start_left_of_the_dealer(n: int, dealer: int) -> None:
    g = new_game("classic", n, dealer % n)
    cards = sc.constructed_hand(n, dealer % n, [ref.hand_size(n)] + [0] * (n - 1))[0]
    deal(g, cards)
    seats = []
    while g.phase == "bid":
        seats.append(g.to_move)
        act(g, 1)
    assert seats == [(dealer + 1 + i) % n for i in range(n)]
    assert g.phase == "play" and g.to_move == (dealer + 1) % n


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_dealer_passes_left_each_hand(n: int) -> None:
    rec, _ = sc.random_ref_game("classic", n, seed=n, max_hands=5)
    out = replay(rec, trace=True)
    first = rec["first_dealer"]
    for k, h in enumerate(out["hands"]):
        left = (first + k + 1) % n
        assert h["steps"][0]["seat"] == left  # first bidder
        assert h["steps"][n]["seat"] == left  # first leader
        assert [s["seat"] for s in h["steps"][:n]] == [(left + i) % n for i in range(n)]


def test_seeded_game_dealer_rotates() -> None:
    g = Game(Rules.from_json("classic"), 12345)
    first = g.dealer
    for k in range(1, 4):
        while g.hand_no < k:
            g.apply_action(g.legal_actions()[0])
        assert g.dealer == (first + k) % 4
        assert g.to_move == (first + k + 1) % 4


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_free_bids_are_zero_to_hand_size(n: int) -> None:
    g = new_game("classic", n)
    deal(g, sc.constructed_hand(n, 3 % n, [ref.hand_size(n)] + [0] * (n - 1))[0])
    hs = ref.hand_size(n)
    assert legal(g) == list(range(hs + 1))
    if hs + 1 <= 17:  # the engine's bid actions stop at 17
        assert_refused(g, hs + 1, "bid_out_of_range")
    d = sc.constructed_hand(n, 0, [hs] + [0] * (n - 1))[0]
    for bad in (hs + 1, -1, 99):
        with pytest.raises(ReplayError) as err:
            replay(sc.record("classic", n, 0, [{"deal": d, "bids": [1, bad], "plays": []}]))
        assert (err.value.hand, err.value.step, err.value.code) == (0, 1, "bid_out_of_range")


def test_club_sum_cap_limits_the_last_bidders() -> None:
    g = new_game({"preset": "classic", "bid_sum": "club"})
    deal(g, DEAL)
    assert bids_of(g) == list(range(14))
    act(g, 6)
    assert bids_of(g) == list(range(8))
    act(g, 5)
    assert bids_of(g) == [0, 1, 2]
    assert_refused(g, 3, "bid_not_allowed")
    act(g, 0)  # nil counts 0 (reading 1)
    assert bids_of(g) == [0, 1, 2]
    act(g, 2)  # 13 exactly is allowed
    assert g.phase == "play"


def test_club_sum_cap_with_three_players_is_17() -> None:
    g = new_game({"preset": "classic", "bid_sum": "club"}, 3)
    deal(g, sc.constructed_hand(3, 3 % 3, [17, 0, 0])[0])
    act(g, 10, 5)
    assert bids_of(g) == [0, 1, 2]


def test_club_preset_has_the_cap() -> None:
    g = new_game("club")
    deal(g, DEAL)
    act(g, 13)
    assert bids_of(g) == [0]
    assert_refused(g, 1, "bid_not_allowed")


def test_no_hell_last_bidder_may_not_make_13() -> None:
    # seed 004: 3, 4 and 3 bid: the last may bid 2 or 4 but not 3
    g = new_game({"preset": "classic", "bid_sum": "no_hell"})
    deal(g, DEAL)
    assert bids_of(g) == list(range(14))
    act(g, 3, 4)
    assert bids_of(g) == list(range(14))  # only the last bidder is limited
    act(g, 3)
    assert 3 not in bids_of(g) and {2, 4} <= set(bids_of(g))
    assert_refused(g, 3, "bid_not_allowed")
    act(g, 4)
    assert g.phase == "play"


def test_no_hell_nil_counts_zero() -> None:
    g = new_game({"preset": "classic", "bid_sum": "no_hell", "blind_nil": "chicago"})
    deal(g, DEAL)
    act(g, 6, 7, 0)
    assert 0 not in bids_of(g) and "blind" not in legal(g)  # nil would make it 13
    assert_refused(g, 0, "nil_not_allowed")
    assert_refused(g, "blind", "blind_not_allowed")
    act(g, 1)


@pytest.mark.parametrize("n", [3, 5, 6])
def test_no_hell_with_individual_games_uses_the_hand_size(n: int) -> None:
    hs = ref.hand_size(n)
    g = new_game({"preset": "classic", "bid_sum": "no_hell"}, n)
    deal(g, sc.constructed_hand(n, 3 % n, [hs] + [0] * (n - 1))[0])
    act(g, *([1] * (n - 1)))
    assert hs - (n - 1) not in bids_of(g)
    assert len(bids_of(g)) == hs


def test_suicide_bids() -> None:
    g = new_game({"preset": "classic", "suicide": True})
    deal(g, DEAL)
    first = [0, *range(4, 14)]
    assert bids_of(g) == first  # seat 0: partner not bid yet
    assert_refused(g, 3, "bid_not_allowed")
    act(g, 5)  # seat 0 bids 5 → seat 2 must bid nil
    assert bids_of(g) == first  # seat 1
    act(g, 0)  # seat 1 nil → seat 3 may bid nil or ≥ 4
    assert bids_of(g) == [0]  # seat 2
    assert_refused(g, 4, "bid_not_allowed")
    act(g, 0)
    assert bids_of(g) == first  # seat 3
    assert_refused(g, 2, "bid_not_allowed")
    act(g, 0)  # double nil is fine
    assert g.phase == "play"


def test_suicide_blind_nil_is_a_nil() -> None:
    g = new_game({"preset": "classic", "suicide": True, "blind_nil": "chicago"})
    deal(g, DEAL)
    act(g, "blind")
    assert bids_of(g) == [0, *range(4, 14)]
    act(g, 4)  # seat 1
    assert bids_of(g) == [0, *range(4, 14)]  # seat 2, partner of the blind nil
    act(g, 4)
    assert legal(g) == [0, "blind"]  # seat 3: partner bid 4, so nil; a blind nil is a nil
    assert_refused(g, 4, "bid_not_allowed")


def test_bicycle_has_no_nil() -> None:
    g = new_game({"preset": "classic", "bicycle": True})
    deal(g, DEAL)
    assert legal(g) == list(range(1, 14))
    assert_refused(g, 0, "nil_not_allowed")
    assert_refused(g, "blind", "blind_not_allowed")


def test_bicycle_with_no_hell() -> None:
    g = new_game({"preset": "classic", "bicycle": True, "bid_sum": "no_hell"})
    deal(g, DEAL)
    act(g, 4, 4, 3)
    assert legal(g) == [1, *range(3, 14)]
    assert_refused(g, 2, "bid_not_allowed")


# ================================================================= blind nil
def test_blind_nil_off_by_default() -> None:
    g = new_game()
    deal(g, DEAL)
    assert "blind" not in legal(g)
    assert_refused(g, "blind", "blind_not_allowed")


def test_chicago_blind_nil_anyone_no_exchange() -> None:
    g = new_game({"preset": "classic", "blind_nil": "chicago"}, totals=[300, 0])
    deal(g, DEAL)
    for _ in range(4):
        assert "blind" in legal(g)  # the leading team too, both partners
        act(g, "blind")
    assert g.phase == "play"  # no exchange
    assert [g.hand_cards(s) for s in range(4)] == [
        sorted(sc.card_to_int(c) for c in h) for h in DEAL
    ]


@pytest.mark.parametrize("n", [3, 5, 6])
def test_chicago_blind_nil_with_individual_games(n: int) -> None:
    g = new_game({"preset": "classic", "blind_nil": "chicago"}, n)
    deal(g, sc.constructed_hand(n, 3 % n, [ref.hand_size(n)] + [0] * (n - 1))[0])
    assert "blind" in legal(g)
    act(g, "blind")
    assert g.blind[(3 + 1) % n]


@pytest.mark.parametrize(
    ("totals", "allowed"),
    [
        ([0, 0], [False, False]),
        ([0, 99], [False, False]),
        ([0, 100], [True, False]),  # at least 100 behind
        ([-150, 50], [True, False]),
        ([250, 100], [False, True]),
        ([100, 0], [False, True]),
    ],
)
def test_club_blind_nil_needs_100_behind(totals: list[int], allowed: list[bool]) -> None:
    for first in range(4):
        g = new_game("club", dealer=(first - 1) % 4, totals=totals)
        deal(g, DEAL)
        assert g.to_move == first
        assert ("blind" in legal(g)) == allowed[first % 2], (totals, first)
        if not allowed[first % 2]:
            assert_refused(g, "blind", "blind_not_allowed")


def test_club_blind_nil_one_per_team() -> None:
    g = new_game("club", totals=[0, 200])
    deal(g, DEAL)
    act(g, "blind")  # seat 0
    assert "blind" not in legal(g)  # seat 1: the leading team
    act(g, 3)
    assert "blind" not in legal(g) and 0 in legal(g)  # seat 2: partner already blind; nil is fine
    assert_refused(g, "blind", "blind_not_allowed")


def test_club_blind_nil_exchange() -> None:
    g = new_game("club", totals=[0, 200])
    deal(g, DEAL)
    act(g, 3, 3, "blind", 3)  # seat 2 (team 0, 200 behind) blind nil
    assert g.phase == "exchange"
    hands = {s: list(DEAL[s]) for s in range(4)}
    # the declarer passes first: any two of its cards
    assert g.to_move == 2
    assert sorted(legal(g)) == sorted(hands[2])
    assert_refused(g, "AS", "card_not_in_hand")
    act(g, "6S")
    assert g.to_move == 2 and "6S" not in legal(g)
    for seat in (0, 1, 3):  # a half-chosen pass is nobody else's business
        assert "6S" not in json.dumps(view(g, seat).to_dict())
    assert view(g, 2).to_dict()["picking"] == ["6S"]
    assert_refused(g, "6S", "card_not_in_hand")  # the same card twice
    act(g, "TD")
    # then the partner passes two back, with the received cards in hand
    assert g.to_move == 0 and g.phase == "exchange"
    assert sorted(legal(g)) == sorted(hands[0] + ["6S", "TD"])
    act(g, "AH", "KH")
    assert g.phase == "play" and g.to_move == 0  # left of the dealer leads
    assert sorted(sc.int_to_card(c) for c in g.hand_cards(2)) == sorted(
        [c for c in hands[2] if c not in ("6S", "TD")] + ["AH", "KH"]
    )
    assert sorted(sc.int_to_card(c) for c in g.hand_cards(0)) == sorted(
        [c for c in hands[0] if c not in ("AH", "KH")] + ["6S", "TD"]
    )
    # opponents do not see the passed cards; the partners do
    for seat in (1, 3):
        assert view(g, seat).to_dict()["exchanges"] == []
    for seat in (0, 2):
        assert len(view(g, seat).to_dict()["exchanges"]) == 2


def test_club_blind_nil_through_a_record() -> None:
    """Hand 1 puts team 0 131 behind; hand 2: seat 0 blind nil, the exchange, ±200."""
    h1 = hand_record(4, 3, [2, 6, 1, 4], [1, 6, 1, 5])  # team 0: 3 take 2 → −30; team 1: 101
    post, plays = sc.constructed_hand(4, 0, [0, 5, 4, 4])  # hand 2, dealer 0: seat 1 leads
    x = [c for c in post[2] if c not in post[0]][:2]  # cards seat 0 passes to seat 2
    y = [c for c in post[0]][:2]  # cards seat 2 passes back
    pre = [list(h) for h in post]
    pre[0] = [c for c in post[0] if c not in y] + x
    pre[2] = [c for c in post[2] if c not in x] + y
    bids = {1: 3, 2: 4, 3: 3, 0: "blind"}
    h2 = {
        "deal": pre,
        "bids": [bids[s] for s in (1, 2, 3, 0)],
        "exchange": [{"from": 0, "cards": x}, {"from": 2, "cards": y}],
        "plays": plays,
    }
    rec = sc.record("club", 4, 3, [h1, h2])
    out = replay(rec, trace=True)
    assert out["hands"][0]["totals"] == [-30, 101]
    assert out["hands"][1]["tricks"] == [0, 5, 4, 4]
    assert out["hands"][1]["score"] == [200 + 40, 60 + 3]
    steps = out["hands"][1]["steps"]
    assert len(steps) == 4 + 52  # the exchange is not a step
    assert "blind" in steps[3]["legal"] and steps[3]["action"] == "blind"
    assert out == ref.run_record(rec, trace=True) | {"hands": out["hands"]}
    # the exchange is required, in order, two cards each
    for broken, code in [
        ({k: v for k, v in h2.items() if k != "exchange"}, "bad_exchange"),
        ({**h2, "exchange": h2["exchange"][::-1]}, "bad_exchange"),
        ({**h2, "exchange": [{"from": 0, "cards": x + y[:1]}, h2["exchange"][1]]}, "bad_exchange"),
        (
            {**h2, "exchange": [{"from": 0, "cards": [y[0], x[0]]}, h2["exchange"][1]]},
            "card_not_in_hand",
        ),
    ]:
        with pytest.raises(ReplayError) as err:
            replay(sc.record("club", 4, 3, [h1, broken]))
        assert (err.value.hand, err.value.step, err.value.code) == (1, 4, code)
    with pytest.raises(ReplayError) as err:
        replay(sc.record("club", 4, 3, [{**h1, "exchange": h2["exchange"]}]))
    assert (err.value.hand, err.value.code) == (0, "bad_exchange")
    # after the exchange, steps go on counting plays only (reading 13)
    for k, card in ((0, post[3][0]), (5, plays[0])):  # seat 3's card; a card already played
        bad_play = {**h2, "plays": [*plays[:k], card]}
        with pytest.raises(ReplayError) as err:
            replay(sc.record("club", 4, 3, [h1, bad_play]))
        assert (err.value.hand, err.value.step, err.value.code) == (1, 4 + k, "card_not_in_hand")


# ================================================================= play
def test_follow_suit() -> None:
    g = ready_to_play()
    act(g, "AH")  # seat 0 leads hearts
    assert sorted(legal(g)) == sorted(["QH", "JH", "TH", "9H"])  # seat 1 must follow
    assert_refused(g, "8S", "must_follow_suit")
    assert_refused(g, "5C", "must_follow_suit")
    act(g, "9H")  # not obliged to beat
    act(g, "5H", "2H")
    assert g.tricks[-1][2] == 0 and g.to_move == 0  # the winner leads
    act(g, "KH", "TH", "6H", "3H")  # seat 0 wins again, now void in hearts
    act(g, "2C", "5C", "8C", "AC")  # seat 3 wins with the ace
    assert g.to_move == 3
    act(g, "4H")  # seat 3 leads hearts; seat 0 is void and may play anything
    assert sorted(legal(g)) == sorted(["AS", "KS", "QS", "JS", "TS", "9S", "3C", "4C", "2D", "3D"])
    discard = apply(g, sc.card_to_int("2D"))  # trumping is not obligatory
    for c in ("JH", "7H"):
        discard.apply_action(sc.card_to_int(c))
    assert discard.tricks[-1][2] == 1  # JH wins: an off-suit card never does
    act(g, "9S", "JH", "7H")  # trumping is allowed too, and the spade wins
    assert g.tricks[-1][2] == 0


def test_over_trumping_is_not_obligatory() -> None:
    g = ready_to_play()
    act(g, "2C", "5C", "8C", "AC")  # seat 3 wins
    act(g, "KC", "3C", "6C", "9C")  # seat 3 wins
    act(g, "QC", "4C", "7C", "TC")  # seat 3 wins; seats 0, 1 and 2 are void in clubs
    act(g, "JC", "9S")  # seat 0 trumps
    assert {"7S", "8S", "4D", "QH"} <= set(legal(g))  # seat 1: under-trump, over-trump, discard
    assert len(legal(g)) == 10
    act(g, "7S", "5H")
    assert g.tricks[-1][2] == 0


def test_spades_not_broken_and_broken_by_a_discard() -> None:
    g = ready_to_play()
    assert "AS" not in legal(g)
    assert_refused(g, "AS", "spades_not_broken")
    assert not view(g, 0).spades_broken
    act(g, "2C", "5C", "8C", "AC")  # seat 3 wins
    assert "3S" not in legal(g)
    assert_refused(g, "3S", "spades_not_broken")
    act(g, "JD", "2D", "4D", "8D")
    act(g, "QD", "3D", "5D", "9D")
    act(g, "KD", "9S", "6D", "TD")  # seat 0 trumps a diamond lead: spades broken
    assert view(g, 1).spades_broken
    assert g.to_move == 0 and "AS" in legal(g)
    act(g, "AS")  # leading spades is now fine


def test_leader_with_only_spades_may_lead_them() -> None:
    g = new_game()
    deal(g, sc.sweep_deal(4, 0))  # seat 0 holds all 13 spades and leads
    act(g, 1, 1, 1, 1)
    assert sorted(legal(g)) == sorted(r + "S" for r in ref.RANKS)
    act(g, "2S")
    assert view(g, 1).spades_broken  # that lead breaks them too


def test_spade_on_the_first_trick_is_allowed() -> None:
    g = new_game()
    deal(g, sc.sweep_deal(4, 1))  # seat 1 has only spades
    act(g, 1, 1, 1, 1)
    lead = legal(g)[0]
    act(g, lead)
    assert sorted(legal(g)) == sorted(r + "S" for r in ref.RANKS)
    act(g, "2S")


def test_spades_unbroken_at_the_start_of_each_hand() -> None:
    # hand 1 breaks spades; in hand 2 the leader (seat 1) may not lead a spade
    h1 = hand_record(4, 3, [3, 3, 3, 3], [4, 3, 3, 3])
    d2 = DEAL[3:] + DEAL[:3]  # seat 1 now holds DEAL[0]: spades and other suits
    h2 = {"deal": d2, "bids": [1, 1, 1, 1], "plays": ["AS"]}
    assert "AS" in d2[1]
    with pytest.raises(ReplayError) as err:
        replay(sc.record("classic", 4, 3, [h1, h2]))
    assert (err.value.hand, err.value.step, err.value.code) == (1, 4, "spades_not_broken")


@pytest.mark.parametrize(
    ("cards", "winner"),
    [
        (["AH", "2H", "KH", "QH"], 0),
        (["2H", "AH", "KH", "QH"], 1),
        (["2H", "AC", "AD", "3H"], 3),  # off-suit aces never win
        (["AH", "2S", "KH", "QH"], 1),  # the smallest spade beats the ace
        (["AH", "2S", "3S", "QH"], 2),
        (["KC", "2C", "AC", "3S"], 3),
        (["KC", "QC", "AC", "JC"], 2),
        (["9D", "TD", "2S", "KD"], 2),
    ],
)
def test_trick_winner(cards: list[str], winner: int) -> None:
    assert ref.trick_winner(cards) == winner
    # the engine on a real trick: seats 0..3 hold these cards, seat 0 leads
    rest = [c for c in ref.deck(4) if c not in cards]
    spades_left = [c for c in rest if c[1] == "S"]
    others = [c for c in rest if c[1] != "S"]
    hands = [[cards[s]] for s in range(4)]
    # give each seat 12 more cards so that nobody can follow except as in ``cards``
    led = cards[0][1]
    pool = spades_left + others
    for s in range(4):
        forbidden = set() if cards[s][1] == led else {led}
        while len(hands[s]) < 13:
            c = next(c for c in pool if c[1] not in forbidden)
            pool.remove(c)
            hands[s].append(c)
    assert sorted(c for h in hands for c in h) == sorted(ref.deck(4))
    g = new_game()
    deal(g, hands)
    act(g, 1, 1, 1, 1)
    act(g, *cards)
    assert g.tricks[-1][2] == winner


# ================================================================= 3/5/6 players
@pytest.mark.parametrize(
    ("n", "size", "dropped", "hand"),
    [
        (3, 51, {"2C"}, 17),
        (4, 52, set(), 13),
        (5, 50, {"2C", "2D"}, 10),
        (6, 48, {"2C", "2D", "2H", "2S"}, 8),
    ],
)
def test_decks_and_hand_sizes(n: int, size: int, dropped: set[str], hand: int) -> None:
    g = Game(Rules.from_json("classic", n), 7)
    dealt = [[sc.int_to_card(c) for c in h] for h in g.dealt]
    assert len(dealt) == n and all(len(h) == hand for h in dealt)
    cards = [c for h in dealt for c in h]
    assert len(cards) == len(set(cards)) == size
    assert not dropped & set(cards)
    assert g.hand_size == hand
    # a deal holding a dropped card, or of the wrong size, is refused
    if dropped:
        bad = [list(h) for h in dealt]
        bad[0][0] = next(iter(dropped))
        g2 = new_game("classic", n)
        before = snapshot(g2)
        with pytest.raises(EngineError) as err:
            deal(g2, bad)
        assert err.value.code == "bad_deal" and snapshot(g2) == before
    g3 = new_game("classic", n)
    with pytest.raises(EngineError) as err:
        deal(g3, [h[:-1] for h in dealt])
    assert err.value.code == "bad_deal"


@pytest.mark.parametrize(
    ("n", "winner", "rules", "bid"),
    [
        (3, 2, "classic", 17),  # 170 a hand
        (5, 4, "classic", 10),  # 100 a hand
        (6, 5, {"preset": "classic", "big_bid_bonus": True}, 8),  # 80 + 20 a hand
    ],
)
def test_individual_game_winner_is_a_seat(n: int, winner: int, rules: Any, bid: int) -> None:
    hs = ref.hand_size(n)
    hands = []
    dealer = 0
    for k in range(6):
        d = (dealer + k) % n
        bids = [1] * n
        bids[winner] = bid
        tricks = [0] * n
        tricks[winner] = hs
        hands.append(hand_record(n, d, bids, tricks))
    rec = sc.record(rules, n, dealer, hands)
    with pytest.raises(ReplayError) as err:  # the game ends before the last hand
        replay(rec)
    assert err.value.code == "game_over"
    per_hand = 10 * bid + (20 if n == 6 else 0)
    needed = -(-500 // per_hand)
    rec["hands"] = hands[:needed]
    out = replay(rec)
    assert out["finished"] is True and out["winner"] == winner
    assert out["hands"][-1]["totals"][winner] == needed * per_hand
    assert all(len(h["totals"]) == n for h in out["hands"])
    assert out == ref.run_record(rec)
    rec["hands"] = hands[: needed - 1]
    assert replay(rec)["finished"] is False


# ================================================================= end of game
def sweep_hand(dealer: int, sweeper: int, bids_by_seat: list[int]) -> dict:
    d = sc.sweep_deal(4, sweeper)
    return {
        "deal": d,
        "bids": sc.in_bidding_order(4, dealer, bids_by_seat),
        "plays": sc.lowest_play(4, dealer, d),
    }


def test_tie_plays_on_until_totals_differ_even_below_target() -> None:
    plan = [  # (sweeper, bids by seat) → totals after the hand
        (0, [13, 0, 0, 0]),  # 230 / 200
        (1, [0, 13, 4, 0]),  # 60 / 230 → 290 / 430
        (0, [13, 0, 0, 1]),  # 230 / 90 → 520 / 520: tie at ≥ 500
        (0, [0, 6, 3, 7]),  # −130 / −130 → 390 / 390: still tied, below 500
        (0, [0, 6, 3, 6]),  # −130 / −120 → 260 / 270: team 1 wins below the target
    ]
    hands = [sweep_hand((3 + k) % 4, s, b) for k, (s, b) in enumerate(plan)]
    expected = [[230, 200], [290, 430], [520, 520], [390, 390], [260, 270]]
    for k in range(1, len(plan) + 1):
        out = replay(sc.record("classic", 4, 3, hands[:k]))
        assert [h["totals"] for h in out["hands"]] == expected[:k]
        assert out["finished"] is (k == 5)
        assert out["winner"] == (1 if k == 5 else None)
    assert ref.run_record(sc.record("classic", 4, 3, hands))["winner"] == 1


def test_higher_total_wins_when_both_reach_the_target() -> None:
    g = new_game(totals=[450, 480])
    deal(g, sc.sweep_deal(4, 0))
    act(g, 0, 0, 13, 0)  # seat 0 nil fails, seat 2 bids 13 fails, team 1 two nils: +200
    # team 0: −100 − 130 = −230 → 220; team 1: 680
    for c in sc.lowest_play(4, 3, sc.sweep_deal(4, 0)):
        act(g, c)
    assert g.finished and g.winner == 1 and g.totals == [220, 680]

    g = new_game(totals=[400, 470])
    deal(g, sc.sweep_deal(4, 0))
    act(g, 13, 0, 0, 0)  # team 0: +230 → 630; team 1: +200 → 670
    for c in sc.lowest_play(4, 3, sc.sweep_deal(4, 0)):
        act(g, c)
    assert g.finished and g.winner == 1


@pytest.mark.parametrize("target", [500, 1000, 1500, 2000])
def test_every_target(target: int) -> None:
    rules = {"preset": "classic", "target": target}
    for start, done in ((target - 130, True), (target - 131, False)):
        g = new_game(rules, totals=[start, 0])
        deal(g, sc.sweep_deal(4, 0))
        act(g, 12, 0, 1, 0)  # team 0: contract 13 made exactly: +130; team 1: +200
        for c in sc.lowest_play(4, 3, sc.sweep_deal(4, 0)):
            act(g, c)
        assert g.finished is done, (target, start)
        assert g.winner == (0 if done else None)
        if not done:
            assert g.phase == "deal" and g.hand_no == 1 and g.dealer == 0


def floor_hand(rules: Any, partner_bid: int) -> dict:
    out = replay(sc.record(rules, 4, 3, [sweep_hand(3, 0, [0, 1, partner_bid, 1])]))
    return out


def test_losing_floor() -> None:
    # seat 0 nil fails (−100), seat 2 fails its bid; team 1 fails 2: −20
    out = floor_hand("club", 10)  # −200: at the floor, loses at once
    assert out["hands"][0]["totals"] == [-200, -20]
    assert out["finished"] is True and out["winner"] == 1
    out = floor_hand("club", 9)  # −190: plays on
    assert out["finished"] is False
    out = floor_hand({"preset": "classic", "losing_floor": -200}, 10)
    assert out["winner"] == 1
    out = floor_hand("classic", 10)  # no floor in classic
    assert out["finished"] is False and out["hands"][0]["totals"] == [-200, -20]


def test_losing_floor_in_an_individual_game() -> None:
    rules = {"preset": "classic", "losing_floor": -200}
    hs = ref.hand_size(3)
    h = hand_record(3, 0, [0, 16, 1], [1, hs - 1, 0])  # seat 0 −100, seat 1 +160, seat 2 −10
    out = replay(sc.record(rules, 3, 0, [h, hand_record(3, 1, [0, 1, 16], [1, 0, hs - 1])]))
    # seat 0 at −200 after the second hand: the single highest total wins
    assert out["hands"][-1]["totals"] == [-200, 150, 150]
    assert out["finished"] is False  # shared top: another hand
    h3 = hand_record(3, 2, [1, 2, 1], [1, 2, hs - 3])
    out = replay(sc.record(rules, 3, 0, [h, hand_record(3, 1, [0, 1, 16], [1, 0, hs - 1]), h3]))
    assert out["finished"] is True and out["winner"] == 1


@pytest.mark.parametrize(
    ("rules", "totals", "tiebreak", "expected"),
    [
        ("classic", [499, 499], False, (None, False)),
        ("classic", [500, 499], False, (0, False)),
        ("classic", [500, 500], False, (None, True)),
        ("classic", [300, 200], True, (0, False)),  # tie-break decides below the target
        ("classic", [300, 300], True, (None, True)),
        ("classic", [-500, 100], False, (None, False)),
        ("club", [-200, -250], False, (0, False)),  # at or below the floor: highest wins
        ("club", [-250, -250], False, (None, True)),
        ("club", [-199, 100], False, (None, False)),
    ],
)
def test_game_end_reading_9(rules: str, totals: list[int], tiebreak: bool, expected: tuple) -> None:
    from engine.scoring import decide_end

    assert ref.game_end(ref.make_rules(rules), totals, tiebreak) == expected
    assert decide_end(Rules.from_json(rules), totals, tiebreak) == expected


def test_no_action_after_the_game() -> None:
    g = new_game(totals=[490, 0])
    deal(g, sc.sweep_deal(4, 0))
    act(g, 13, 0, 0, 0)
    for c in sc.lowest_play(4, 3, sc.sweep_deal(4, 0)):
        act(g, c)
    assert g.finished
    for a in (1, "2C", "blind"):
        assert_refused(g, a, "game_over")
    assert g.legal_actions() == []


# ================================================================= validation
BAD_COMBINATIONS = [  # reading 12 of docs/rules.md
    ({"preset": "classic", "suicide": True}, 3),
    ({"preset": "classic", "suicide": True}, 5),
    ({"preset": "classic", "suicide": True}, 6),
    ({"preset": "classic", "blind_nil": "club"}, 3),
    ({"preset": "classic", "blind_nil": "club"}, 5),
    ({"preset": "classic", "blind_nil": "club"}, 6),
    ("club", 3),
    ("club", 5),
    ("club", 6),
    ({"preset": "classic", "bicycle": True, "blind_nil": "chicago"}, 4),
    ({"preset": "classic", "bicycle": True, "blind_nil": "club"}, 4),
    ({"preset": "classic", "bicycle": True, "suicide": True}, 4),
    ({"preset": "classic", "bicycle": True, "quicksand": True}, 4),
    ({"preset": "classic", "bicycle": True, "bid_sum": "club"}, 4),
    ({"preset": "club", "bicycle": True}, 4),
    ({"preset": "classic", "bicycle": True, "bid_sum": "club"}, 3),
    ({"preset": "classic", "suicide": True, "bid_sum": "no_hell"}, 4),
]
BAD_VALUES = [
    {"target": 600},
    {"target": "500"},
    {"target": True},
    {"target": None},
    {"losing_floor": -100},
    {"losing_floor": 0},
    {"losing_floor": "-200"},
    {"failed_nil": "partner"},
    {"failed_nil": None},
    {"blind_nil": True},
    {"blind_nil": "on"},
    {"bid_sum": "cap"},
    {"bid_sum": 13},
    {"exact_bonus": 1},
    {"quicksand": "true"},
    {"bag_penalty": None},
    {"jokers": True},  # unknown option
    {"preset": "chicago"},  # unknown preset
    {"preset": ["classic"]},
]
GOOD_COMBINATIONS = [
    ({"preset": "classic", "bicycle": True, "bid_sum": "no_hell"}, 4),
    ({"preset": "classic", "bicycle": True, "bag_penalty": False}, 3),
    ({"preset": "classic", "suicide": True, "bid_sum": "club", "blind_nil": "chicago"}, 4),
    ({"preset": "club", "blind_nil": "chicago"}, 5),
    ({"preset": "classic", "exact_bonus": True}, 6),
    ({"preset": "classic", "bag_penalty": False, "quicksand": True}, 4),
    ({"preset": "club", "losing_floor": None, "bid_sum": "free", "blind_nil": "off"}, 4),
]


@pytest.mark.parametrize(("rules", "n"), BAD_COMBINATIONS)
def test_bad_combinations_are_refused(rules: Any, n: int) -> None:
    with pytest.raises(ref.RefError):
        ref.make_rules(rules, n)
    with pytest.raises(EngineError) as err:
        Rules.from_json(rules, n)
    assert err.value.code == "bad_rules"
    with pytest.raises(ReplayError) as rerr:
        replay({"rules": rules, "players": n, "first_dealer": 0, "hands": []})
    assert (rerr.value.code, rerr.value.hand, rerr.value.step) == ("bad_rules", None, None)


@pytest.mark.parametrize("opts", BAD_VALUES)
def test_bad_values_are_refused(opts: dict) -> None:
    value = {"preset": "classic", **opts}
    with pytest.raises(ref.RefError):
        ref.make_rules(value, 4)
    with pytest.raises(EngineError) as err:
        Rules.from_json(value, 4)
    assert err.value.code == "bad_rules"


@pytest.mark.parametrize("value", [5, ["classic"], "bridge", True])
def test_bad_rule_shapes_are_refused(value: Any) -> None:
    with pytest.raises(EngineError) as err:
        Rules.from_json(value, 4)
    assert err.value.code == "bad_rules"


@pytest.mark.parametrize("n", [2, 7, 0])
def test_bad_player_counts(n: int) -> None:
    with pytest.raises(EngineError) as err:
        Rules.from_json("classic", n)
    assert err.value.code == "bad_rules"


@pytest.mark.parametrize(("rules", "n"), GOOD_COMBINATIONS)
def test_good_combinations_are_accepted(rules: Any, n: int) -> None:
    r = Rules.from_json(rules, n)
    assert ref.Rules(**r.to_dict()) == ref.make_rules(rules, n)


def test_presets() -> None:
    classic = Rules.from_json("classic").to_dict()
    assert classic == {
        "players": 4,
        "target": 500,
        "losing_floor": None,
        "failed_nil": "ignored",
        "blind_nil": "off",
        "bid_sum": "free",
        "exact_bonus": False,
        "big_bid_bonus": False,
        "quicksand": False,
        "suicide": False,
        "bicycle": False,
        "bag_penalty": True,
    }
    club = Rules.from_json("club").to_dict()
    assert club == classic | {"losing_floor": -200, "blind_nil": "club", "bid_sum": "club"}
    assert Rules.from_json({"preset": "club", "target": 1000}).to_dict() == club | {"target": 1000}


# ================================================================= error codes
def test_error_not_your_turn() -> None:
    g = new_game()
    deal(g, DEAL)
    assert_refused(g, 3, "not_your_turn", seat=1)
    g.apply_action(sc.ref_to_eng(3), seat=0)
    act(g, 3, 3, 3)
    assert_refused(g, "AH", "not_your_turn", seat=2)


def test_error_wrong_phase() -> None:
    g = new_game()
    assert_refused(g, 3, "wrong_phase")  # nothing dealt
    deal(g, DEAL)
    with pytest.raises(EngineError) as err:
        deal(g, DEAL)
    assert err.value.code == "wrong_phase"
    assert_refused(g, "2C", "wrong_phase")  # a card while bidding
    act(g, 3, 3, 3, 3)
    assert_refused(g, 3, "wrong_phase")  # a bid while playing


@pytest.mark.parametrize("action", [-1, 72, 1000, True, "AS", None, 3.0])  # 71: CLAIM
def test_error_bad_action(action: Any) -> None:
    g = new_game()
    deal(g, DEAL)
    before = snapshot(g)
    with pytest.raises(EngineError) as err:
        g.apply_action(action)
    assert err.value.code == "bad_action"
    assert snapshot(g) == before


def test_error_card_not_in_hand() -> None:
    g = ready_to_play()
    assert_refused(g, "QH", "card_not_in_hand")  # seat 1's card
    act(g, "AH")
    assert_refused(g, "AH", "card_not_in_hand")  # already played


def test_error_bid_out_of_range() -> None:
    g = new_game("classic", 6)
    deal(g, sc.constructed_hand(6, 3, [8, 0, 0, 0, 0, 0])[0])
    assert_refused(g, 9, "bid_out_of_range")


def test_errors_leave_value_apply_input_alone() -> None:
    g = ready_to_play()
    before = snapshot(g)
    nxt = apply(g, sc.card_to_int("AH"))
    assert snapshot(g) == before
    assert nxt.trick == [sc.card_to_int("AH")]
    with pytest.raises(EngineError):
        apply(g, sc.card_to_int("AS"))
    assert snapshot(g) == before


def test_bad_record_first_dealer() -> None:
    with pytest.raises(EngineError) as err:
        Game(Rules.from_json("classic"), None, 4)
    assert err.value.code == "bad_record"
