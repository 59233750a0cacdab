"""Claiming the rest of a hand («Остальные мои»): does the claim hold against
any defence?

The check is exact: a search over the cards still in the hands (all of them,
which only the engine knows), where the claimer's side chooses its cards to
take every remaining trick and the defenders choose theirs to take one. It
stops at the first trick the defence takes. Two things keep it small: cards
of one hand with nothing left between them are one choice (which of them is
played never changes who takes a trick), and a position at the start of a
trick is decided once (the same cards can be reached in many orders).

Within ``NODE_LIMIT`` positions the answer is proved either way; beyond it
the claim is "not proved" and the table votes on it (the safe side: the
opponents decide). The limit was chosen from the cases measured by
``python -m bench.claims`` (docs/engine.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.cards import NON_SPADES_MASK, SPADES, SUIT_MASKS
from engine.game import PLAY, Game
from engine.scoring import partner

#: Positions the search may visit before it gives up ("not proved": the
#: table votes). Claims with eight tricks or fewer left, where people claim,
#: are decided far within it; a full hand sometimes is not, and would take
#: several times longer to decide. It bounds a claim to a fraction of a second
#: of one core (``python -m bench.claims``, docs/engine.md).
NODE_LIMIT = 200_000


@dataclass(frozen=True, slots=True)
class ClaimCheck:
    """``holds``: True proved, False refuted by some defence, None undecided
    within the limit. ``nodes``: positions visited."""

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
    defenders play, the claimer's side playing its best (its partner helps
    even when the claim is the claimer's alone)."""
    if not claim_possible(game, seat):
        return ClaimCheck(False, 0)
    search = _Search(game, seat, node_limit)
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


class _Search:
    __slots__ = ("n", "hands", "maximisers", "winners", "limit", "nodes", "memo", "game")

    def __init__(self, game: Game, seat: int, limit: int) -> None:
        self.n = game.n
        self.hands = list(game.hands)
        mate = partner(game.n, seat)
        self.maximisers = frozenset((seat,) if mate is None else (seat, mate))
        self.winners = frozenset(takers(game, seat))
        self.limit = limit
        self.nodes = 0
        self.memo: dict[tuple[tuple[int, ...], int, bool], bool] = {}
        self.game = game

    def run(self) -> bool:
        g = self.game
        trick = list(g.trick)
        if not trick:
            return self._lead(g.to_move, g.spades_broken)
        leader = g.trick_leader
        win_card, win_seat = trick[0], leader
        for i, c in enumerate(trick[1:], start=1):
            if _BEATS[win_card] >> c & 1:
                win_card, win_seat = c, (leader + i) % self.n
        return self._play(g.to_move, trick, win_card, win_seat, g.spades_broken)

    def _lead(self, leader: int, broken: bool) -> bool:
        if not self.hands[leader]:
            return True  # every trick played, none lost
        key = (tuple(self.hands), leader, broken)
        known = self.memo.get(key)
        if known is not None:
            return known
        result = self._play(leader, [], -1, -1, broken)
        self.memo[key] = result
        return result

    def _play(
        self, seat: int, trick: list[int], win_card: int, win_seat: int, broken: bool
    ) -> bool:
        self.nodes += 1
        if self.nodes > self.limit:
            raise _OutOfNodes
        hands = self.hands
        h = hands[seat]
        if trick:
            legal = h & SUIT_MASKS[trick[0] // 13] or h
        elif not broken:
            legal = h & NON_SPADES_MASK or h
        else:
            legal = h
        maximiser = seat in self.maximisers
        n = self.n
        last = len(trick) == n - 1
        nxt = seat + 1 if seat + 1 < n else 0
        choices = self._choices(legal, trick)
        if maximiser and trick and win_seat in self.winners:
            choices.reverse()  # the trick is the side's already: keep the high cards
        for c in choices:
            if not trick or _BEATS[win_card] >> c & 1:
                w_card, w_seat = c, seat
            else:
                w_card, w_seat = win_card, win_seat
            hands[seat] = h & ~(1 << c)
            b = broken or c >= 39
            if last:
                result = w_seat in self.winners and self._lead(w_seat, b)
            else:
                trick.append(c)
                result = self._play(nxt, trick, w_card, w_seat, b)
                trick.pop()
            hands[seat] = h
            if result == maximiser:
                return result  # the side to move found its way
        return not maximiser

    def _choices(self, legal: int, trick: list[int]) -> list[int]:
        """One card of each run of ``legal`` (no card still out between two of
        them), highest first: the likeliest to settle a trick either way."""
        present = 0
        for m in self.hands:
            present |= m
        for c in trick:
            present |= 1 << c
        out: list[int] = []
        prev = -1
        m = legal
        while m:
            low = m & -m
            c = low.bit_length() - 1
            m ^= low
            between = ((1 << c) - 1) & ~((2 << prev) - 1) if prev >= 0 else 0
            if prev >= 0 and prev // 13 == c // 13 and not between & present:
                out[-1] = c  # same run: keep the higher one
            else:
                out.append(c)
            prev = c
        out.reverse()
        return out
