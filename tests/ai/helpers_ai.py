"""Shared builders for the computer-player tests."""

from __future__ import annotations

import random

from engine.cards import parse_card
from engine.game import BID, Game
from engine.rules import Rules

RULE_SETS = [
    Rules(),
    Rules(losing_floor=-200, blind_nil="club", bid_sum="club"),
    Rules(failed_nil="bags", bid_sum="no_hell", exact_bonus=True),
    Rules(failed_nil="help_partner", blind_nil="chicago", big_bid_bonus=True),
    Rules(quicksand=True, target=1000),
    Rules(suicide=True),
    Rules(bicycle=True, bag_penalty=False),
    Rules(players=3),
    Rules(players=3, blind_nil="chicago", bid_sum="club"),
    Rules(players=5, quicksand=True),
    Rules(players=6, blind_nil="chicago", failed_nil="bags"),
    Rules(players=6, bicycle=True),
]


def random_states(rules: Rules, seed: int, count: int):
    """Games advanced by random legal actions, one state per decision point sampled."""
    rng = random.Random(seed)
    g = Game(rules, seed)
    if rules.players == 4 and rules.blind_nil == "club":
        g.totals = [0, 150]  # so blind nil and the exchange come up
    out = []
    while len(out) < count and not g.finished:
        if rng.random() < 0.3:
            out.append(g.copy())
        g.apply_action(rng.choice(g.legal_actions()))
    return out


def cards(text: str) -> list[int]:
    return sorted(parse_card(t) for t in text.split())


def position(hands: list[str], bids: list[int], plays: list[str], dealer: int = 0) -> Game:
    """A 4-player classic game with chosen hands, bids (in bidding order) and plays."""
    g = Game(Rules(), None, dealer)
    g.deal([cards(h) for h in hands])
    for b in bids:
        g.apply_action(BID + b)
    for p in plays:
        g.apply_action(parse_card(p))
    return g
