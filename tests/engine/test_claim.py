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

from engine import CLAIM, EngineError, Game, Rules
from engine.claim import NODE_LIMIT, check_claim, claim_possible, takers, tricks_left
from engine.game import BID, PLAY
from engine.replay import record_of, replay

ROOT = Path(__file__).resolve().parents[2]


# ------------------------------------------------------------ brute force
def _legal(hand: list[int], trick: list[int], broken: bool) -> list[int]:
    if trick:
        follow = [c for c in hand if c // 13 == trick[0] // 13]
        return follow or hand
    if not broken:
        side = [c for c in hand if c < 39]
        return side or hand
    return hand


def _winner(trick: list[int], leader: int, n: int) -> int:
    best = 0
    for i, c in enumerate(trick):
        b = trick[best]
        if (c // 13 == b // 13 and c > b) or (c >= 39 and b < 39):
            best = i
    return (leader + best) % n


def brute(
    hands: list[list[int]],
    seat: int,
    trick: list[int],
    leader: int,
    broken: bool,
    maxi: frozenset[int],
    wanted: frozenset[int],
) -> int:
    """Tricks of ``wanted`` still to come with ``maxi`` maximising them and
    everyone else minimising: every legal card of every seat, no shortcut."""
    n = len(hands)
    if not trick and not hands[seat]:
        return 0
    values = []
    for c in _legal(hands[seat], trick, broken):
        rest = [list(h) for h in hands]
        rest[seat].remove(c)
        t = [*trick, c]
        b = broken or c >= 39
        if len(t) == n:
            w = _winner(t, leader, n)
            values.append((w in wanted) + brute(rest, w, [], w, b, maxi, wanted))
        else:
            values.append(brute(rest, (seat + 1) % n, t, leader, b, maxi, wanted))
    return max(values) if seat in maxi else min(values)


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


def brute_holds(g: Game, seat: int) -> bool:
    mate = (seat + 2) % 4 if g.n == 4 else None
    maxi = frozenset((seat,) if mate is None else (seat, mate))
    hands = [g.hand_cards(s) for s in range(g.n)]
    got = brute(
        hands,
        g.to_move,
        list(g.trick),
        g.trick_leader,
        g.spades_broken,
        maxi,
        frozenset(takers(g, seat)),
    )
    return got == tricks_left(g)


@pytest.mark.parametrize(
    ("players", "left", "nils", "count"),
    [
        (4, 2, False, 300),
        (4, 3, False, 200),
        (4, 3, True, 200),
        (3, 4, False, 40),
        (5, 2, False, 200),
        (5, 3, False, 60),
    ],
)
def test_exact_against_brute_force(players: int, left: int, nils: bool, count: int) -> None:
    rng = random.Random(players * 100 + left * 10 + nils)
    outcomes = {True: 0, False: 0}
    for _ in range(count):
        g = endgame(rng, players, left, nils)
        seat = g.to_move
        got = check_claim(g, seat)
        want = brute_holds(g, seat)
        assert got.holds is want, (g.to_dict(), seat)
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


def test_a_nil_on_the_side_makes_the_partners_tricks_no_claim() -> None:
    """The side's cards take every trick (the partner ruffs, then leads its
    spades): a side's claim, but with the partner's nil no claim of the
    claimer's alone."""
    g = Game(Rules(), None, 3)
    # Seat 0 leads. Seat 2 holds the top spades, seat 0 low hearts only.
    c = {s: [] for s in range(4)}
    spades = list(range(39, 52))
    c[2] = spades[-13:]
    hearts = list(range(26, 39))
    c[0] = hearts
    rest = list(range(26))
    c[1], c[3] = rest[:13], rest[13:]
    g.deal([sorted(c[s]) for s in range(4)])
    for bid in (3, 0, 13, 3):  # seat 0: 3, seat 1: nil, seat 2: 13, seat 3: 3
        g.apply_action(BID + bid)
    assert takers(g, 0) == (0, 2)
    assert check_claim(g, 0).holds is True
    g2 = Game(Rules(), None, 3)
    g2.deal([sorted(c[s]) for s in range(4)])
    for bid in (3, 0, 0, 3):  # now seat 2 is nil: the claim is seat 0's alone
        g2.apply_action(BID + bid)
    assert takers(g2, 0) == (0,)
    assert check_claim(g2, 0).holds is False


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
