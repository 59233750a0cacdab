"""Choosing an action at a level: the seeding, the budget and the fallbacks."""

from __future__ import annotations

import logging
import random

from engine.ai import policy
from engine.ai.knowledge import any_world
from engine.ai.search import decide
from engine.game import BID, BIDDING, BLIND, EXCHANGE, PLAY, action_to_json
from engine.view import View

log = logging.getLogger(__name__)

LEVELS = ("novice", "amateur", "master")
DEFAULT_BUDGET_MS = {"novice": 0, "amateur": 0, "master": 120}
CAP_FACTOR = 3.0  # the clock stops a search only past this many budgets
MAX_CAP_S = 0.6
MIN_CAP_S = 0.2


def position_rng(v: View, level: str, seed: int) -> random.Random:
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


def blind_rng(v: View, seed: int) -> random.Random:
    """For the blind-nil call: seeded by what is known before looking, never the hand."""
    return random.Random(repr((seed, "blind", v.seat, v.hand_no, v.bids, v.totals, v.bags)))


def cap_seconds(budget_ms: int) -> float:
    """When the clock stops a search: far past its budget, never under MIN_CAP_S
    (the least work a search does, ``MIN_WORLDS`` deals, must fit) or over MAX_CAP_S."""
    return min(MAX_CAP_S, max(MIN_CAP_S, CAP_FACTOR * budget_ms / 1000))


def master_budget(budget_ms: int | None) -> int:
    return DEFAULT_BUDGET_MS["master"] if budget_ms is None else max(1, budget_ms)


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
    rng = position_rng(v, level, seed)
    if level == "novice":
        return _novice(v, rng)
    if level == "amateur":
        return policy.choose(any_world(v, rng.randrange(1 << 30)), v.seat)
    budget = master_budget(budget_ms)
    return decide(v, rng, blind_rng(v, seed), budget, cap_seconds(budget)).action


def check_decision(v: View, level: str) -> None:
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; one of {LEVELS}")
    if v.to_move != v.seat or not v.legal or v.phase not in (BIDDING, EXCHANGE, PLAY):
        raise ValueError("this seat has no decision to make in this view")


def _fallback(v: View, seed: int) -> tuple[int, str]:
    """The rule player's action, or the first legal one if that fails too."""
    try:
        a = policy.choose(any_world(v, seed), v.seat)
    except Exception:
        log.exception("the rule player failed as well")
        a = -1
    if a in v.legal:
        return a, "the rule player's"
    return v.legal[0], "the first legal"


def _say(v: View, a: int) -> str:
    """A move for a log line: a passed card stays hidden, a bid or a played card is public."""
    return "a card to pass" if v.phase == EXCHANGE else str(action_to_json(a))


def choose_action(
    v: View, level: str = "master", seed: int = 0, budget_ms: int | None = None
) -> int:
    """One legal engine action for ``v.seat``; deterministic for (view, level, seed).

    A failing player must not stall a chat game: the failure is logged with its
    traceback and the fallback move named, and the rule player moves (failing
    that, the first legal action).
    """
    check_decision(v, level)
    where = f"hand {v.hand_no}, phase {v.phase}, seat {v.seat}"
    try:
        a = _decide(v, level, seed, budget_ms)
    except Exception:
        a, how = _fallback(v, seed)
        log.exception(
            "the %s player failed (%s); fallback move: %s action %s",
            level,
            where,
            how,
            _say(v, a),
        )
        return a
    if a in v.legal:
        return a
    a, how = _fallback(v, seed)
    log.error(
        "the %s player chose an illegal action (%s); fallback move: %s action %s",
        level,
        where,
        how,
        _say(v, a),
    )
    return a


__all__ = [
    "CAP_FACTOR",
    "DEFAULT_BUDGET_MS",
    "LEVELS",
    "MAX_CAP_S",
    "blind_rng",
    "cap_seconds",
    "check_decision",
    "choose_action",
    "master_budget",
    "position_rng",
]
