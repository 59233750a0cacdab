"""The club player («клубный игрок»): bids and plays from one seat's ``View``.

``choose_action(view, level, seed, budget_ms)`` is all the bot needs. Levels:
``novice`` (rules with slips), ``amateur`` (the rule player), ``master``
(determinized search over deals consistent with the view; the default).
"""

from __future__ import annotations

import random

from engine.ai import policy
from engine.ai.knowledge import any_world
from engine.ai.search import search_bid, search_play
from engine.game import BID, BIDDING, BLIND, EXCHANGE, PLAY
from engine.view import View

LEVELS = ("novice", "amateur", "master")
DEFAULT_BUDGET_MS = {"novice": 0, "amateur": 0, "master": 120}
CAP_FACTOR = 3.0  # the clock stops a search only past this many budgets
MAX_CAP_S = 0.6


def _rng(v: View, level: str, seed: int) -> random.Random:
    """Seeded by the position, so equal views and seeds give equal decisions."""
    key = (
        seed,
        level,
        v.seat,
        v.hand_no,
        v.phase,
        v.hand,
        v.bids,
        tuple(cs for _l, cs, _w in v.tricks),
        v.trick,
        v.picking,
    )
    return random.Random(repr(key))


def _novice(v: View, rng: random.Random) -> int:
    g = any_world(v, rng.randrange(1 << 30))
    if v.phase == BIDDING:
        a = policy.choose_bid(g, v.seat, aggression=rng.choice((-1.0, -0.5, 0.0, 0.5, 1.0)))
        if a == BID and policy.nil_risk(g.hands[v.seat], v.players) > 0.6:
            nums = [x for x in v.legal if BID < x < BLIND]
            a = min(nums) if nums else a
        return a
    if v.phase == PLAY and rng.random() < 0.25:
        return rng.choice(v.legal)
    return policy.choose(g, v.seat)


def _decide(v: View, level: str, seed: int, budget_ms: int | None) -> int:
    rng = _rng(v, level, seed)
    if level == "novice":
        return _novice(v, rng)
    if level == "amateur" or v.phase == EXCHANGE:
        return policy.choose(any_world(v, rng.randrange(1 << 30)), v.seat)
    budget = DEFAULT_BUDGET_MS["master"] if budget_ms is None else max(1, budget_ms)
    cap = min(MAX_CAP_S, CAP_FACTOR * budget / 1000)
    if v.phase == PLAY:
        return search_play(v, rng, budget, cap)
    return search_bid(v, rng, budget, cap)


def choose_action(
    v: View, level: str = "master", seed: int = 0, budget_ms: int | None = None
) -> int:
    """One legal engine action for ``v.seat``; deterministic for (view, level, seed)."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; one of {LEVELS}")
    if v.to_move != v.seat or not v.legal or v.phase not in (BIDDING, EXCHANGE, PLAY):
        raise ValueError("this seat has no decision to make in this view")
    try:
        a = _decide(v, level, seed, budget_ms)
    except Exception:  # noqa: BLE001 - a chat game must never stall on a player bug
        a = -1
    if a not in v.legal:
        try:
            a = policy.choose(any_world(v, seed), v.seat)
        except Exception:  # noqa: BLE001
            a = -1
        if a not in v.legal:
            a = v.legal[0]
    return a


__all__ = ["LEVELS", "choose_action"]
