"""Claiming the rest of a hand: the exact check against a brute force of its
own (every card of every seat, counting tricks), the node limit, nil and
individual games, and the CLAIM action in the game and the replay format."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from claim_judge import brute, brute_holds, observed_brute
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine import CLAIM, EngineError, Game, Rules
from engine.ai.knowledge import knowledge, sample_hands
from engine.cards import cards_of
from engine.cards import parse_card as card
from engine.claim import NODE_LIMIT, check_claim, claim_possible, takers, tricks_left
from engine.game import BID, PLAY
from engine.replay import record_of, replay
from engine.view import view

ROOT = Path(__file__).resolve().parents[2]


def endgame(rng: random.Random, players: int, left: int, nils: bool) -> Game:
    """A real game's position: random bids (nil allowed or not), random play
    until ``left`` tricks remain, then a random part of the next trick."""
    g = Game(Rules(players=players), rng.randrange(1 << 30))
    while g.phase != PLAY:
        bids = [a for a in g.legal_actions() if BID <= a < BID + 18]
        if not nils and len(bids) > 1:
            bids = [a for a in bids if a != BID]
        elif nils and BID in bids and rng.random() < 0.5:
            bids = [BID]
        g.apply_action(rng.choice(bids))
    while tricks_left(g) > left:
        g.apply_action(rng.choice(g.legal_actions()))
    for _ in range(rng.randrange(players)):
        g.apply_action(rng.choice(g.legal_actions()))
    return g


@pytest.mark.parametrize(
    ("players", "left", "nils", "count"),
    [
        (4, 2, False, 300),
        (4, 3, False, 80),
        (4, 3, True, 80),
        (3, 4, False, 80),
        (5, 2, True, 200),
    ],
)
def test_exact_against_the_claimers_knowledge(
    players: int, left: int, nils: bool, count: int
) -> None:
    """The check against the plain search over every layout the claimer
    cannot rule out; and whatever it proves holds on the real cards too."""
    rng = random.Random(players * 100 + left * 10 + nils)
    outcomes = {True: 0, False: 0}
    for _ in range(count):
        g = endgame(rng, players, left, nils)
        seat = g.to_move
        got = check_claim(g, seat)
        want = observed_brute(g, seat)
        assert got.holds is want, (g.to_dict(), seat)
        if want:
            assert brute_holds(g, seat), (g.to_dict(), seat)
        outcomes[want] += 1
    # Both answers must be exercised, or the comparison proves little.
    assert outcomes[True] >= count // 40 and outcomes[False] >= count // 40, outcomes


def test_nil_partner_makes_it_the_claimers_alone() -> None:
    rng = random.Random(7)
    seen_nil = 0
    for _ in range(200):
        g = endgame(rng, 4, 3, True)
        seat = g.to_move
        mate = (seat + 2) % 4
        if g.bids[seat] == 0 or g.bids[mate] == 0:
            seen_nil += 1
            assert takers(g, seat) == (seat,)
        else:
            assert takers(g, seat) == (seat, mate)
    assert seen_nil > 20


def first_trick_with_partners_ace(bids: tuple[int, int, int, int]) -> Game:
    """Seat 0 holds every spade but the two and the two of clubs; seat 1
    leads the king of clubs, seat 2 (the partner) takes it with the ace, seat
    3 follows: seat 0 must follow with its club, and after that whatever the
    partner leads, seat 0's spades take it."""
    deal = {0: [*range(40, 52), card("2C")], 1: [card("KC")], 2: [card("AC")], 3: [card("3C")]}
    rest = [c for c in range(52) if all(c not in h for h in deal.values())]
    for s in (1, 2, 3):
        deal[s] += rest[(s - 1) * 12 : s * 12]
    g = Game(Rules(), None, 0)  # seat 1 leads
    g.deal([sorted(deal[s]) for s in range(4)])
    for bid in bids:
        g.apply_action(BID + bid)
    for c in ("KC", "AC", "3C"):
        g.apply_action(card(c))
    return g


def test_a_nil_on_the_side_makes_the_partners_tricks_no_claim() -> None:
    """The partner takes the first trick whatever the cards, then seat 0's
    spades take the rest: the side's claim, proved; with a nil on the side
    the claim is seat 0's alone, and the partner's trick breaks it."""
    g = first_trick_with_partners_ace((3, 3, 3, 3))
    assert takers(g, 0) == (0, 2)
    assert check_claim(g, 0).holds is True
    g2 = first_trick_with_partners_ace((3, 0, 3, 3))  # seat 1 bids first, seat 2 nil
    assert takers(g2, 0) == (0,)
    assert check_claim(g2, 0).holds is False


# ------------------------------------------- judged on the claimer's knowledge

# North (seat 0) leads the last three tricks with J♠ J♣ 5♣; the same ten
# tricks were played before, and the other nine cards lie in one of two ways
# North cannot tell apart (nobody has shown out of anything that would tell).
_JACKS_HISTORY = (
    "6C 7C TC KC KD JH 2S 6S 7S AS",
    "AC 4D 7D JD QD 2H 7H AH 4S 8S",
    "QC 3D 5D 8D 9H TH QH KH TS QS",
    "8C 6D 9D TD 4H 5H 6H 8H 5S KS",
)
_JACKS_PLAYS = (
    "QD 8D 6D KD KC AC QC 8C JD 3D 9D 7C AH KH 8H JH 2H 9H 4H 6S"
    " 2S 4S TS 5S 5D TD 6C 4D KS 7S 8S QS 5H TC 7H QH TH 6H AS 7D"
)
# Only leading J♠ takes all three: E 9♠ 2♦ 2♣, S 9♣ 4♣ 3♣, W 3♠ A♦ 3♥.
SPADE_FIRST = ("JS JC 5C", "9S 2D 2C", "9C 4C 3C", "3S AD 3H")
# Only leading a club takes all three: E 4♣ 3♠ 3♣, S A♦ 3♥ 9♠, W 2♦ 2♣ 9♣.
CLUB_FIRST = ("JS JC 5C", "4C 3S 3C", "AD 3H 9S", "2D 2C 9C")


def cards(text: str) -> list[int]:
    return [card(x) for x in text.split()]


def jacks(last: tuple[str, ...]) -> Game:
    g = Game(Rules(), None, 0)
    g.deal([sorted(cards(_JACKS_HISTORY[s]) + cards(last[s])) for s in range(4)])
    for _ in range(4):
        g.apply_action(BID + 3)
    for c in _JACKS_PLAYS.split():
        g.apply_action(card(c))
    return g


def lead_works(g: Game, lead: str) -> bool:
    """On the real cards, with ``lead`` first, North's side takes all three."""
    h = [g.hand_cards(s) for s in range(4)]
    h[0].remove(card(lead))
    both = frozenset((0, 2))
    return brute(h, 1, [card(lead)], 0, g.spades_broken, both, both) == 3


@pytest.mark.parametrize("last", [SPADE_FIRST, CLUB_FIRST], ids=["spade-first", "club-first"])
def test_a_guess_is_no_proof(last: tuple[str, ...]) -> None:
    """Either layout, a right lead takes every trick on the real cards, and a
    check over all four hands "proved" both; but the right lead differs, and
    North cannot see which layout it is: not proved, the opponents vote."""
    g = jacks(last)
    assert g.to_move == 0 and tricks_left(g) == 3
    assert sorted(g.hand_cards(0)) == sorted(cards("JS JC 5C"))
    spade, club = lead_works(g, "JS"), lead_works(g, "JC") or lead_works(g, "5C")
    assert (spade, club) == ((True, False) if last is SPADE_FIRST else (False, True))
    assert brute_holds(g, 0)  # the real cards would allow it
    assert check_claim(g, 0).holds is False
    assert view(g, 0).to_dict() == view(jacks(SPADE_FIRST), 0).to_dict()


def test_top_trumps_stay_proved() -> None:
    """A true claim, whoever holds the rest: the top spades."""
    g = jacks(("JS 9S 3S", "JC 2D 2C", "9C 4C 3C", "5C AD 3H"))
    assert check_claim(g, 0).holds is True


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**30),
    players=st.sampled_from([3, 4, 5]),
    left=st.integers(2, 6),
    nils=st.booleans(),
)
def test_layouts_that_look_the_same_get_the_same_answer(
    seed: int, players: int, left: int, nils: bool
) -> None:
    """Deal the cards the claimer cannot see again at random (each seat its
    number of cards, none of a suit it has shown out of: the computer
    player's sampler), keep the deals under which the same play was legal:
    the claimer's view is the same, and so must the check be, to the node."""
    rng = random.Random(seed)
    g = endgame(rng, players, left, nils)
    seat = g.to_move
    facts = knowledge(view(g, seat))
    want = check_claim(g, seat)
    tried = 0
    for _ in range(8):
        hands = sample_hands(facts, rng)
        assert hands is not None
        deal = [sorted(cards_of(h) + played_cards(g, s)) for s, h in enumerate(hands)]
        other = Game(g.rules, None, g.first_dealer)
        other.deal(deal)
        for a in g.actions:
            other.apply_action(a)  # the same play is legal on this deal
        tried += other.hands != g.hands
        assert view(other, seat).to_dict() == view(g, seat).to_dict()
        assert check_claim(other, seat) == want
    assume(tried > 0)  # some other deal looked the same (a forced one proves nothing)


def played_cards(g: Game, seat: int) -> list[int]:
    out = []
    for leader, cs, _ in g.tricks:
        out += [c for i, c in enumerate(cs) if (leader + i) % g.n == seat]
    out += [c for i, c in enumerate(g.trick) if (g.trick_leader + i) % g.n == seat]
    return out


def test_a_full_hand_of_top_cards_is_proved_within_the_limit() -> None:
    g = Game(Rules(), None, 3)
    spades = list(range(39, 52))
    g.deal([spades, list(range(0, 13)), list(range(13, 26)), list(range(26, 39))])
    for _ in range(4):
        g.apply_action(BID + 3)
    # Spades may not be led yet, but a hand of nothing else leads them.
    got = check_claim(g, 0)
    assert got.holds is True and got.nodes < NODE_LIMIT


def test_the_node_limit_gives_not_proved() -> None:
    rng = random.Random(3)
    undecided = 0
    for _ in range(50):
        g = endgame(rng, 4, 8, False)
        # Where people claim, the limit decides every claim...
        assert check_claim(g, g.to_move).holds is not None
        # ...and a tiny one leaves some undecided: not proved, never "holds".
        got = check_claim(g, g.to_move, node_limit=20)
        assert got.holds in (None, False)
        if got.holds is None:
            undecided += 1
            assert got.nodes == 21
    assert undecided > 0


def test_no_claim_with_one_trick_left_or_out_of_turn() -> None:
    rng = random.Random(11)
    g = endgame(rng, 4, 1, False)
    seat = g.to_move
    assert not claim_possible(g, seat)
    assert check_claim(g, seat).holds is False
    with pytest.raises(EngineError) as e:
        g.concede_claim()
    assert e.value.code == "claim_not_allowed"
    g = endgame(rng, 4, 5, False)
    assert not claim_possible(g, (g.to_move + 1) % 4)


def test_claim_action_ends_the_hand_as_played_out() -> None:
    rng = random.Random(5)
    g = endgame(rng, 4, 4, False)
    seat = g.to_move
    won = list(g.tricks_won)
    hand_no = g.hand_no
    before = g.to_dict()
    with pytest.raises(EngineError) as e:  # a claim is no move of its own
        g.apply_action(CLAIM, seat)
    assert e.value.code == "claim_not_conceded" and g.to_dict() == before
    with pytest.raises(EngineError) as e:
        g.concede_claim((seat + 1) % 4)
    assert e.value.code == "not_your_turn" and g.to_dict() == before
    g.concede_claim(seat)
    assert g.hand_no == hand_no + 1 or g.finished
    line = g.sheet[-1]
    expect = list(won)
    expect[seat] += 4
    assert line["tricks"] == expect
    assert g.actions[-1] == CLAIM


def test_claim_is_refused_while_bidding() -> None:
    g = Game(Rules(), 3)
    with pytest.raises(EngineError) as e:
        g.concede_claim()
    assert e.value.code == "wrong_phase"
    assert g.actions == []


def test_replay_format_round_trip_with_a_claim(tmp_path: Path) -> None:
    rng = random.Random(9)
    g = endgame(rng, 4, 6, False)
    g.replay_action(CLAIM)
    rec = record_of(g)
    assert rec["hands"][0]["plays"][-1] == "claim"
    out = replay(rec)
    assert out["hands"][0]["tricks"] == g.sheet[0]["tricks"]
    # The command line reads it too, and a card after the claim is refused.
    f = tmp_path / "r.json"
    f.write_text(json.dumps(rec))
    proc = subprocess.run(
        [sys.executable, "-m", "engine", "replay", str(f)],
        capture_output=True,
        cwd=ROOT,
        timeout=60,
    )
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["hands"][0]["tricks"] == g.sheet[0]["tricks"]
    bad = json.loads(json.dumps(rec))
    bad["hands"] = bad["hands"][:1]
    bad["hands"][0]["plays"].append("2C")
    with pytest.raises(Exception) as err:
        replay(bad)
    assert "too many cards" in str(err.value) or "game_over" in str(err.value)
