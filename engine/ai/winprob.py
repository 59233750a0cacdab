"""How likely each side is to win the game from a score state between hands.

The master values a hand by the game it leaves behind, not by the hand's
points: 60 points are worth a lot at 420 against 470 and little at 0 against
0. This module is that valuation, a closed form cheap enough to be evaluated
at the end of every simulated hand.

The model
---------
Each side's score per hand is taken as an independent normal draw
N(``mu``, ``sigma``²) (by player count, measured on the project's own games;
see ``HAND_STATS``). From a state between hands:

* **Effective totals.** ``E = total − bag_cost(bags)``: bags still carried
  are a debt, ``100 × P(bags + future bags ≥ 10k)`` summed over k, with the
  future bags ~ N(``bag_rate × H``, ``bag_rate × H``). Late in a game with 2
  bags they cost nothing; at 9 bags with hands to go they cost about 100.
* **Hands left.** ``H = max(1, (target − best total) / mu)``: the game ends
  when the leader reaches the target.
* **The race.** For two sides, ``P(i ahead at the end) = Φ((E_i − E_j) /
  (sigma √(2H)))``.
* **The losing floor.** A side ``d`` points above the floor survives a hand
  with probability ``1 − Φ((−d − mu) / sigma)``, its distance growing by
  ``mu`` a hand; ``S`` is the product over the hands left. When a side falls
  the higher total wins, so for a pair ``p_ij = S_i S_j Φ + S_i (1 − S_j) +
  (1 − S_i)(1 − S_j) Φ`` (``Φ`` the race above).
* **More than two sides.** ``P_i ∝ Π_j p_ij`` over the other sides,
  normalised (exact for two sides).
* **Decided games** (after a hand the rules end the game) are 1 for the
  winner and 0 for the others; a tie at the target is a one-hand race.

Properties (tested): probabilities sum to 1, rise with a side's own total,
are symmetric under swapping sides, are 0/1 exactly when the game is over,
and a side near the floor is worth less than the same side with no floor.
"""

from __future__ import annotations

import math

from engine.rules import Rules
from engine.scoring import decide_end

# Per player count: (points per hand, spread per hand, bags per hand) of one
# side, from duplicate games of the project's players (rule player: 42 ± 65
# with 4 players, master ~50).
HAND_STATS: dict[int, tuple[float, float, float]] = {
    3: (28.0, 55.0, 1.4),
    4: (48.0, 66.0, 1.1),
    5: (14.0, 42.0, 0.4),
    6: (10.0, 37.0, 0.3),
}
QUICKSAND_SIGMA = 0.8  # no bags, smaller swings
SQRT2 = math.sqrt(2.0)


def phi(z: float) -> float:
    """The standard normal distribution function."""
    return 0.5 * (1.0 + math.erf(z / SQRT2))


def hand_stats(rules: Rules) -> tuple[float, float, float]:
    mu, sigma, bag_rate = HAND_STATS[rules.players]
    if rules.quicksand:
        return mu, sigma * QUICKSAND_SIGMA, 0.0
    if not rules.bag_penalty:
        bag_rate = 0.0
    return mu, sigma, bag_rate


def hands_left(rules: Rules, totals: list[int] | tuple[int, ...]) -> float:
    """Expected hands until the game ends (at least one)."""
    mu = hand_stats(rules)[0]
    return max(1.0, (rules.target - max(totals)) / mu)


def bag_cost(bags: int, hands: float, bag_rate: float) -> float:
    """Points the carried ``bags`` are expected to cost before the game ends."""
    if bag_rate <= 0.0 or bags <= 0:
        return 0.0
    mean = bag_rate * hands
    sd = max(0.5, math.sqrt(bag_rate * hands))
    cost = 0.0
    for k in (10, 20, 30):
        # Only the bags carried count as this state's debt: the same future
        # bags would come to every state, so they are measured against the
        # cost of crossing without the carried ones.
        with_bags = phi((bags + mean - k + 0.5) / sd)
        without = phi((mean - k + 0.5) / sd)
        cost += 100.0 * (with_bags - without)
    return cost


def _survival(rules: Rules, total: float, hands: float, mu: float, sigma: float) -> float:
    if rules.losing_floor is None:
        return 1.0
    d = total - rules.losing_floor
    s = 1.0
    for k in range(min(6, math.ceil(hands))):
        s *= 1.0 - phi((-(d + k * mu) - mu) / sigma)
    return s


def win_probs(
    rules: Rules,
    totals: list[int] | tuple[int, ...],
    bags: list[int] | tuple[int, ...],
    tiebreak: bool = False,
) -> list[float]:
    """Each side's chance to win the game, from the state after a scored hand."""
    winner, tie = decide_end(rules, list(totals), tiebreak)
    n = len(totals)
    if winner is not None:
        return [1.0 if i == winner else 0.0 for i in range(n)]
    mu, sigma, bag_rate = hand_stats(rules)
    hands = 1.0 if tie else hands_left(rules, totals)
    eff = [t - bag_cost(b, hands, bag_rate) for t, b in zip(totals, bags, strict=True)]
    alive = [_survival(rules, t, hands, mu, sigma) for t in totals]
    spread = sigma * math.sqrt(2.0 * hands)
    strength = []
    for i in range(n):
        p = 1.0
        for j in range(n):
            if j == i:
                continue
            race = phi((eff[i] - eff[j]) / spread)
            si, sj = alive[i], alive[j]
            p *= si * sj * race + si * (1.0 - sj) + (1.0 - si) * (1.0 - sj) * race
        strength.append(p)
    total = sum(strength)
    if total <= 0.0:
        return [1.0 / n] * n
    return [s / total for s in strength]


def win_prob(
    rules: Rules,
    side: int,
    totals: list[int] | tuple[int, ...],
    bags: list[int] | tuple[int, ...],
    tiebreak: bool = False,
) -> float:
    return win_probs(rules, totals, bags, tiebreak)[side]


__all__ = ["HAND_STATS", "bag_cost", "hand_stats", "hands_left", "win_prob", "win_probs"]
