"""The win-probability estimate the master values hands by (engine/ai/winprob.py)."""

from __future__ import annotations

import itertools

import pytest

from engine.ai.winprob import bag_cost, hands_left, win_prob, win_probs
from engine.rules import CLUB, Rules

CLASSIC = Rules()
FLOOR = Rules(losing_floor=-200)


def test_decided_games_are_certain() -> None:
    assert win_probs(CLASSIC, [510, 400], [0, 0]) == [1.0, 0.0]
    assert win_probs(CLASSIC, [300, 560], [3, 3]) == [0.0, 1.0]
    # The floor ends the game: the higher total wins even below the target.
    assert win_probs(CLUB, [-210, 100], [0, 0]) == [0.0, 1.0]
    assert win_probs(Rules(players=3), [120, 505, 610], [0, 0, 0]) == [0.0, 0.0, 1.0]
    # A shared top at the target plays on: a one-hand race, even.
    tie = win_probs(CLASSIC, [510, 510], [0, 0])
    assert tie[0] == pytest.approx(0.5) and 0.0 < tie[0] < 1.0


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_probabilities_sum_to_one_and_start_fair(players: int) -> None:
    rules = Rules(players=players)
    sides = 2 if players == 4 else players
    start = win_probs(rules, [0] * sides, [0] * sides)
    assert start == pytest.approx([1 / sides] * sides)
    for totals in itertools.product((-150, 0, 220, 430), repeat=sides):
        if sides > 3 and len(set(totals)) < sides - 1:
            continue
        p = win_probs(rules, list(totals), [2] * sides)
        assert sum(p) == pytest.approx(1.0)
        assert all(0.0 <= x <= 1.0 for x in p)


@pytest.mark.parametrize("rules", [CLASSIC, FLOOR, Rules(target=2000), Rules(quicksand=True)])
def test_rises_with_own_total(rules: Rules) -> None:
    for opp in (-180, 0, 250, 470):
        last = -1.0
        for mine in range(-190, rules.target, 20):
            w = win_prob(rules, 0, [mine, opp], [0, 0])
            assert w >= last
            last = w
        assert last > 0.5  # just under the target, ahead of any of these


@pytest.mark.parametrize("players", [3, 5, 6])
def test_rises_with_own_total_many_players(players: int) -> None:
    rules = Rules(players=players)
    field = [40 * i for i in range(players)]
    for seat in range(players):
        last = -1.0
        for mine in range(-150, 500, 25):
            totals = list(field)
            totals[seat] = mine
            w = win_probs(rules, totals, [0] * players)[seat]
            assert w >= last - 1e-12
            last = w


def test_symmetric_under_swapping_sides() -> None:
    for rules in (CLASSIC, CLUB, Rules(target=1000)):
        for a, b, ba, bb in [(100, 250, 3, 8), (-120, 40, 0, 9), (420, 390, 5, 1)]:
            p = win_probs(rules, [a, b], [ba, bb])
            q = win_probs(rules, [b, a], [bb, ba])
            assert p == pytest.approx(q[::-1])
    rules = Rules(players=5)
    totals, bags = [10, 200, -50, 330, 90], [1, 2, 3, 4, 5]
    p = win_probs(rules, totals, bags)
    for perm in [(4, 3, 2, 1, 0), (1, 2, 3, 4, 0)]:
        q = win_probs(rules, [totals[i] for i in perm], [bags[i] for i in perm])
        assert q == pytest.approx([p[i] for i in perm])


def test_the_losing_floor_costs_the_side_near_it() -> None:
    near = win_prob(FLOOR, 0, [-150, 100], [0, 0])
    free = win_prob(CLASSIC, 0, [-150, 100], [0, 0])
    assert near < free
    # Far above the floor it hardly matters.
    assert win_prob(FLOOR, 0, [300, 250], [0, 0]) == pytest.approx(
        win_prob(CLASSIC, 0, [300, 250], [0, 0]), abs=0.01
    )
    # The opponents of a side at the floor's edge are worth more.
    assert win_prob(FLOOR, 1, [-180, -100], [0, 0]) > win_prob(CLASSIC, 1, [-180, -100], [0, 0])


def test_bags_are_a_debt_while_hands_remain() -> None:
    early = [win_prob(CLASSIC, 0, [100, 100], [b, 0]) for b in range(10)]
    assert all(x > y for x, y in itertools.pairwise(early))
    assert bag_cost(9, hands_left(CLASSIC, [100, 100]), 1.1) > 60
    # The last hand: two bags cannot reach ten before the game ends.
    assert bag_cost(2, 1.0, 1.1) < 1.0
    assert win_prob(Rules(bag_penalty=False), 0, [100, 100], [9, 0]) == pytest.approx(0.5)


def test_hands_left_shrinks_near_the_target() -> None:
    assert hands_left(CLASSIC, [0, 0]) > hands_left(CLASSIC, [300, 0]) > 1.0
    assert hands_left(CLASSIC, [480, 0]) == 1.0
    assert hands_left(Rules(target=2000), [0, 0]) > 3 * hands_left(CLASSIC, [0, 0])


def test_a_lead_is_worth_more_near_the_end() -> None:
    # The same 60-point lead: at the start of the game and a hand from the target.
    assert win_prob(CLASSIC, 0, [440, 380], [0, 0]) > win_prob(CLASSIC, 0, [60, 0], [0, 0])
