"""Imagined deals of the unseen cards, weighted by how well they explain the table.

Every deal agrees with the hard facts (cards played, voids shown, the
exchange); its weight says how well it explains the soft ones: each bid made
(against the rule player's trick estimate of the hand it would have been made
from) and each card played by another seat (against the card the rule player
would have played there). Both the master and the arena's PIMC baseline
search over such deals.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from engine.ai import policy
from engine.ai.clock import NEVER, Deadline
from engine.ai.knowledge import Knowledge, build_game, knowledge, sample_hands
from engine.cards import SUIT_MASKS
from engine.game import PLAY, Game
from engine.view import View

BID_SPREAD = 1.6  # a bid this far from the estimate weighs e^-1/2
NIL_RISK_OK = 1.2  # a nil from a hand riskier than this is doubted
NIL_DOUBT = 0.8
MISPLAY = 0.6  # weight of a card the rule player would not have played


@dataclass(slots=True)
class World:
    """One imagined full state (``game``) and its weight."""

    game: Game
    weight: float


def bid_weight(k: Knowledge, hands: list[int], v: View) -> float:
    """How well the imagined hands explain the bids already made."""
    w = 1.0
    for s in k.hidden_seats():
        b = v.bids[s]
        if b is None or v.blind[s]:
            continue
        h = hands[s] | k.played_by[s]
        if b == 0:
            r = policy.nil_risk(h, k.n)
            if r > NIL_RISK_OK:
                w *= math.exp(-(r - NIL_RISK_OK) * NIL_DOUBT)
        else:
            e = policy.estimate_tricks(h, k.n)
            w *= math.exp(-((e - b) ** 2) / (2 * BID_SPREAD**2))
    return w


def _equivalent(a: int, b: int, hand: int, played: int) -> bool:
    """Two cards of one suit with nothing between them that another seat could hold."""
    if a // 13 != b // 13:
        return False
    lo, hi = min(a, b), max(a, b)
    between = ((1 << hi) - 1) & ~((2 << lo) - 1) & SUIT_MASKS[a // 13]
    return not between & ~(hand | played)


def play_weight(v: View, k: Knowledge, hands: list[int], start: Game) -> float:
    """How well the imagined hands explain the cards the other seats played.

    ``start`` is the imagined state at the first lead; each played card is
    replayed on a copy and compared with the rule player's choice there.
    """
    plays: list[int] = [c for _ld, cs, _w in v.tricks for c in cs]
    plays += [c for _s, c in v.trick]
    if not plays:
        return 1.0
    g = start.copy()
    w = 1.0
    played = 0
    for c in plays:
        seat = g.to_move
        legal = g.legal_play_mask()
        if seat != k.seat and legal & (legal - 1):
            mine = policy.choose_card(g, seat)
            if mine != c and not _equivalent(mine, c, g.hands[seat], played):
                w *= MISPLAY
        played |= 1 << c
        g.play_unchecked(c)
    return w


def start_of_play(v: View, hands: list[int], k: Knowledge) -> Game:
    """The imagined state at the first lead of this hand."""
    start = [hands[s] | k.played_by[s] for s in range(k.n)]
    g = build_game(v, start)
    g.phase = PLAY
    g.trick = []
    g.tricks = []
    g.tricks_won = [0] * k.n
    g.spades_broken = False
    g.win_card = g.win_seat = -1
    g.trick_leader = g.to_move = (v.dealer + 1) % v.players
    return g


def sample_worlds(
    v: View,
    rng: random.Random,
    count: int,
    *,
    plays: bool = True,
    deadline: Deadline = NEVER,
) -> list[World]:
    """``count`` weighted worlds (fewer only past ``deadline`` or for a bad view).

    ``plays``: also weigh the cards played (costs a replay of the hand per world).
    """
    k = knowledge(v)
    weigh_plays = plays and v.phase == PLAY and bool(v.tricks or v.trick)
    out: list[World] = []
    for _ in range(count):
        if out and deadline.passed():
            break
        hands = sample_hands(k, rng)
        if hands is None:
            break
        w = bid_weight(k, hands, v)
        if weigh_plays:
            w *= play_weight(v, k, hands, start_of_play(v, hands, k))
        out.append(World(build_game(v, hands), w))
    total = sum(x.weight for x in out)
    if out and total <= 0.0:
        for x in out:
            x.weight = 1.0
    return out


__all__ = ["World", "bid_weight", "play_weight", "sample_worlds"]
