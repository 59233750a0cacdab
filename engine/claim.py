"""Claiming the rest of a hand («Остальные мои»): does the claim hold on what
the claimer knows?

A claim is judged on the claimer's knowledge, never on cards the claimer
could not see (the rule of bridge clubs and BBO): the claimer's own hand,
every card played so far (the trick on the table too), and the suits each
player has shown out of (a player who did not follow a led suit holds none
of it; one who led a spade before spades were broken held only spades).
Every other card, the partner's included, is the unseen pool. The check is
built from ``view(game, seat)`` alone, so its answer cannot depend on where
the unseen cards really are: a refusal tells nobody anything about them.

The check is exact: a search over what the claimer observes. At the
claimer's turn the claimer picks a card (one good card is enough); at any
other player's turn every card of the pool that player could hold in some
layout consistent with everything observed so far, and may play, is a
branch that must be met (a card off the led suit makes its player void in
it from then on: a new constraint). Partner and opponents are treated alike,
as adversaries: the claimer cannot rely on cards unseen; a trick the partner
takes still counts when the claim is the side's. A layout is consistent when
the pool's cards can be dealt to the others, each their number of cards,
none of a suit they are void in: Hall's condition over the suits.

What keeps it small: the claimer's cards of one suit with no live card
between them are one choice; so are the pool's cards of one suit with no
card of the claimer's or of the trick between them, up to where they stand
against the cards the rest of the trick may bring from the same run; and a
position at the start of a trick is decided once, in a form that forgets
which ranks were played (only the order of the cards still live matters).

Within ``NODE_LIMIT`` positions the answer is exact; beyond it the claim is
"not proved" and the table votes on it (the safe side: the opponents
decide). The limit was chosen from the cases measured by
``python -m bench.claims`` (docs/engine.md).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from engine.cards import SPADES, SUIT_MASKS, deck, mask_of
from engine.game import PLAY, Game
from engine.scoring import partner
from engine.view import View, view

#: Positions the search may visit before it gives up ("not proved": the
#: table votes). A position costs more than in a search over the real hands
#: (the layouts are checked at every card): 40,000-60,000 a CPU-second on the
#: development VM, so the bound keeps a check to about a second of a worker.
#: Claims with eight tricks or fewer left were decided within 31,000, and the
#: costliest true claims measured (a full hand of spades: 11,459; a claim
#: made at the first trick: 41,119) within it too (``python -m bench.claims``,
#: docs/engine.md).
NODE_LIMIT = 50_000

_NON_SPADE_SUITS = 0b0111  # suit bits C, D, H
_CLUBS, _DIAMONDS, _HEARTS, _SPADES = SUIT_MASKS
# For each set of suits a seat may hold, the sets of suits it meets.
_SUBSETS_MEETING = tuple(tuple(s for s in range(1, 16) if s & a) for a in range(16))


@dataclass(frozen=True, slots=True)
class ClaimCheck:
    """``holds``: True proved; False not proved (some layout of the unseen
    cards and some play beat every line the claimer could follow); None
    undecided within the limit. ``nodes``: positions visited. The bot treats
    False and None alike: the opponents vote."""

    holds: bool | None
    nodes: int


class _OutOfNodes(Exception):
    pass


def tricks_left(game: Game) -> int:
    return game.hand_size - len(game.tricks)


def claim_possible(game: Game, seat: int) -> bool:
    """Whether ``seat`` may claim now: its turn in play, two or more tricks left
    (with one left, playing the card is as quick as claiming)."""
    return game.phase is PLAY and game.to_move == seat and tricks_left(game) >= 2


def takers(game: Game, seat: int) -> tuple[int, ...]:
    """Who must take the remaining tricks for the claim to hold: the claimer's
    side, or the claimer alone in an individual game or when the side has a
    nil (its tricks would decide the nil, so the claim says who takes them)."""
    mate = partner(game.n, seat)
    if mate is None or game.bids[seat] == 0 or game.bids[mate] == 0:
        return (seat,)
    return (seat, mate)


def check_claim(game: Game, seat: int, node_limit: int = NODE_LIMIT) -> ClaimCheck:
    """Whether ``seat``'s claim of every remaining trick holds whatever the
    unseen cards are and whoever holds them, playing a line the claimer could
    follow without seeing them. Only ``view(game, seat)`` and the bids are read."""
    if not claim_possible(game, seat):
        return ClaimCheck(False, 0)
    search = _Search(view(game, seat), takers(game, seat), node_limit)
    try:
        holds: bool | None = search.run()
    except _OutOfNodes:
        holds = None
    return ClaimCheck(holds, search.nodes)


# The cards that beat card ``w`` on the table: higher in its suit, or any spade.
_BEATS = tuple(
    (SUIT_MASKS[w // 13] & ~((2 << w) - 1)) | (0 if w // 13 == SPADES else SUIT_MASKS[SPADES])
    for w in range(52)
)


def shown_voids(v: View) -> list[int]:
    """Per seat, the suits (bit s) it has shown it holds none of, from the
    tricks of this hand as everyone saw them."""
    voids = [0] * v.players
    broken = False
    tricks = [(leader, cards) for leader, cards, _ in v.tricks]
    if v.trick:
        tricks.append((v.trick_leader, tuple(c for _, c in v.trick)))
    for leader, cards in tricks:
        lead = cards[0] // 13
        if lead == SPADES and not broken:
            voids[leader] |= _NON_SPADE_SUITS  # led a spade unbroken: held only spades
        for i, c in enumerate(cards):
            if i and c // 13 != lead:
                voids[(leader + i) % v.players] |= 1 << lead
            if c // 13 == SPADES:
                broken = True
    return voids


class _Search:
    __slots__ = (
        "n",
        "me",
        "winners",
        "hand",
        "pool",
        "counts",
        "voids",
        "broken",
        "limit",
        "nodes",
        "memo",
        "feasible_memo",
        "v",
    )

    def __init__(self, v: View, winners: tuple[int, ...], limit: int) -> None:
        self.n = v.players
        self.me = v.seat
        self.winners = frozenset(winners)
        self.hand = mask_of(v.hand)
        played = 0
        for _, cards, _ in v.tricks:
            played |= mask_of(cards)
        played |= mask_of([c for _, c in v.trick])
        # The unseen pool: the partner's cards are in it too (the exchange
        # of a blind nil is not used: more layouts, never a wrong proof).
        self.pool = mask_of(deck(self.n)) & ~self.hand & ~played
        self.counts = list(v.hand_counts)
        self.voids = shown_voids(v)
        self.limit = limit
        self.nodes = 0
        self.memo: dict[tuple[object, ...], bool] = {}
        self.feasible_memo: dict[tuple[object, ...], bool] = {}
        self.v = v

    def run(self) -> bool:
        v = self.v
        if not self._feasible(self.pool, self.counts, self.voids):
            raise AssertionError("the claimer's view admits no layout")
        if not v.trick:
            return self._lead(v.to_move, v.spades_broken)
        trick = [c for _, c in v.trick]
        win_card, win_seat = trick[0], v.trick_leader
        for i, c in enumerate(trick[1:], start=1):
            if _BEATS[win_card] >> c & 1:
                win_card, win_seat = c, (v.trick_leader + i) % self.n
        return self._play(v.to_move, trick, win_card, win_seat, v.spades_broken)

    # ----------------------------------------------------------- layouts
    def _feasible(self, pool: int, counts: list[int], voids: list[int]) -> bool:
        """Can ``pool`` be dealt to the other seats, ``counts`` cards each, no
        seat a card of a suit it is void in? Hall's condition over the suits."""
        per_suit = (
            (pool & _CLUBS).bit_count(),
            (pool & _DIAMONDS).bit_count(),
            (pool & _HEARTS).bit_count(),
            (pool & _SPADES).bit_count(),
        )
        key = (per_suit, tuple(counts), tuple(voids))
        known = self.feasible_memo.get(key)
        if known is not None:
            return known
        total = 0
        cap = [0] * 16  # per set of suits: the cards the seats that may hold one can take
        for p in range(self.n):
            k = counts[p]
            if p == self.me or not k:
                continue
            total += k
            allow = ~voids[p] & 0b1111
            for subset in _SUBSETS_MEETING[allow]:
                cap[subset] += k
        ok = total == sum(per_suit)
        if ok:
            need = [0] * 16
            for subset in range(1, 16):
                low = subset & -subset
                need[subset] = need[subset ^ low] + per_suit[low.bit_length() - 1]
                if need[subset] > cap[subset]:
                    ok = False
                    break
        self.feasible_memo[key] = ok
        return ok

    # ------------------------------------------------------------ search
    def _lead(self, leader: int, broken: bool) -> bool:
        if not self.counts[leader]:
            return True  # every trick played, none lost
        key = self._key(leader, broken)
        known = self.memo.get(key)
        if known is not None:
            return known
        result = self._play(leader, [], -1, -1, broken)
        self.memo[key] = result
        return result

    def _key(self, leader: int, broken: bool) -> tuple[object, ...]:
        """The position up to the ranks already played: per suit, which of
        the live cards, in order, are the claimer's; who holds how many; the
        voids that still mean something."""
        hand, pool = self.hand, self.pool
        pattern = []
        present = 0
        for s in range(4):
            m = SUIT_MASKS[s]
            if pool & m:
                present |= 1 << s
            pattern.append(_pattern(hand & m, pool & m))
        voids = tuple(x & present for x in self.voids)
        return (tuple(pattern), tuple(self.counts), voids, leader, broken)

    def _play(
        self, seat: int, trick: list[int], win_card: int, win_seat: int, broken: bool
    ) -> bool:
        self.nodes += 1
        if self.nodes > self.limit:
            raise _OutOfNodes
        if seat == self.me:
            return self._mine(trick, win_card, win_seat, broken)
        return self._theirs(seat, trick, win_card, win_seat, broken)

    def _next(
        self, seat: int, c: int, trick: list[int], win_card: int, win_seat: int, broken: bool
    ) -> bool:
        """``seat`` has put ``c`` on ``trick`` (its hand, the pool and the
        counts already updated): the rest of the trick, or the next one."""
        if not trick or _BEATS[win_card] >> c & 1:
            win_card, win_seat = c, seat
        b = broken or c >= 39
        if len(trick) == self.n - 1:
            return win_seat in self.winners and self._lead(win_seat, b)
        trick.append(c)
        try:
            nxt = seat + 1 if seat + 1 < self.n else 0
            return self._play(nxt, trick, win_card, win_seat, b)
        finally:
            trick.pop()

    def _mine(self, trick: list[int], win_card: int, win_seat: int, broken: bool) -> bool:
        """The claimer's turn: one card that keeps every trick is enough."""
        h = self.hand
        if trick:
            legal = h & SUIT_MASKS[trick[0] // 13] or h
        elif not broken:
            legal = h & ~SUIT_MASKS[SPADES] or h
        else:
            legal = h
        choices = _runs(legal, self.pool | mask_of(trick))
        if trick and win_seat in self.winners:
            choices.reverse()  # the trick is the side's so far: try the low cards first
        me = self.me
        self.counts[me] -= 1
        try:
            for c in choices:
                self.hand = h & ~(1 << c)
                if self._next(me, c, trick, win_card, win_seat, broken):
                    return True
            return False
        finally:
            self.hand = h
            self.counts[me] += 1

    def _theirs(
        self, seat: int, trick: list[int], win_card: int, win_seat: int, broken: bool
    ) -> bool:
        """Another player's turn: every card they might hold and play must be met."""
        pool, voids, counts = self.pool, self.voids, self.counts
        mine = voids[seat]
        lead = trick[0] // 13 if trick else -1
        # Seats still to play this trick after this one, the claimer aside:
        # how far a run of the pool needs telling apart.
        later = self.n - 1 - len(trick)
        if 0 < (self.me - seat) % self.n <= later:
            later -= 1
        live_outside = self.hand | mask_of(trick)
        counts[seat] -= 1
        try:
            for s in (3, 2, 1, 0):
                cards = pool & SUIT_MASKS[s]
                if not cards or mine >> s & 1:
                    continue
                if lead >= 0:
                    now = mine if s == lead else mine | 1 << lead
                elif s == SPADES and not broken:
                    now = mine | _NON_SPADE_SUITS
                else:
                    now = mine
                low = cards & -cards
                voids[seat] = now
                ok = self._feasible(pool & ~low, counts, voids)
                voids[seat] = mine
                if not ok:
                    continue
                # A rank tells apart only in the led suit while it leads
                # the trick, or in spades; elsewhere one card of a run will do.
                if s == SPADES or (s == lead and win_card // 13 == lead) or lead < 0:
                    far = later
                else:
                    far = 0
                voids[seat] = now
                try:
                    for c in _pool_choices(cards, live_outside & SUIT_MASKS[s], far):
                        self.pool = pool & ~(1 << c)
                        if not self._next(seat, c, trick, win_card, win_seat, broken):
                            return False
                finally:
                    self.pool = pool
                    voids[seat] = mine
            return True
        finally:
            counts[seat] += 1


@functools.lru_cache(maxsize=1 << 16)
def _split(cards: int, others: int) -> tuple[tuple[int, ...], ...]:
    """``cards`` in runs, lowest first, each lowest first: a run ends where
    a suit ends or a card of ``others`` lies between two of them. Cards of
    one run are alike once the trick is over."""
    runs: list[tuple[int, ...]] = []
    run: list[int] = []
    prev = -1
    m = cards
    while m:
        low = m & -m
        c = low.bit_length() - 1
        m ^= low
        if run and (prev // 13 != c // 13 or ((1 << c) - (2 << prev)) & others):
            runs.append(tuple(run))
            run = []
        run.append(c)
        prev = c
    if run:
        runs.append(tuple(run))
    return tuple(runs)


def _runs(cards: int, others: int) -> list[int]:
    """One card of each run of ``cards`` (none of ``others`` between two of
    them, in one suit), highest first: the likeliest to settle a trick."""
    return [run[-1] for run in reversed(_split(cards, others))]


@functools.lru_cache(maxsize=1 << 16)
def _pattern(mine: int, theirs: int) -> tuple[int, int]:
    """The live cards of one suit in order, as (how many, which are mine)."""
    live = mine | theirs
    bits, length = 0, 0
    while live:
        low = live & -live
        live ^= low
        if mine & low:
            bits |= 1 << length
        length += 1
    return length, bits


@functools.lru_cache(maxsize=1 << 16)
def _pool_choices(cards: int, others: int, later: int) -> tuple[int, ...]:
    """The pool's cards of one suit a player may put down, one of each kind,
    highest first. Cards of one run (no card of ``others`` between them) are
    alike once the trick is over; within it, a card stands against the cards
    of the same run the ``later`` players may still bring, so it counts by
    how many of the run lie below and above it, each up to ``later``."""
    out: list[int] = []
    for run in _split(cards, others):
        m = len(run)
        seen = set()
        for i in range(m - 1, -1, -1):
            kind = (min(i, later), min(m - 1 - i, later))
            if kind not in seen:
                seen.add(kind)
                out.append(run[i])
    # Runs were found lowest first: the highest run first, as within each.
    return tuple(sorted(out, reverse=True))
