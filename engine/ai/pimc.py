"""The arena's search baseline: perfect-information Monte Carlo (PIMC).

Not a level of the club player: a strong, independent-minded yardstick for
``bench/arena.py`` (player ``pimc``), built the way issue 15 describes the one
the master lost whole games to:

* 24 deals of the unseen cards, weighted by how well they explain the bids
  and the plays seen (``worlds.sample_worlds``);
* every candidate (each distinct card; each bid within three of the rule
  bid, and nil where allowed unless the hand is plainly unfit for it) rolled
  out on each deal with conventional card play (the rule player) to the end
  of the hand;
* scored by the rules for the hand alone, our side's points minus the
  opponents', every bag charged −10 to the side that took it;
* the best mean wins, unless its margin over the conventional choice is
  within one standard error over the deals (24 deals are noisy).

It knows nothing of the game score beyond what the hand's scoring uses (the
bag penalty at ten); blind nil and the club exchange follow the rule player.
Deterministic for a view and seed.
"""

from __future__ import annotations

import random

from engine.ai import policy
from engine.ai.knowledge import any_world, knowledge
from engine.ai.rollout import candidate_cards, play_out
from engine.ai.search import NIL_TRY, Scored, best
from engine.ai.worlds import World, sample_worlds
from engine.game import BID, BIDDING, BLIND, PLAY, Game
from engine.scoring import score_hand, side_of
from engine.view import View

DEALS = 24
BID_WINDOW = 3
BAG_CHARGE = 10.0


def hand_value(g: Game, me: int, tricks: list[int]) -> float:
    """The hand's points for side ``me`` minus the others' (mean), bags at −10."""
    bids = [b or 0 for b in g.bids]
    res = score_hand(g.rules, bids, g.blind, tricks, g.bags, g.totals)
    val = [r.score - BAG_CHARGE * r.bags_new for r in res]
    return val[me] - (sum(val) - val[me]) / (len(val) - 1)


def _best(cands: list[int], worlds: list[World], me: int, prior: int) -> int:
    """The weighted best; insignificant margins over the conventional choice
    (``prior``) go to it, as in the master (``search.best``)."""
    sums = dict.fromkeys(cands, 0.0)
    samples: dict[int, list[float]] = {a: [] for a in cands}
    total = sum(w.weight for w in worlds) or 1.0
    for w in worlds:
        for a in cands:
            g = w.game.copy()
            if g.phase == PLAY:
                g.play_unchecked(a)
            else:
                g.apply_action(a)
            val = hand_value(g, me, play_out(g))
            sums[a] += w.weight * val
            samples[a].append(val)
    scored = [Scored(a, sums[a] / total, 0.0, sums[a] / total, tuple(samples[a])) for a in cands]
    return best(scored, prior)


def bid_candidates(v: View, est_bid: int, nil_risk: float) -> list[int]:
    nums = [a for a in v.legal if a != BLIND]
    out = [a for a in nums if abs(a - est_bid) <= BID_WINDOW and a > BID]
    if BID in nums and (nil_risk < NIL_TRY or est_bid == BID):
        out.append(BID)
    if est_bid in nums:
        out.append(est_bid)
    return sorted(set(out)) or nums


def choose(v: View, seed: int = 0) -> int:
    """The baseline's action for ``v.seat`` (which must be to move)."""
    rng = random.Random(repr((seed, v.seat, v.hand_no, v.phase, v.hand, v.bids, v.tricks, v.trick)))
    me = side_of(v.players, v.seat)
    if v.phase == PLAY:
        cands = candidate_cards(v, knowledge(v))
        if len(cands) == 1:
            return cands[0]
        worlds = sample_worlds(v, rng, DEALS)
        prior = policy.choose_card(worlds[0].game, v.seat)
        return _best(cands, worlds, me, prior)
    g0 = any_world(v, rng.randrange(1 << 30))
    if v.phase != BIDDING:
        return policy.choose(g0, v.seat)
    if BLIND in v.legal and policy.want_blind(g0, v.seat):
        return BLIND
    est = policy.choose_bid(g0, v.seat, blind_ok=False)
    cands = bid_candidates(v, est, policy.nil_risk(g0.hands[v.seat], v.players))
    if len(cands) == 1:
        return cands[0]
    return _best(cands, sample_worlds(v, rng, DEALS), me, est)


__all__ = ["DEALS", "choose", "hand_value"]
