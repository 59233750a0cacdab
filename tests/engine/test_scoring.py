"""Every worked example of docs/rules.md and a case for every scoring option value.

Each case is computed three ways where it makes sense: ``engine.scoring``
directly, a full replay record through ``engine.replay.replay`` (a deal built
so that each seat takes exactly the wanted tricks), and the reference.
"""

from __future__ import annotations

from typing import Any

import pytest
import reference as ref
import spades_scenarios as sc

from engine.replay import replay
from engine.rules import Rules
from engine.scoring import score_hand

FIRST_DEALER = 3  # seat 0 bids and leads first


def engine_sides(
    rules: Any,
    n: int,
    bids: list[int],
    tricks: list[int],
    blind: list[bool] | None = None,
    bags: list[int] | None = None,
    totals: list[int] | None = None,
) -> list[tuple[int, int, int]]:
    """(score, bags, total) per side from ``engine.scoring``."""
    sides = 2 if n == 4 else n
    res = score_hand(
        Rules.from_json(rules, n),
        bids,
        blind or [False] * n,
        tricks,
        bags or [0] * sides,
        totals or [0] * sides,
    )
    return [(s.score, s.bags, s.total) for s in res]


def reference_sides(
    rules: Any,
    n: int,
    bids: list[int],
    tricks: list[int],
    blind: list[bool] | None = None,
    bags: list[int] | None = None,
    totals: list[int] | None = None,
) -> list[tuple[int, int, int]]:
    sides = 2 if n == 4 else n
    res = ref.score_hand(
        ref.make_rules(rules, n),
        bids,
        blind or [False] * n,
        tricks,
        bags or [0] * sides,
        totals or [0] * sides,
    )
    return list(zip(res["score"], res["bags"], res["totals"], strict=True))


def one_hand_record(rules: Any, n: int, bids: list[Any], tricks: list[int]) -> dict:
    """A one-hand replay record where seat s bids ``bids[s]`` and takes ``tricks[s]``."""
    deal, plays = sc.constructed_hand(n, FIRST_DEALER % n, tricks)
    hand = {"deal": deal, "bids": sc.in_bidding_order(n, FIRST_DEALER % n, bids), "plays": plays}
    return sc.record(rules, n, FIRST_DEALER % n, [hand])


def check(
    rules: Any,
    n: int,
    bids: list[Any],
    tricks: list[int],
    side: int,
    score: int,
    bags: int,
    *,
    bags_before: list[int] | None = None,
    totals_before: list[int] | None = None,
    via_replay: bool = True,
) -> None:
    """Side ``side`` scores ``score`` and carries ``bags``: engine.scoring, replay and reference."""
    blind = [b == "blind" for b in bids]
    nums = [0 if b == "blind" else b for b in bids]
    total = (totals_before[side] if totals_before else 0) + score
    got = engine_sides(rules, n, nums, tricks, blind, bags_before, totals_before)
    mine = reference_sides(rules, n, nums, tricks, blind, bags_before, totals_before)
    assert mine[side] == (score, bags, total), "the reference disagrees with docs/rules.md"
    assert got[side] == (score, bags, total)
    assert got == mine
    if via_replay and not bags_before and not totals_before:
        out = replay(one_hand_record(rules, n, bids, tricks))
        h = out["hands"][0]
        assert h["tricks"] == tricks
        assert h["score"][side] == score
        assert h["bags"][side] == bags
        assert h["totals"][side] == score
        assert h["score"] == [m[0] for m in mine]
        assert h["bags"] == [m[1] for m in mine]


# ------------------------------------------- worked examples of docs/rules.md
def test_nil_takes_one_partner_four_takes_three() -> None:
    # seat 0 nil takes 1, seat 2 bids 4 takes 3 → −100 − 40
    check("classic", 4, [0, 3, 4, 3], [1, 5, 3, 4], 0, -140, 0)


def test_nil_takes_two_partner_four_takes_six() -> None:
    # failed nil's tricks are neither bags nor help: −100 + 42, 2 bags
    check("classic", 4, [0, 2, 4, 2], [2, 3, 6, 2], 0, -58, 2)


def test_seven_take_nine() -> None:
    check("classic", 4, [4, 2, 3, 2], [5, 2, 4, 2], 0, 72, 2)


def test_seven_take_six() -> None:
    check("classic", 4, [4, 3, 3, 3], [3, 4, 3, 3], 0, -70, 0)


def test_337_with_seven_bags_bids_five_takes_nine() -> None:
    check(
        "classic",
        4,
        [3, 2, 2, 2],
        [5, 2, 4, 2],
        0,
        54 - 100,
        1,
        bags_before=[7, 0],
        totals_before=[337, 0],
    )


def test_337_with_seven_bags_through_a_whole_game() -> None:
    """Three hands bring team 0 to 337 with 7 bags, the fourth is the example: 291, 1 bag."""
    plan = [  # (bids by seat, tricks by seat)
        ([3, 1, 3, 1], [7, 0, 6, 0]),  # team 0: 6 take 13 → 67, 7 bags; team 1: −20
        ([7, 3, 0, 3], [7, 3, 0, 3]),  # team 0: 70 + nil 100 → 237; team 1: +60
        ([6, 2, 4, 1], [6, 2, 4, 1]),  # team 0: 100 → 337; team 1: +30
        ([3, 2, 2, 2], [5, 2, 4, 2]),  # team 0: 5 take 9 → +54, 11 bags → −100
    ]
    hands = []
    for k, (bids, tricks) in enumerate(plan):
        dealer = (FIRST_DEALER + k) % 4
        deal, plays = sc.constructed_hand(4, dealer, tricks)
        hands.append({"deal": deal, "bids": sc.in_bidding_order(4, dealer, bids), "plays": plays})
    rec = sc.record("classic", 4, FIRST_DEALER, hands)
    out = replay(rec)
    assert [h["totals"][0] for h in out["hands"]] == [67, 237, 337, 291]
    assert [h["bags"][0] for h in out["hands"]] == [7, 7, 7, 1]
    assert out["hands"][3]["score"][0] == -46
    assert [h["totals"][1] for h in out["hands"]] == [-20, 40, 70, 110]
    assert out["finished"] is False and out["winner"] is None
    assert out == ref.run_record(rec)


@pytest.mark.parametrize(
    ("tricks", "score"),
    [
        ([0, 6, 0, 7], 200),  # two successful nils
        ([2, 4, 3, 4], -200),  # two failed
        ([0, 6, 3, 4], 0),  # one of each
    ],
)
def test_two_nils(tricks: list[int], score: int) -> None:
    check("classic", 4, [0, 5, 0, 5], tricks, 0, score, 0)


def test_seed_004_bags_reading_minus_58() -> None:
    # failed_nil "bags": nil takes 1, partner bids 4 takes 5: 41 + 1 − 100
    check({"preset": "classic", "failed_nil": "bags"}, 4, [0, 3, 4, 3], [1, 4, 5, 3], 0, -58, 2)


def test_seed_004_bags_reading_minus_139() -> None:
    # nil takes 1, partner bids 4 takes 3: −100 − 40 + 1, the bag does not help the partner
    check({"preset": "classic", "failed_nil": "bags"}, 4, [0, 3, 4, 3], [1, 5, 3, 4], 0, -139, 1)


def test_seed_004_nil_made_partner_failed_plus_60() -> None:
    check({"preset": "classic", "failed_nil": "bags"}, 4, [0, 4, 4, 4], [0, 5, 3, 5], 0, 60, 0)


def test_big_bid_ten_take_eleven() -> None:
    check({"preset": "classic", "big_bid_bonus": True}, 4, [6, 1, 4, 1], [6, 1, 5, 1], 0, 121, 1)


def test_nine_bags_plus_twelve() -> None:
    # reading 8: 9 + 12 = 21 bags → −200, 1 left (contract 1, 13 tricks: 10 + 12; nil +100)
    check(
        "classic",
        4,
        [1, 1, 0, 1],
        [13, 0, 0, 0],
        0,
        10 + 12 - 200 + 100,
        1,
        bags_before=[9, 0],
        totals_before=[100, 0],
    )


def test_nine_bags_plus_twelve_through_replay() -> None:
    plan = [
        ([2, 1, 2, 1], [13, 0, 0, 0]),  # team 0: 4 take 13 → 49, 9 bags
        ([1, 1, 0, 1], [13, 0, 0, 0]),  # team 0: 1 take 13 → 22, 21 bags → −200, 1 left
    ]
    hands = []
    for k, (bids, tricks) in enumerate(plan):
        dealer = (FIRST_DEALER + k) % 4
        deal, plays = sc.constructed_hand(4, dealer, tricks)
        hands.append({"deal": deal, "bids": sc.in_bidding_order(4, dealer, bids), "plays": plays})
    out = replay(sc.record("classic", 4, FIRST_DEALER, hands))
    assert out["hands"][0]["bags"][0] == 9
    assert out["hands"][1]["score"][0] == 22 - 200 + 100  # nil of seat 2 made: +100
    assert out["hands"][1]["bags"][0] == 1
    assert out["hands"][1]["totals"][0] == 49 + 22 - 200 + 100


def test_quicksand_bid_six_took_four_is_minus_20() -> None:
    check({"preset": "classic", "quicksand": True}, 4, [3, 3, 3, 3], [2, 5, 2, 4], 0, -20, 0)


def test_quicksand_seven_take_nine_is_50() -> None:
    # seed 004: 70 − 20; no bags
    check({"preset": "classic", "quicksand": True}, 4, [4, 2, 3, 2], [5, 2, 4, 2], 0, 50, 0)


@pytest.mark.parametrize(
    ("bids", "tricks", "score", "bags"),
    [
        ([1, 5, 1, 5], [1, 6, 1, 5], 40, 0),  # contract 2 made exactly: 20 + 20
        ([1, 5, 1, 5], [2, 6, 1, 4], 21, 1),  # seed 004: bid 2 take 3 → 21, no bonus
        ([1, 5, 0, 5], [1, 6, 0, 6], 130, 0),  # contract 1 exactly (+ nil 100): 10 + 20 + 100
        ([2, 5, 1, 5], [2, 6, 1, 4], 30, 0),  # contract 3: no bonus
    ],
)
def test_exact_one_or_two_bonus(bids: list[int], tricks: list[int], score: int, bags: int) -> None:
    check({"preset": "classic", "exact_bonus": True}, 4, bids, tricks, 0, score, bags)


def test_exact_bonus_off_by_default() -> None:
    check("classic", 4, [1, 5, 1, 5], [1, 6, 1, 5], 0, 20, 0)


def test_bicycle_failed_contract_scores_zero() -> None:
    check({"preset": "classic", "bicycle": True}, 4, [4, 2, 4, 2], [3, 5, 3, 2], 0, 0, 0)


def test_bicycle_made_contract_scores_as_usual() -> None:
    check({"preset": "classic", "bicycle": True}, 4, [4, 2, 4, 2], [5, 1, 4, 3], 0, 81, 1)


def test_bag_penalty_false_accumulates() -> None:
    rules = {"preset": "classic", "bag_penalty": False}
    check(rules, 4, [2, 2, 2, 2], [5, 2, 4, 2], 0, 45, 14, bags_before=[9, 0], totals_before=[0, 0])
    check(rules, 4, [2, 2, 2, 2], [5, 2, 4, 2], 0, 45, 5)


def test_bag_penalty_false_accumulates_through_replay() -> None:
    plan = [([2, 1, 2, 1], [13, 0, 0, 0])] * 3  # team 0: 4 take 13, 9 bags a hand
    hands = []
    for k, (bids, tricks) in enumerate(plan):
        dealer = (FIRST_DEALER + k) % 4
        deal, plays = sc.constructed_hand(4, dealer, tricks)
        hands.append({"deal": deal, "bids": sc.in_bidding_order(4, dealer, bids), "plays": plays})
    out = replay(sc.record({"preset": "classic", "bag_penalty": False}, 4, FIRST_DEALER, hands))
    assert [h["bags"][0] for h in out["hands"]] == [9, 18, 27]
    assert [h["score"][0] for h in out["hands"]] == [49, 49, 49]
    with_penalty = replay(sc.record("classic", 4, FIRST_DEALER, hands))
    assert [h["bags"][0] for h in with_penalty["hands"]] == [9, 8, 7]
    assert [h["score"][0] for h in with_penalty["hands"]] == [49, -51, -51]


# ------------------------------------------------------ failed_nil, each value
FAILED_NIL_CASES = [
    # (failed_nil, bids, tricks, team-0 score, bags)
    ("ignored", [0, 3, 4, 3], [2, 4, 3, 4], -140, 0),
    ("bags", [0, 3, 4, 3], [2, 4, 3, 4], -138, 2),
    ("help_partner", [0, 3, 4, 3], [2, 4, 3, 4], -59, 1),  # 3 + 2 ≥ 4: 40 + 1 − 100
    ("help_partner", [0, 3, 4, 3], [1, 5, 2, 5], -140, 0),  # 2 + 1 < 4: −40 − 100
    ("help_partner", [0, 3, 4, 3], [0, 5, 4, 4], 140, 0),  # nil made: nothing to add
    ("help_partner", [0, 5, 0, 5], [2, 5, 3, 3], -200, 0),  # two nils: ignored (reading 3)
    ("bags", [0, 5, 0, 5], [2, 5, 3, 3], -195, 5),  # two nils: each trick a bag
    ("ignored", [0, 5, 0, 5], [2, 5, 3, 3], -200, 0),
]


@pytest.mark.parametrize(("failed_nil", "bids", "tricks", "score", "bags"), FAILED_NIL_CASES)
def test_failed_nil_values(
    failed_nil: str, bids: list[int], tricks: list[int], score: int, bags: int
) -> None:
    check({"preset": "classic", "failed_nil": failed_nil}, 4, bids, tricks, 0, score, bags)


def test_help_partner_bags_count_toward_penalty() -> None:
    # nil takes 3, partner 4 takes 5 → 8 ≥ 4: 40 + 4, 4 bags; 7 before → 11 → −100
    check(
        {"preset": "classic", "failed_nil": "help_partner"},
        4,
        [0, 2, 4, 2],
        [3, 3, 5, 2],
        0,
        -100 + 44 - 100,
        1,
        bags_before=[7, 0],
        totals_before=[0, 0],
    )


@pytest.mark.parametrize(
    ("failed_nil", "score", "bags"),
    [("ignored", -100, 0), ("bags", -98, 2), ("help_partner", -100, 0)],
)
def test_failed_nil_in_an_individual_game(failed_nil: str, score: int, bags: int) -> None:
    # 3 players: seat 0 nil takes 2; help_partner has no partner (reading 3)
    check({"preset": "classic", "failed_nil": failed_nil}, 3, [0, 6, 6], [2, 8, 7], 0, score, bags)


# ------------------------------------------------------ blind nil values
@pytest.mark.parametrize(
    ("tricks", "score"),
    [([0, 6, 3, 4], 200 + 30), ([1, 6, 3, 3], -200 + 30)],
)
def test_chicago_blind_nil_is_worth_200(tricks: list[int], score: int) -> None:
    check({"preset": "classic", "blind_nil": "chicago"}, 4, ["blind", 3, 3, 3], tricks, 0, score, 0)


def test_blind_nil_with_bags_reading() -> None:
    rules = {"preset": "classic", "blind_nil": "chicago", "failed_nil": "bags"}
    check(rules, 4, ["blind", 3, 3, 3], [2, 5, 3, 3], 0, -200 + 30 + 2, 2)


def test_blind_nil_with_help_partner() -> None:
    rules = {"preset": "classic", "blind_nil": "chicago", "failed_nil": "help_partner"}
    check(rules, 4, ["blind", 3, 4, 3], [2, 5, 3, 3], 0, -200 + 41, 1)


def test_club_blind_nil_scores_200() -> None:
    # only reachable when 100 behind: engine.scoring directly (the replay case is in test_rules)
    check("club", 4, ["blind", 3, 3, 3], [0, 4, 3, 6], 0, 230, 0, totals_before=[0, 150])


def test_blind_nil_in_individual_game() -> None:
    check({"preset": "classic", "blind_nil": "chicago"}, 3, ["blind", 6, 6], [0, 9, 8], 0, 200, 0)
    check({"preset": "classic", "blind_nil": "chicago"}, 3, ["blind", 6, 6], [1, 8, 8], 0, -200, 0)


# ------------------------------------------------------ bonuses by player count
@pytest.mark.parametrize(
    ("n", "bid", "took", "score", "bags"),
    [
        (3, 2, 2, 40, 0),  # exact 2 with 3 players: +20
        (3, 1, 1, 30, 0),
        (3, 1, 2, 11, 1),
        (5, 2, 2, 20, 0),  # not with 5–6 players
        (6, 1, 1, 10, 0),
    ],
)
def test_exact_bonus_by_player_count(n: int, bid: int, took: int, score: int, bags: int) -> None:
    hs = ref.hand_size(n)
    bids = [bid] + [1] * (n - 1)
    tricks = [took] + [0] * (n - 1)
    tricks[1] = hs - took
    check({"preset": "classic", "exact_bonus": True}, n, bids, tricks, 0, score, bags)


@pytest.mark.parametrize(
    ("n", "bid", "took", "bonus"),
    [
        (3, 10, 11, 0),  # beyond the 10th with 3 players
        (3, 12, 12, 20),
        (4, 8, 9, 0),  # beyond the 8th with 4
        (4, 9, 9, 10),
        (5, 7, 7, 0),  # beyond the 7th with 5
        (5, 9, 9, 20),
        (6, 6, 6, 0),  # beyond the 6th with 6
        (6, 8, 8, 20),
        (4, 11, 10, 0),  # not made: no bonus
    ],
)
def test_big_bid_bonus_by_player_count(n: int, bid: int, took: int, bonus: int) -> None:
    hs = ref.hand_size(n)
    if n == 4:
        bids, tricks = [bid, 1, 0, 1], [took, hs - took, 0, 0]
        base = 100  # seat 2's nil
    else:
        bids = [bid] + [1] * (n - 1)
        tricks = [took, hs - took] + [0] * (n - 2)
        base = 0
    made = took >= bid
    plain = 10 * bid + (took - bid) if made else -10 * bid
    rules = {"preset": "classic", "big_bid_bonus": True}
    check(rules, n, bids, tricks, 0, base + plain + bonus, took - bid if made else 0)
    check("classic", n, bids, tricks, 0, base + plain, took - bid if made else 0)


def test_bonuses_apply_under_quicksand() -> None:
    # reading 5: contract 2 made exactly → 20 + 20; contract 10 take 11 → 100 − 10 + 20
    both = {"preset": "classic", "quicksand": True, "exact_bonus": True, "big_bid_bonus": True}
    check(both, 4, [1, 5, 1, 5], [1, 6, 1, 5], 0, 40, 0)
    check(both, 4, [6, 1, 4, 1], [6, 1, 5, 1], 0, 110, 0)


# ------------------------------------------------------ quicksand
@pytest.mark.parametrize(
    ("bids", "tricks", "score"),
    [
        ([4, 3, 3, 3], [4, 3, 3, 3], 70),  # made exactly
        ([4, 3, 3, 3], [6, 2, 3, 2], 50),  # 2 over: −20, no bags
        ([4, 3, 3, 3], [2, 5, 3, 3], -20),  # 2 short
        ([4, 3, 0, 3], [4, 5, 0, 4], 140),  # nil keeps ±100 (reading 6)
        ([4, 3, 0, 3], [4, 4, 2, 3], -60),  # failed nil −100, contract 4 made: +40
    ],
)
def test_quicksand_cases(bids: list[int], tricks: list[int], score: int) -> None:
    check({"preset": "classic", "quicksand": True}, 4, bids, tricks, 0, score, 0)


def test_quicksand_never_makes_bags_even_with_failed_nil_bags() -> None:
    rules = {"preset": "classic", "quicksand": True, "failed_nil": "bags"}
    check(rules, 4, [4, 3, 0, 3], [4, 4, 2, 3], 0, -60, 9, bags_before=[9, 0], totals_before=[0, 0])


# ------------------------------------------------------ suicide, bicycle
def test_suicide_scores_as_usual() -> None:
    rules = {"preset": "classic", "suicide": True}
    check(rules, 4, [0, 0, 5, 4], [0, 6, 7, 0], 0, 100 + 52, 2)
    check(rules, 4, [0, 0, 5, 4], [0, 6, 7, 0], 1, -100 - 40, 0)


def test_bicycle_bag_penalty_is_optional() -> None:
    check(
        {"preset": "classic", "bicycle": True},
        4,
        [2, 2, 2, 2],
        [6, 1, 4, 2],
        0,
        46 - 100,
        2,
        bags_before=[6, 0],
        totals_before=[0, 0],
    )
    check(
        {"preset": "classic", "bicycle": True, "bag_penalty": False},
        4,
        [2, 2, 2, 2],
        [6, 1, 4, 2],
        0,
        46,
        12,
        bags_before=[6, 0],
        totals_before=[0, 0],
    )


# ------------------------------------------------------ individual games
@pytest.mark.parametrize("n", [3, 5, 6])
def test_individual_scoring_is_per_seat(n: int) -> None:
    hs = ref.hand_size(n)
    bids = [2] * n
    bids[2] = max(1, hs - 7)
    tricks = [0] * n
    tricks[0], tricks[1], tricks[2] = 4, 1, hs - 5  # seat 0 over, seat 1 short, seat 2 over
    rec = one_hand_record("classic", n, bids, tricks)
    out = replay(rec)
    h = out["hands"][0]
    assert len(h["score"]) == len(h["bags"]) == len(h["totals"]) == n
    assert h["score"][0] == 22 and h["bags"][0] == 2
    assert h["score"][1] == -20 and h["bags"][1] == 0
    assert h["score"][2] == 10 * bids[2] + (hs - 5 - bids[2])
    assert h["bags"][2] == hs - 5 - bids[2]
    assert all(h["score"][s] == -20 for s in range(3, n))
    assert h["tricks"] == tricks
    assert out == ref.run_record(rec)
