"""«Мастер»: determinized search valued by the game, not by the hand.

Every decision (a card, a bid, nil or blind nil, a card of the club
exchange) is made the same way: imagine deals of the unseen cards that agree
with the table (``worlds``), try each candidate on each deal, let the rule
player finish the hand (``rollout``), score the hand by the rules, and value
the score state it leaves by the chance to win the game (``winprob``). The
candidate with the best weighted mean wins.

Valuing by the game is what plays the score: ahead, a set costs more than a
bag gains; behind, only risks that can still win are worth anything; at nine
bags a bag costs a hundred while setting the opponents costs them as much;
a side about to reach the target is worth stopping at any price.

The amount of work is a fixed number of simulated card plays derived from the
budget, never read from the clock, so a view and a seed give one decision;
the clock only stops a search that runs far over (a loaded machine).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from engine.ai import policy
from engine.ai.clock import NEVER, Deadline
from engine.ai.knowledge import Knowledge, build_game, deal_out, knowledge
from engine.ai.rollout import candidate_cards, play_out
from engine.ai.winprob import win_probs
from engine.ai.worlds import World, bid_weight, sample_worlds
from engine.cards import deck, mask_of
from engine.game import BID, BLIND, EXCHANGE, PLAY, Game
from engine.scoring import score_hand, side_of
from engine.view import View

# Simulated card plays per millisecond of budget on the reference 2-core machine.
PLAYS_PER_MS = 100
MIN_WORLDS = 12
MAX_WORLDS = 160
WEIGH_COST = 4  # a replayed card (weighing a world by the plays seen) costs ~ this many plays
WIN_SCALE = 1000.0  # utility of a won game
POINT_WEIGHT = 0.02  # per point of the hand: breaks ties once the game is decided
BID_WINDOW = 2  # bids tried around the rule estimate
EXCHANGE_TRIED = 6  # cards tried for each pass of the club exchange
LOOK = -1  # not an action: "look at the cards, then bid" against blind nil


@dataclass(frozen=True, slots=True)
class Scored:
    """A candidate's weighted means over the imagined deals."""

    action: int
    utility: float  # WIN_SCALE × win chance + POINT_WEIGHT × points
    win: float  # the side's chance to win the game after this hand
    points: float  # the hand's points, own side minus the others' mean


class Valuer:
    """The value of a finished imagined hand for one side."""

    def __init__(self, side: int) -> None:
        self.side = side
        self._cache: dict[tuple[tuple[int, ...], tuple[int, ...], bool], float] = {}

    def __call__(self, g: Game, tricks: list[int]) -> tuple[float, float]:
        """(chance to win the game, hand points) after the hand ``g`` ends with ``tricks``."""
        bids = [b or 0 for b in g.bids]
        res = score_hand(g.rules, bids, g.blind, tricks, g.bags, g.totals)
        me = self.side
        key = (tuple(r.total for r in res), tuple(r.bags for r in res), g.tiebreak)
        w = self._cache.get(key)
        if w is None:
            w = win_probs(g.rules, key[0], key[1], g.tiebreak)[me]
            self._cache[key] = w
        others = sum(r.score for r in res) - res[me].score
        return w, res[me].score - others / (len(res) - 1)


def evaluate(
    cands: list[int],
    worlds: list[World],
    value: Valuer,
    deadline: Deadline = NEVER,
    act: Callable[[Game, int], None] | None = None,
) -> list[Scored]:
    """Each candidate on each world, the hand finished by the rule player."""
    wins = dict.fromkeys(cands, 0.0)
    pts = dict.fromkeys(cands, 0.0)
    total = 0.0
    for world in worlds:
        wt = world.weight
        for a in cands:
            g = world.game.copy()
            if act is not None:
                act(g, a)
            elif g.phase == PLAY:
                g.play_unchecked(a)
            else:
                g.apply_action(a)
            w, p = value(g, play_out(g))
            wins[a] += wt * w
            pts[a] += wt * p
        total += wt
        if deadline.passed():
            break
    total = total or 1.0
    out = []
    for a in cands:
        w, p = wins[a] / total, pts[a] / total
        out.append(Scored(a, WIN_SCALE * w + POINT_WEIGHT * p, w, p))
    return out


def best(scored: list[Scored], prior: int) -> int:
    """The best candidate; the rule player's choice wins near-ties."""
    # 0.05 of a per-mille win chance: only true ties go to the rule player.
    top = max(scored, key=lambda s: (s.utility + (0.05 if s.action == prior else 0.0), -s.action))
    return top.action


def world_count(cost_per_world: int, budget_ms: int) -> int:
    work = budget_ms * PLAYS_PER_MS // max(1, cost_per_world)
    return max(MIN_WORLDS, min(MAX_WORLDS, work))


def me_side(v: View) -> int:
    return side_of(v.players, v.seat)


# ------------------------------------------------------------------- play
def play_candidates(v: View, k: Knowledge | None = None) -> list[int]:
    return candidate_cards(v, k or knowledge(v))


def score_play(
    v: View, rng: random.Random, budget_ms: int, cap_s: float, extra: int | None = None
) -> tuple[list[Scored], int]:
    """Every distinct legal card scored, and the rule player's card (``extra``: a
    card to score as well even if equivalent to another, for the review)."""
    k = knowledge(v)
    cands = play_candidates(v, k)
    if extra is not None and extra not in cands:
        cands.append(extra)
    deadline = Deadline(cap_s)
    played = sum(len(cs) for _l, cs, _w in v.tricks) + len(v.trick)
    cost = len(cands) * sum(v.hand_counts) + WEIGH_COST * played
    worlds = sample_worlds(v, rng, world_count(cost, budget_ms), deadline=deadline)
    if not worlds:
        return [Scored(a, 0.0, 0.0, 0.0) for a in cands], cands[0]
    prior = policy.choose_card(worlds[0].game, v.seat)
    return evaluate(cands, worlds, Valuer(me_side(v)), deadline), prior


# --------------------------------------------------------------- bidding
def bid_candidates(v: View, rule_bid: int) -> list[int]:
    """Bids near the rule estimate, nil where allowed, and the rule bid itself."""
    nums = [a for a in v.legal if a != BLIND]
    base = rule_bid if rule_bid != BLIND else BID
    out = {a for a in nums if a > BID and abs(a - base) <= BID_WINDOW}
    if BID in nums:
        out.add(BID)
    if rule_bid in nums:
        out.add(rule_bid)
    return sorted(out) or nums


def score_bids(
    v: View, rng: random.Random, budget_ms: int, cap_s: float, extra: int | None = None
) -> tuple[list[Scored], int]:
    """The candidate bids scored over shared imagined deals, and the rule bid."""
    deadline = Deadline(cap_s)
    worlds = sample_worlds(v, rng, 1)
    if not worlds:
        return [Scored(a, 0.0, 0.0, 0.0) for a in v.legal], v.legal[0]
    prior = policy.choose_bid(worlds[0].game, v.seat, blind_ok=False)
    cands = bid_candidates(v, prior)
    if extra is not None and extra not in cands and extra != BLIND:
        cands.append(extra)
    if len(cands) == 1:
        return [Scored(cands[0], 0.0, 0.0, 0.0)], prior
    # A bid decides the whole hand: twice the budget of a card.
    cost = len(cands) * (sum(v.hand_counts) + v.players)
    worlds = sample_worlds(v, rng, world_count(cost, 2 * budget_ms), deadline=deadline)
    return evaluate(cands, worlds, Valuer(me_side(v)), deadline), prior


# ------------------------------------------------------------- blind nil
def unseen_worlds(v: View, rng: random.Random, count: int) -> list[World]:
    """Deals in which the own hand is as unknown as the others (blind nil is
    called before looking), weighted by the bids made so far."""
    n = v.players
    caps = {s: v.hand_size for s in range(n)}
    out: list[World] = []
    all_cards = mask_of(deck(n))
    blank = Knowledge(
        seat=-1,
        n=n,
        hand=0,
        played=0,
        unknown=all_cards,
        fixed=[0] * n,
        voids=[0] * n,
        counts=[v.hand_size] * n,
        played_by=[0] * n,
    )
    for _ in range(count):
        got = deal_out(all_cards, caps, [0] * n, rng)
        if got is None:
            break
        hands = [got[s] for s in range(n)]
        out.append(World(build_game(v, hands), bid_weight(blank, hands, v)))
    return out


def score_blind(v: View, rng: random.Random, budget_ms: int, cap_s: float) -> tuple[Scored, Scored]:
    """Blind nil against looking first (then the rule bid), on deals that never
    use the own hand: the choice cannot depend on the cards."""
    deadline = Deadline(cap_s)
    cost = 2 * (sum(v.hand_counts) + v.players)
    worlds = unseen_worlds(v, rng, world_count(cost, budget_ms))
    seat = v.seat

    def act(g: Game, a: int) -> None:
        g.apply_action(BLIND if a == BLIND else policy.choose_bid(g, seat, blind_ok=False))

    blind, seen = evaluate([BLIND, LOOK], worlds, Valuer(me_side(v)), deadline, act)
    return blind, seen


def choose_blind(v: View, rng: random.Random, budget_ms: int, cap_s: float) -> bool:
    blind, seen = score_blind(v, rng, budget_ms, cap_s)
    return blind.utility > seen.utility


# -------------------------------------------------------------- exchange
def score_exchange(
    v: View, rng: random.Random, budget_ms: int, cap_s: float, extra: int | None = None
) -> tuple[list[Scored], int]:
    """Cards to pass in the club blind-nil exchange, the most likely few tried."""
    deadline = Deadline(cap_s)
    worlds = sample_worlds(v, rng, 1)
    if not worlds:
        return [Scored(a, 0.0, 0.0, 0.0) for a in v.legal], v.legal[0]
    order = policy.exchange_order(worlds[0].game, v.seat)
    cands = order[:EXCHANGE_TRIED]
    if extra is not None and extra not in cands:
        cands.append(extra)
    cost = len(cands) * (sum(v.hand_counts) + 4)
    worlds = sample_worlds(v, rng, world_count(cost, budget_ms), deadline=deadline)
    return evaluate(cands, worlds, Valuer(me_side(v)), deadline), order[0]


@dataclass(frozen=True, slots=True)
class Decision:
    """The master's action and what it was chosen from (``scored`` is empty when
    there was nothing to weigh: one candidate, or blind nil)."""

    action: int
    scored: tuple[Scored, ...]
    prior: int  # the rule player's choice


def decide(
    v: View, rng: random.Random, blind_rng: random.Random, budget_ms: int, cap_s: float
) -> Decision:
    """The master's decision for the seat to move (``blind_rng`` must not depend
    on the hand: it seeds the blind-nil call)."""
    if v.phase == PLAY:
        cands = play_candidates(v)
        if len(cands) == 1:
            return Decision(cands[0], (), cands[0])
        scored, prior = score_play(v, rng, budget_ms, cap_s)
    elif v.phase == EXCHANGE:
        scored, prior = score_exchange(v, rng, budget_ms, cap_s)
    else:
        if BLIND in v.legal and choose_blind(v, blind_rng, budget_ms, cap_s):
            return Decision(BLIND, (), BLIND)
        scored, prior = score_bids(v, rng, budget_ms, cap_s)
    return Decision(best(scored, prior), tuple(scored), prior)


__all__ = [
    "Decision",
    "Scored",
    "Valuer",
    "choose_blind",
    "decide",
    "score_bids",
    "score_blind",
    "score_exchange",
    "score_play",
]
