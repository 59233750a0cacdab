"""«Мастер»: determinized Monte Carlo search over deals consistent with the view.

For each sampled world (the hidden hands imagined so that they agree with the
played cards, the shown voids, the exchange and, softly, the bids) every
candidate action is tried and the hand is played out by the rule policy on
the engine's fast path; the action with the best mean outcome (score
difference, nils and bags included, plus a bonus for winning the game) wins.

The amount of work is a fixed number of simulated card plays derived from the
budget, never from the clock, so the same view and seed give the same
decision; the clock only stops a search that runs far over (a loaded machine).
"""

from __future__ import annotations

import math
import random
import time

from engine.ai import policy
from engine.ai.knowledge import Knowledge, build_game, knowledge, sample_hands
from engine.game import BID, BIDDING, BLIND, EXCHANGE, PLAY, Game
from engine.scoring import decide_end, score_hand
from engine.view import View

# Simulated card plays per millisecond of budget on the reference 2-core machine.
PLAYS_PER_MS = 100
MIN_WORLDS = 10
MAX_WORLDS = 120
WIN_BONUS = 300.0
BAG_COST = 4.0  # latent cost of a bag that has not yet reached the penalty


def _accept_prob(k: Knowledge, hands: list[int], v: View) -> float:
    """How well the imagined hands explain the bids already made (soft evidence)."""
    p = 1.0
    for s in k.hidden_seats():
        b = v.bids[s]
        if b is None or v.blind[s]:
            continue
        h = hands[s] | k.played_by[s]
        if b == 0:
            r = policy.nil_risk(h, k.n)
            if r > 1.2:
                p *= math.exp(-(r - 1.2) * 0.8)
        else:
            e = policy.estimate_tricks(h, k.n)
            p *= math.exp(-((e - b) ** 2) / 4.5)
    return p


def sample_worlds(
    v: View, rng: random.Random, count: int, deadline: float = math.inf, tries: int = 6
) -> list[Game]:
    """``count`` imagined full states (fewer only past the deadline, or for a bad view)."""
    k = knowledge(v)
    worlds: list[Game] = []
    for _ in range(count):
        if worlds and time.perf_counter() > deadline:
            break
        best: list[int] | None = None
        best_p = -1.0
        for _t in range(tries):
            hands = sample_hands(k, rng)
            if hands is None:
                break
            p = _accept_prob(k, hands, v)
            if p > best_p:
                best, best_p = hands, p
            if rng.random() < p:
                best = hands
                break
        if best is None:
            break
        worlds.append(build_game(v, best))
    return worlds


def play_to_end(g: Game) -> list[int]:
    """Play the hand out with the rule policy; the final tricks per seat.

    Stops before the last card and scores by hand: the engine's own hand end
    builds the score sheet, which costs more than the whole playout.
    """
    last_trick = g.hand_size - 1
    n1 = g.n - 1
    choose_card = policy.choose_card
    while True:
        p = g.phase
        if p == PLAY:
            if len(g.trick) == n1 and len(g.tricks) == last_trick:
                seat = g.to_move
                c = g.hands[seat].bit_length() - 1
                w, ws = g.win_card, g.win_seat
                if (c // 13 == w // 13 and c > w) or (c // 13 == 3 and w // 13 != 3):
                    ws = seat
                tw = list(g.tricks_won)
                tw[ws] += 1
                return tw
            g.play_unchecked(choose_card(g, g.to_move))
        elif p == BIDDING:
            g.apply_action(policy.choose_bid(g, g.to_move))
        elif p == EXCHANGE:
            g.apply_action(policy.choose_exchange(g, g.to_move))
        else:
            return list(g.tricks_won)


def utility(g: Game, me: int, tricks: list[int]) -> float:
    """Score difference of the hand for ``me``'s side (nils, bags and game end included)."""
    n = g.n
    bids = [b or 0 for b in g.bids]
    res = score_hand(g.rules, bids, g.blind, tricks, g.bags, g.totals)
    d = [r.score for r in res]
    u = float(d[me] - d[1 - me]) if n == 4 else d[me] - (sum(d) - d[me]) / (n - 1)
    if g.rules.bag_penalty:
        for i, r in enumerate(res):
            u += (-BAG_COST if i == me else BAG_COST / max(1, len(res) - 1)) * r.bags_new
    winner, _tie = decide_end(g.rules, [r.total for r in res], g.tiebreak)
    if winner is not None:
        u += WIN_BONUS if winner == me else -WIN_BONUS
    return u


def candidates(v: View, k: Knowledge) -> list[int]:
    """Legal cards, one per run of equivalent cards (nothing unplayed between them)."""
    out: list[int] = []
    prev = -1
    known = k.hand | k.played
    for c in sorted(v.legal):
        if prev >= 0 and prev // 13 == c // 13:
            between = ((1 << c) - 1) & ~((2 << prev) - 1)
            if not between & ~known:
                prev = c
                continue
        out.append(c)
        prev = c
    return out


def _worlds_for(cost_per_world: int, budget_ms: int) -> int:
    return max(MIN_WORLDS, min(MAX_WORLDS, budget_ms * PLAYS_PER_MS // max(1, cost_per_world)))


def _run(
    v: View,
    cands: list[int],
    worlds: list[Game],
    prior: int,
    deadline: float,
) -> int:
    me = v.seat % 2 if v.players == 4 else v.seat
    sums = dict.fromkeys(cands, 0.0)
    done = 0
    for w in worlds:
        for a in cands:
            g = w.copy()
            if a < BID:
                g.play_unchecked(a)
            else:
                g.apply_action(a)
            tricks = play_to_end(g)
            sums[a] += utility(g, me, tricks)
        done += 1
        if time.perf_counter() > deadline:
            break
    # A small preference for the rule player's choice breaks near-ties sensibly.
    return max(cands, key=lambda a: (sums[a] / max(1, done) + (1.0 if a == prior else 0.0), -a))


def search_play(v: View, rng: random.Random, budget_ms: int, cap_s: float) -> int:
    k = knowledge(v)
    cands = candidates(v, k)
    if len(cands) == 1:
        return cands[0]
    deadline = time.perf_counter() + cap_s
    cost = len(cands) * sum(v.hand_counts)
    worlds = sample_worlds(v, rng, _worlds_for(cost, budget_ms), deadline)
    if not worlds:
        return cands[0]
    prior = policy.choose_card(worlds[0], v.seat)
    return _run(v, cands, worlds, prior, deadline)


def search_bid(v: View, rng: random.Random, budget_ms: int, cap_s: float) -> int:
    deadline = time.perf_counter() + cap_s
    worlds = sample_worlds(v, rng, 1)
    if not worlds:
        return v.legal[0]
    g0 = worlds[0]
    if BLIND in v.legal and policy.want_blind(g0, v.seat):
        return BLIND
    prior = policy.choose_bid(g0, v.seat)
    if prior == BLIND:
        return BLIND
    allowed = {a for a in v.legal if a != BLIND}
    base = prior - BID
    cands = [BID + b for b in (base - 1, base, base + 1) if BID + b in allowed and b > 0]
    if BID in allowed and not v.rules.bicycle:
        risk = policy.nil_risk(g0.hands[v.seat], v.players)
        if risk < 2.5 or prior == BID:
            cands.append(BID)
    if prior not in cands:
        cands.append(prior)
    cands = sorted(set(cands))
    if len(cands) == 1:
        return cands[0]
    # A bid decides the whole hand: twice the budget of a card.
    cost = len(cands) * (sum(v.hand_counts) + v.players)
    worlds = sample_worlds(v, rng, _worlds_for(cost, 2 * budget_ms), deadline)
    return _run(v, cands, worlds, prior, deadline)
