"""Hand scoring and the end of the game, exactly as docs/rules.md words them.

Kept apart from the play state so a score can be checked from a sheet alone
(bids, tricks, totals before the hand) — that is what the tests and the
independent replay checker do.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.rules import BIG_BID_THRESHOLD, Rules


@dataclass(frozen=True, slots=True)
class SideScore:
    """One side's line of the score sheet for one hand."""

    contract: int  # the side's contract: sum of its non-nil bids (0: none)
    taken: int  # tricks counted towards that contract
    contract_points: int  # ±10 × contract, or the quicksand/bicycle value
    overtricks: int  # +1 per bag earned (overtricks and failed-nil tricks under "bags")
    nil: int  # sum of the side's nil and blind-nil results
    bonus: int  # exact-1-or-2 and big-bid bonuses
    bag_penalty: int  # −100 per ten bags reached (≤ 0)
    score: int  # the hand's change, everything included
    bags_new: int  # bags earned in this hand
    bags: int  # bags carried after the hand (after the penalty)
    total: int  # running total after the hand

    def to_dict(self) -> dict[str, int]:
        # Written out: ``dataclasses.asdict`` cost a fifth of a simulated hand.
        return {
            "contract": self.contract,
            "taken": self.taken,
            "contract_points": self.contract_points,
            "overtricks": self.overtricks,
            "nil": self.nil,
            "bonus": self.bonus,
            "bag_penalty": self.bag_penalty,
            "score": self.score,
            "bags_new": self.bags_new,
            "bags": self.bags,
            "total": self.total,
        }


def sides(players: int) -> list[tuple[int, ...]]:
    """Team 0 = seats 0 and 2 in partnerships; otherwise each seat is a side."""
    if players == 4:
        return [(0, 2), (1, 3)]
    return [(s,) for s in range(players)]


def side_of(players: int, seat: int) -> int:
    return seat % 2 if players == 4 else seat


def partner(players: int, seat: int) -> int | None:
    """The seat's partner (sitting opposite), None in an individual game."""
    return (seat + 2) % 4 if players == 4 else None


def bid_made(players: int, line: Mapping[str, Any], seat: int) -> bool:
    """Whether ``seat`` kept its bid in a hand, from the hand's score-sheet
    line (``Game.sheet``): a nil, blind or not, takes no trick; a number is
    kept when the seat's side makes its contract."""
    if line["bids"][seat] == 0:
        return bool(line["tricks"][seat] == 0)
    side = line["sides"][side_of(players, seat)]
    return bool(side["taken"] >= side["contract"])


def score_side(
    rules: Rules,
    members: tuple[int, ...],
    bids: list[int],
    blind: list[bool],
    tricks: list[int],
    bags_before: int,
    total_before: int,
) -> SideScore:
    # One pass over the members: the search scores every simulated hand.
    nils: list[int] = []
    nil_points = contract = taken = 0
    for s in members:
        b = bids[s]
        if b:
            contract += b
            taken += tricks[s]
        else:
            nils.append(s)
            value = 200 if blind[s] else 100
            nil_points += value if tricks[s] == 0 else -value

    contract_points = overtricks = bonus = bags_new = 0
    if contract:
        if rules.failed_nil == "help_partner" and len(members) == 2 and len(nils) == 1:
            taken += tricks[nils[0]]
        if taken >= contract:
            extra = taken - contract
            if rules.quicksand:
                contract_points = 10 * contract - 10 * extra
            else:
                contract_points = 10 * contract
                overtricks += extra
                bags_new += extra
            if rules.exact_bonus and rules.players <= 4 and contract in (1, 2) and extra == 0:
                bonus += 20
            if rules.big_bid_bonus:
                bonus += 10 * max(0, contract - BIG_BID_THRESHOLD[rules.players])
        elif rules.bicycle:
            contract_points = 0
        elif rules.quicksand:
            contract_points = -10 * (contract - taken)
        else:
            contract_points = -10 * contract
    if rules.failed_nil == "bags" and not rules.quicksand:
        for s in nils:
            overtricks += tricks[s]
            bags_new += tricks[s]

    bags = bags_before + bags_new
    bag_penalty = 0
    if rules.bag_penalty:
        bag_penalty = -100 * (bags // 10)
        bags %= 10
    score = contract_points + overtricks + nil_points + bonus + bag_penalty
    return SideScore(
        contract=contract,
        taken=taken,
        contract_points=contract_points,
        overtricks=overtricks,
        nil=nil_points,
        bonus=bonus,
        bag_penalty=bag_penalty,
        score=score,
        bags_new=bags_new,
        bags=bags,
        total=total_before + score,
    )


def score_hand(
    rules: Rules,
    bids: list[int],
    blind: list[bool],
    tricks: list[int],
    bags_before: list[int],
    totals_before: list[int],
) -> list[SideScore]:
    return [
        score_side(rules, members, bids, blind, tricks, bags_before[i], totals_before[i])
        for i, members in enumerate(sides(rules.players))
    ]


def decide_end(rules: Rules, totals: list[int], tiebreak: bool) -> tuple[int | None, bool]:
    """After a fully scored hand: (winning side or None, tie-break running).

    docs/rules.md, reading 9: once a side reached the target, fell to the floor, or a
    tie-break runs, the single highest total wins; a shared top plays on.
    """
    reached = tiebreak or any(t >= rules.target for t in totals)
    if rules.losing_floor is not None and any(t <= rules.losing_floor for t in totals):
        reached = True
    if not reached:
        return None, False
    best = max(totals)
    leaders = [i for i, t in enumerate(totals) if t == best]
    if len(leaders) == 1:
        return leaders[0], False
    return None, True
