"""The plain judges of a claim, with no shortcut, for the tests of
engine/claim.py and of the bot's claims (tests/attacks): every legal card of
every seat (``brute``), and the claimer's knowledge kept as the explicit set
of layouts it cannot rule out (``layouts``, ``observed_brute``). Slow on
purpose: small endgames only. Imported by name (pytest's pythonpath holds
``tests``)."""

from __future__ import annotations

import itertools

from engine import Game
from engine.claim import takers, tricks_left


def legal(hand: list[int], trick: list[int], broken: bool) -> list[int]:
    if trick:
        follow = [c for c in hand if c // 13 == trick[0] // 13]
        return follow or hand
    if not broken:
        side = [c for c in hand if c < 39]
        return side or hand
    return hand


def winner(trick: list[int], leader: int, n: int) -> int:
    best = 0
    for i, c in enumerate(trick):
        b = trick[best]
        if (c // 13 == b // 13 and c > b) or (c >= 39 and b < 39):
            best = i
    return (leader + best) % n


def brute(
    hands: list[list[int]],
    seat: int,
    trick: list[int],
    leader: int,
    broken: bool,
    maxi: frozenset[int],
    wanted: frozenset[int],
) -> int:
    """Tricks of ``wanted`` still to come with ``maxi`` maximising them and
    everyone else minimising: every legal card of every seat, no shortcut."""
    n = len(hands)
    if not trick and not hands[seat]:
        return 0
    values = []
    for c in legal(hands[seat], trick, broken):
        rest = [list(h) for h in hands]
        rest[seat].remove(c)
        t = [*trick, c]
        b = broken or c >= 39
        if len(t) == n:
            w = winner(t, leader, n)
            values.append((w in wanted) + brute(rest, w, [], w, b, maxi, wanted))
        else:
            values.append(brute(rest, (seat + 1) % n, t, leader, b, maxi, wanted))
    return max(values) if seat in maxi else min(values)


def brute_holds(g: Game, seat: int) -> bool:
    mate = (seat + 2) % 4 if g.n == 4 else None
    maxi = frozenset((seat,) if mate is None else (seat, mate))
    hands = [g.hand_cards(s) for s in range(g.n)]
    got = brute(
        hands,
        g.to_move,
        list(g.trick),
        g.trick_leader,
        g.spades_broken,
        maxi,
        frozenset(takers(g, seat)),
    )
    return got == tricks_left(g)


def layouts(g: Game, seat: int) -> list[tuple[frozenset[int], ...]]:
    """Every deal of the cards ``seat`` cannot see to the other seats (their
    number of cards each) under which this hand's play so far was legal:
    what the claimer cannot tell apart, found by replaying, not by voids."""
    n = g.n
    pool = sorted(c for s in range(n) if s != seat for c in g.hand_cards(s))
    tricks = [(ld, list(cs)) for ld, cs, _ in g.tricks]
    if g.trick:
        tricks.append((g.trick_leader, list(g.trick)))
    played: dict[int, list[int]] = {s: [] for s in range(n)}
    for ld, cs in tricks:
        for i, c in enumerate(cs):
            played[(ld + i) % n].append(c)
    others = [s for s in range(n) if s != seat]

    def deals(rest: list[int], i: int) -> list[dict[int, frozenset[int]]]:
        if i == len(others):
            return [{}]
        s = others[i]
        out = []
        for mine in itertools.combinations(rest, len(g.hand_cards(s))):
            left = [c for c in rest if c not in mine]
            out += [{s: frozenset(mine), **d} for d in deals(left, i + 1)]
        return out

    # The plays that said something about a hand: a card off the led suit,
    # a spade led before spades were broken (any other play was legal
    # whatever else its player held). Each with its player's later cards.
    telling: list[tuple[int, list[int], bool, int, set[int]]] = []
    broken = False
    for k, (ld, cs) in enumerate(tricks):
        for i, c in enumerate(cs):
            s = (ld + i) % n
            off = bool(i) and c // 13 != cs[0] // 13
            if off or (not i and c >= 39 and not broken):
                later = {x for _, xs in tricks[k + 1 :] for x in xs} & set(played[s])
                later |= {x for j, x in enumerate(cs) if j > i and (ld + j) % n == s}
                telling.append((s, cs[:i], broken, c, later))
            broken = broken or c >= 39

    mine = frozenset(g.hand_cards(seat))

    def legal_history(d: dict[int, frozenset[int]]) -> bool:
        return all(
            c in legal(sorted(d.get(s, mine) | later | {c}), before, was_broken)
            for s, before, was_broken, c, later in telling
        )

    return [
        tuple(d.get(s, frozenset()) for s in range(n)) for d in deals(pool, 0) if legal_history(d)
    ]


def observed_brute(g: Game, seat: int) -> bool:
    """The claim judged on the claimer's knowledge, the plain way: the set of
    layouts the claimer cannot rule out is kept explicitly; the claimer
    picks a card by what it has seen, every other seat (partner too) plays
    any card it holds legally in one of the layouts left, which keeps only
    those layouts. Holds when every line ends with every trick to ``takers``."""
    n = g.n
    wanted = frozenset(takers(g, seat))

    def solve(
        lays: list[tuple[frozenset[int], ...]],
        hand: frozenset[int],
        to_move: int,
        trick: list[int],
        leader: int,
        broken: bool,
    ) -> bool:
        if not trick and not hand:
            return True

        def after(c: int, rest: list[tuple[frozenset[int], ...]], h: frozenset[int]) -> bool:
            t = [*trick, c]
            b = broken or c >= 39
            if len(t) < n:
                return solve(rest, h, (to_move + 1) % n, t, leader, b)
            w = winner(t, leader, n)
            return w in wanted and solve(rest, h, w, [], w, b)

        if to_move == seat:
            return any(after(c, lays, hand - {c}) for c in legal(sorted(hand), trick, broken))
        options: dict[int, list[tuple[frozenset[int], ...]]] = {}
        for lay in lays:
            for c in legal(sorted(lay[to_move]), trick, broken):
                cut = tuple(h - {c} if s == to_move else h for s, h in enumerate(lay))
                options.setdefault(c, []).append(cut)
        return all(after(c, rest, hand) for c, rest in options.items())

    return solve(
        layouts(g, seat),
        frozenset(g.hand_cards(seat)),
        g.to_move,
        list(g.trick),
        g.trick_leader,
        g.spades_broken,
    )
