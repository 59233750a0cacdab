"""Teaching: the master's hint for the move at hand (the 💡 of the table
option «Подсказки») and ``/review`` of one's last finished hand.

Both are searches of the master (``engine.ai.teach``), run where the computer
player thinks (``PlayService.think``: its worker processes, else a thread),
never on the event loop, and each from the asking seat's own view: the
engine is given only what that seat may know. A hint shown is counted per
seat per game in the database; the results show the counts.
"""

from __future__ import annotations

import dataclasses
import logging
from collections import OrderedDict
from dataclasses import dataclass
from typing import TypeVar

from bot.model import HintAnswer, LiveTable, TableStatus, rules_from_json
from bot.services.errors import UserError, paused_error
from bot.services.live import Registry
from bot.services.play import PlayService
from bot.storage import repo_teaching
from bot.views.hand import blind_pending
from bot.views.teach import Review
from engine import BLIND, Game, view
from engine.ai import Hint, Mistake, hint, review
from engine.game import BIDDING, EXCHANGE, PLAY
from engine.replay import record_of

log = logging.getLogger(__name__)

K = TypeVar("K")
V = TypeVar("V")

# Answers kept in memory: a 💡 pressed again, or /review asked again, costs no search.
CACHE_SIZE = 512
# How many of the user's most recent games /review looks through.
REVIEW_GAMES = 3


@dataclass(frozen=True, slots=True)
class ReviewTarget:
    """The hand to review: the game replayed, the seat, the hand's index and
    the moves of that hand the computer made for the seat (not the person's)."""

    table_id: int
    game_id: int
    game: Game
    seat: int
    hand: int
    ended_at: float
    computer_moves: frozenset[tuple[str, int | None, int]]


class TeachService:
    def __init__(self, reg: Registry, play: PlayService) -> None:
        self.reg = reg
        self.ctx = reg.ctx
        self.play = play
        self._hints: OrderedDict[tuple[int, int, int], Hint] = OrderedDict()
        self._reviews: OrderedDict[tuple[int, int, int], list[Mistake]] = OrderedDict()
        self._reviewing: set[int] = set()

    # --------------------------------------------------------------- hints
    async def hint(self, table_id: int, user_id: int, seq: int) -> HintAnswer:
        """The 💡 pressed at move ``seq``: refused unless hints are on at this
        table and it is still the presser's turn at that very move."""
        async with self.reg.lock(table_id):
            live, seat = await self._hint_seat(table_id, user_id, seq)
            assert live.game is not None and live.game_id is not None
            game_id = live.game_id
            v = view(live.game, seat)
            blind_call = v.phase == BIDDING and blind_pending(live, seat)
            if BLIND in v.legal and not blind_call:
                # The cards are open: blind nil is no longer this person's to call.
                v = dataclasses.replace(v, legal=tuple(a for a in v.legal if a != BLIND))
        key = (game_id, seq, seat)
        found = self._hints.get(key)
        if found is None:
            found = await self.play.think(hint, v, _seed(game_id, seq), None)
            _remember(self._hints, key, found)
        async with self.reg.lock(table_id):
            now = await self.reg.get(table_id)
            if now is None or now.game_id != game_id or now.seq != seq:
                raise UserError("err-stale")  # moved on while the master thought
            async with self.ctx.db.tx() as conn:
                if await repo_teaching.add_hint_use(conn, game_id, seat, seq):
                    now.hint_counts[seat] = now.hint_counts.get(seat, 0) + 1
        return HintAnswer(str(v.phase), found.action, found.reason, blind_call)

    async def _hint_seat(self, table_id: int, user_id: int, seq: int) -> tuple[LiveTable, int]:
        live = await self.reg.get(table_id)
        if live is None or live.status != TableStatus.PLAYING or live.game is None:
            raise UserError("err-stale")
        seat = live.seat_of(user_id)
        if seat is None:
            raise UserError("err-not-at-table")
        if not live.hints:
            raise UserError("err-hints-off")
        if live.paused:
            raise paused_error(live)
        g = live.game
        if seq != live.seq or g.finished or g.to_move != seat or seat in live.away:
            raise UserError("err-stale")
        if g.phase not in (BIDDING, EXCHANGE, PLAY):
            raise UserError("err-stale")
        return live, seat

    # -------------------------------------------------------------- review
    async def review(self, user_id: int) -> Review:
        """``/review``: the costliest of the person's decisions in their most
        recent finished hand, as the master sees them (maybe none); refused
        while their last one is still being looked at, or with no hand."""
        if user_id in self._reviewing:
            raise UserError("review-busy")
        self._reviewing.add(user_id)
        try:
            target = await self._review_target(user_id)
            if target is None:
                raise UserError("review-none")
            live = await self.reg.get(target.table_id)
            if live is None:
                raise UserError("review-none")
            key = (target.game_id, target.hand, target.seat)
            mistakes = self._reviews.get(key)
            if mistakes is None:
                mistakes = await self._find_mistakes(target)
                _remember(self._reviews, key, mistakes)
            mistakes = [
                m for m in mistakes if (m.phase, m.trick, m.played) not in target.computer_moves
            ]
            return Review(live, target.game, target.hand, mistakes)
        finally:
            self._reviewing.discard(user_id)

    async def _find_mistakes(self, target: ReviewTarget) -> list[Mistake]:
        record = record_of(target.game)
        seed = _seed(target.game_id, target.hand)
        try:
            return await self.play.think(review, record, target.seat, target.hand, seed, None)
        except ValueError as e:
            # The message may name cards: the log gets its kind, not its words.
            log.error("review of game %s hand %s failed: %s", target.game_id, target.hand, type(e))
            return []

    async def _review_target(self, user_id: int) -> ReviewTarget | None:
        """The user's most recent finished hand in which they moved themselves,
        among their latest games."""
        best: ReviewTarget | None = None
        for cand in await repo_teaching.review_candidates(self.ctx.db, user_id, REVIEW_GAMES):
            found = await self._last_hand(cand, user_id)
            if found is not None and (best is None or found.ended_at > best.ended_at):
                best = found
        return best

    async def _last_hand(
        self, cand: repo_teaching.ReviewCandidate, user_id: int
    ) -> ReviewTarget | None:
        rows = await repo_teaching.game_action_rows(self.ctx.db, cand.game.game_id)
        if not rows:
            return None
        rules = rules_from_json(cand.game.rules_json)
        g = Game(rules, cand.game.seed, cand.game.first_dealer)
        seat = cand.seat
        # Per finished hand: when it ended, whether the person moved in it,
        # and the seat's moves the computer made (a timeout, or away).
        hands: list[tuple[float, bool, frozenset[tuple[str, int | None, int]]]] = []
        mine = False
        computer: set[tuple[str, int | None, int]] = set()
        for row in rows:
            phase = str(g.phase)
            trick = len(g.tricks) + 1 if g.phase is PLAY else None
            before = len(g.sheet)
            g.replay_action(row.action)
            if row.seat == seat:
                if row.by_user == user_id:
                    mine = True
                else:
                    computer.add((phase, trick, row.action))
            if len(g.sheet) > before:
                hands.append((row.at, mine, frozenset(computer)))
                mine, computer = False, set()
        for index in range(len(hands) - 1, -1, -1):
            ended_at, moved, by_computer = hands[index]
            if moved:
                return ReviewTarget(
                    cand.game.table_id, cand.game.game_id, g, seat, index, ended_at, by_computer
                )
        return None


def _seed(game_id: int, n: int) -> int:
    """A search seed for a moment of a game: stable, and not the deal's seed."""
    return (game_id * 1_000_003 + n) & ((1 << 62) - 1)


def _remember(cache: OrderedDict[K, V], key: K, value: V) -> None:
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > CACHE_SIZE:
        cache.popitem(last=False)
