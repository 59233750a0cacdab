"""The arena's second baseline: a plain, independent search player (``plain``).

Not a level of the club player: the kind of opponent issue 38 measured the
master against, built as it describes, to keep the master honest against a
search that is not our own:

* perfect-information Monte Carlo over 24 deals of the unseen cards, each
  weighted by how well it explains every bid and card seen (hard facts such
  as a suit not followed remove that suit; a bid weighs hands by how likely
  the rule player was to make it; ``worlds.sample_worlds``);
* every distinct card rolled out on each deal to the end of the hand with the
  rule player's policy for all four seats, scored by the rules for the hand
  alone with every bag charged −10 (``pimc.hand_value``), averaged;
* the conventional (rule player's) card is kept unless the search beats it by
  ``MARGIN`` points a deal: a fixed margin, not a standard error;
* bids, blind nil and the club exchange are the rule player's own.

Unlike ``pimc`` it searches no bid. Deterministic for a view and seed.
"""

from __future__ import annotations

import random

from engine.ai import policy
from engine.ai.knowledge import any_world, knowledge
from engine.ai.pimc import hand_value
from engine.ai.rollout import candidate_cards, play_out
from engine.ai.worlds import World, sample_worlds
from engine.game import PLAY
from engine.scoring import side_of
from engine.view import View

DEALS = 24
MARGIN = 3.0  # points a deal the search must gain to overrule the conventional card


def card_values(cands: list[int], worlds: list[World], me: int) -> dict[int, float]:
    """Each candidate card's weighted mean hand value over the deals."""
    sums = dict.fromkeys(cands, 0.0)
    total = sum(w.weight for w in worlds) or 1.0
    for w in worlds:
        for c in cands:
            g = w.game.copy()
            g.play_unchecked(c)
            sums[c] += w.weight * hand_value(g, me, play_out(g))
    return {c: s / total for c, s in sums.items()}


def pick(values: dict[int, float], prior: int) -> int:
    """The best card if it beats the conventional one by more than ``MARGIN``."""
    top = max(values, key=lambda c: (values[c], -c))
    if prior not in values or values[top] - values[prior] > MARGIN:
        return top
    return prior


def choose(v: View, seed: int = 0, deals: int = DEALS) -> int:
    """The baseline's action for ``v.seat`` (which must be to move); ``deals``
    other than 24 for the arena's ``plain:N`` (the same search, longer)."""
    key = (seed, v.seat, v.hand_no, v.phase, v.hand, v.bids, v.tricks, v.trick, v.picking)
    rng = random.Random(repr(key))
    if v.phase != PLAY:
        return policy.choose(any_world(v, rng.randrange(1 << 30)), v.seat)
    cands = candidate_cards(v, knowledge(v))
    if len(cands) == 1:
        return cands[0]
    worlds = sample_worlds(v, rng, deals)
    prior = policy.choose_card(worlds[0].game, v.seat)
    if prior not in cands:  # equivalent to the lowest card of its run, which stands for it
        prior = max((c for c in cands if c // 13 == prior // 13 and c <= prior), default=prior)
    return pick(card_values(cands, worlds, side_of(v.players, v.seat)), prior)


__all__ = ["DEALS", "MARGIN", "card_values", "choose", "pick"]
