"""«Мастер»: determinized search valued by the game, not by the hand.

Every decision (a card, a bid, nil or blind nil, a card of the club
exchange) is made the same way: imagine deals of the unseen cards that agree
with the table (``worlds``), try each candidate on each deal, let the rule
player finish the hand (``rollout``), score the hand by the rules, and value
the score state it leaves by the chance to win the game (``winprob``). The
candidate with the best weighted mean wins, unless it beats the rule
player's choice by less than a standard error.

Valuing by the game is what plays the score: ahead, a set costs more than a
bag gains; behind, only risks that can still win are worth anything; at nine
bags a bag costs a hundred while setting the opponents costs them as much;
a side about to reach the target is worth stopping at any price.

The amount of work is a fixed number of simulated card plays derived from the
budget, never read from the clock, so a view and a seed give one decision;
the clock only stops a search that runs far over (``clock.Deadline``).
"""

from __future__ import annotations

import math
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

# Simulated card plays per millisecond of budget on the reference 2-core machine
# (measured by counting the rollouts' plays against the deciding thread's CPU time).
PLAYS_PER_MS = 380
MIN_WORLDS = 12
MAX_WORLDS = 800
WORLD_COST = 16  # dealing and weighing an imagined deal costs ~ this many plays
WEIGH_COST = 1  # a replayed card (weighing a world by the plays seen) costs ~ this many plays
WIN_SCALE = 1000.0  # utility of a won game
POINT_WEIGHT = 0.02  # per point of the hand: breaks ties once the game is decided
BID_WINDOW = 2  # bids tried around the rule estimate
NIL_TRY = 2.5  # nil is tried for hands whose rule-player nil risk is below this
NIL_BELIEF = 0.85  # a nil made in a rollout, when bidding it
BID_BUDGET = 2  # a bid decides the whole hand: this many budgets of a card
EXCHANGE_TRIED = 6  # cards tried for each pass of the club exchange
PRIOR_Z = 1.0  # how sure the search must be to overrule the rule player
KEEP = 3  # candidates that go on after the first worlds
PRUNE_AT = 0.34  # of the worlds, when the others are dropped
LOOK = -1  # not an action: "look at the cards, then bid" against blind nil


@dataclass(frozen=True, slots=True)
class Scored:
    """A candidate's weighted means over the imagined deals."""

    action: int
    utility: float  # WIN_SCALE × win chance + POINT_WEIGHT × points
    win: float  # the side's chance to win the game after this hand
    points: float  # the hand's points, own side minus the others' mean
    samples: tuple[float, ...] = ()  # the utility on each world tried, in order


class Valuer:
    """The value of a finished imagined hand for one side.

    ``doubt``: a seat whose nil, made in a rollout, is only believed with
    probability ``NIL_BELIEF`` (else it takes one trick, from its partner if
    the partner took any, else from the side that took most). Rollouts defend
    against a nil with the rule player's habits; real opponents who search
    break more nils, and a bid must not count on their mistakes.
    """

    def __init__(self, side: int, doubt: int = -1) -> None:
        self.side = side
        self.doubt = doubt
        self._cache: dict[tuple[tuple[int, ...], tuple[int, ...], bool], float] = {}
        # One search values hands from one score state: the same bids, blind
        # calls and tricks always score the same, and they repeat across deals.
        self._hands: dict[tuple[tuple[int | None, ...], ...], tuple[float, float]] = {}

    def __call__(self, g: Game, tricks: list[int]) -> tuple[float, float]:
        """(chance to win the game, hand points) after the hand ``g`` ends with ``tricks``."""
        s = self.doubt
        if s < 0 or g.bids[s] != 0 or tricks[s]:
            return self._value(g, tricks)
        broken = list(tricks)
        partner = (s + 2) % 4 if g.n == 4 else -1
        donor = (
            partner if partner >= 0 and tricks[partner] else max(range(g.n), key=tricks.__getitem__)
        )
        broken[donor] -= 1
        broken[s] += 1
        w1, p1 = self._value(g, tricks)
        w0, p0 = self._value(g, broken)
        q = NIL_BELIEF
        return q * w1 + (1 - q) * w0, q * p1 + (1 - q) * p0

    def _value(self, g: Game, tricks: list[int]) -> tuple[float, float]:
        hand = (tuple(g.bids), tuple(g.blind), tuple(tricks))
        got = self._hands.get(hand)
        if got is None:
            got = self._hands[hand] = self._score(g, tricks)
        return got

    def _score(self, g: Game, tricks: list[int]) -> tuple[float, float]:
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
    keep: tuple[int, ...] = (),
) -> list[Scored]:
    """Each candidate on each world, the hand finished by the rule player.

    With more than ``KEEP`` candidates, the first ``PRUNE_AT`` of the worlds
    pick the ``KEEP`` most promising (and those in ``keep``), and only they
    go on: the work goes where the choice is close.
    """
    wins = dict.fromkeys(cands, 0.0)
    pts = dict.fromkeys(cands, 0.0)
    mass = dict.fromkeys(cands, 0.0)
    samples: dict[int, list[float]] = {a: [] for a in cands}
    live = list(cands)
    cut = int(len(worlds) * PRUNE_AT) if len(cands) > KEEP else -1
    for i, world in enumerate(worlds):
        if i == cut:
            ranked = sorted(live, key=lambda a: -(WIN_SCALE * wins[a] + POINT_WEIGHT * pts[a]))
            live = ranked[:KEEP] + [a for a in keep if a in ranked[KEEP:]]
        wt = world.weight
        for a in live:
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
            mass[a] += wt
            samples[a].append(WIN_SCALE * w + POINT_WEIGHT * p)
        if deadline.passed():
            break
    out = []
    for a in cands:
        total = mass[a] or 1.0
        w, p = wins[a] / total, pts[a] / total
        out.append(Scored(a, WIN_SCALE * w + POINT_WEIGHT * p, w, p, tuple(samples[a])))
    # A candidate dropped early must not win on the few worlds it was tried on.
    if len(live) < len(cands):
        floor = min(s.utility for s in out if s.action in live)
        out = [
            s
            if s.action in live
            else Scored(s.action, min(s.utility, floor - 1.0), s.win, s.points, s.samples)
            for s in out
        ]
    return out


def effective_candidates(count: int) -> float:
    """Candidates tried per world on average, with the pruning of ``evaluate``."""
    if count <= KEEP:
        return float(count)
    return count * PRUNE_AT + KEEP * (1 - PRUNE_AT)


def best(scored: list[Scored] | tuple[Scored, ...], prior: int) -> int:
    """The best candidate, unless it beats the rule player's choice by less than
    ``PRIOR_Z`` standard errors (paired over the same worlds): a few dozen
    imagined deals are noisy, and the rule player's habits are sound."""
    top = max(scored, key=lambda s: (s.utility, -s.action))
    base = next((s for s in scored if s.action == prior), None)
    if base is None or top.action == prior:
        return top.action
    n = min(len(top.samples), len(base.samples))
    if n < 2:
        return top.action
    diffs = [top.samples[i] - base.samples[i] for i in range(n)]
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    if top.utility - base.utility > PRIOR_Z * math.sqrt(var / n):
        return top.action
    return prior


def world_count(cost_per_world: float, budget_ms: int) -> int:
    work = int(budget_ms * PLAYS_PER_MS / max(1.0, cost_per_world + WORLD_COST))
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
    cost = effective_candidates(len(cands)) * sum(v.hand_counts) + WEIGH_COST * played
    worlds = sample_worlds(v, rng, world_count(cost, budget_ms), deadline=deadline)
    if not worlds:
        return [Scored(a, 0.0, 0.0, 0.0) for a in cands], cands[0]
    prior = policy.choose_card(worlds[0].game, v.seat)
    keep = (prior,) if extra is None else (prior, extra)
    return evaluate(cands, worlds, Valuer(me_side(v)), deadline, keep=keep), prior


# --------------------------------------------------------------- bidding
def bid_candidates(v: View, rule_bid: int, nil_risk: float) -> list[int]:
    """Bids near the rule estimate, the rule bid itself, and nil where allowed
    and the hand is not plainly unfit for it (``nil_risk`` of the rule player)."""
    nums = [a for a in v.legal if a != BLIND]
    base = rule_bid if rule_bid != BLIND else BID
    out = {a for a in nums if a > BID and abs(a - base) <= BID_WINDOW}
    if BID in nums and (nil_risk < NIL_TRY or rule_bid == BID):
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
    g0 = worlds[0].game
    prior = policy.choose_bid(g0, v.seat, blind_ok=False)
    cands = bid_candidates(v, prior, policy.nil_risk(g0.hands[v.seat], v.players))
    if extra is not None and extra not in cands and extra != BLIND:
        cands.append(extra)
    if len(cands) == 1:
        return [Scored(cands[0], 0.0, 0.0, 0.0)], prior
    cost = effective_candidates(len(cands)) * (sum(v.hand_counts) + v.players)
    worlds = sample_worlds(v, rng, world_count(cost, BID_BUDGET * budget_ms), deadline=deadline)
    keep = (prior,) if extra is None else (prior, extra)
    value = Valuer(me_side(v), doubt=v.seat)
    return evaluate(cands, worlds, value, deadline, keep=keep), prior


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

    value = Valuer(me_side(v), doubt=v.seat)
    blind, seen = evaluate([BLIND, LOOK], worlds, value, deadline, act)
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
    cost = effective_candidates(len(cands)) * (sum(v.hand_counts) + 4)
    worlds = sample_worlds(v, rng, world_count(cost, budget_ms), deadline=deadline)
    keep = (order[0],) if extra is None else (order[0], extra)
    return evaluate(cands, worlds, Valuer(me_side(v)), deadline, keep=keep), order[0]


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
