"""A person's play of «Сдача дня»: the link that starts it, their presses,
the computer's three seats, and picking up every play after a restart.

The person plays one hand from the date's seat; the computer («мастер» by
default: the bot's ``AI_LEVEL``) holds the other three, each deciding from
its own seat's view only (``engine.view``), in the worker pool like the live
tables' computers. Every move is a row (``day_moves``) committed with the
private message it causes before the press is answered: a double press
meets the unique key, and after ``kill -9`` the play is rebuilt from its rows.

Fair comparison: a computer's decision depends on the date's seed, the moves
before it and its seat's view; it is searched once with the level's full
budget (never a share of a busy pool) and stored by the moves before it
(``day_decisions``), so every person who reaches the same point meets the
very same decision, also when a search would come out otherwise later.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import sqlite3
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial

from bot.model import LiveTable, TableStatus
from bot.outbox import enqueue_put, enqueue_repost
from bot.services.computer import Computer
from bot.services.errors import UserError
from bot.services.live import Ctx
from bot.services.tables import Person
from bot.storage import repo_day, repo_users
from bot.storage.repo_day import Day, Deal, Play
from bot.tasks import cancel_and_wait
from bot.views.day import day_done_text, day_hand
from bot.views.keyboard import Keyboard
from engine import CLASSIC, Game, view
from engine.ai import DEFAULT_BUDGET_MS
from engine.scoring import side_of

log = logging.getLogger(__name__)

#: One hand of the classic rules, four players: the day's game.
RULES = CLASSIC
#: The one refusal of a day's link: no such day, a wrong key, a closed day,
#: someone not in the group. It names no group.
UNAVAILABLE = "day-unavailable"

MemberCheck = Callable[[int, int], Awaitable[bool | None]]


def rebuild(deal: Deal, actions: list[int]) -> Game:
    """The play as it stands: the date's deal and the moves made."""
    return Game.replay(RULES, deal.seed, actions, deal.dealer)


def done(g: Game) -> bool:
    """The day is one hand: over once the first hand is scored."""
    return len(g.sheet) >= 1


@dataclass(frozen=True, slots=True)
class Result:
    bid: int
    tricks: int
    score: int


def result(g: Game, seat: int) -> Result:
    """The person's bid and tricks, and their side's score of the hand as the
    day counts it (docs/rules.md): the contract's and the nils' points,
    each bag +1 and −10 (its share of the −100 for ten)."""
    line = g.sheet[0]
    side = line["sides"][side_of(RULES.players, seat)]
    score = (
        side["contract_points"]
        + side["nil"]
        + side["bonus"]
        + side["overtricks"]
        - 10 * side["bags_new"]
    )
    return Result(int(line["bids"][seat]), int(line["tricks"][seat]), int(score))


def history_key(actions: list[int]) -> str:
    return ",".join(map(str, actions))


class DayPlays:
    def __init__(self, ctx: Ctx, computer: Computer, is_member: MemberCheck) -> None:
        self.ctx = ctx
        self.computer = computer
        self.is_member = is_member
        self._locks: weakref.WeakValueDictionary[tuple[str, int], asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )
        self._runners: dict[tuple[str, int], asyncio.Task[None]] = {}
        # The searches running, by (date, moves before): one per point of a deal.
        self._deciding: dict[tuple[str, str], asyncio.Task[int]] = {}
        # At most one day's search per worker in the pool at a time: a live
        # table's search waits behind one of them at most, never behind the
        # whole crowd that opened its day at 09:00 (the days queue here instead).
        self._slots = asyncio.Semaphore(max(1, ctx.settings.ai_workers))
        self._stopped = False

    def _lock(self, date: str, user_id: int) -> asyncio.Lock:
        lock = self._locks.get((date, user_id))
        if lock is None:
            lock = self._locks[(date, user_id)] = asyncio.Lock()
        return lock

    # ------------------------------------------------------------ the link
    async def from_link(self, day_id: int, key: str, who: Person) -> None:
        """``/start day_<id>_<key>``: a member of the day's group starts (or
        gets back to) the day's hand; anyone else gets the one refusal."""
        day = await repo_day.get_day(self.ctx.db, day_id)
        if day is None or day.closed or not hmac.compare_digest(day.key, key):
            raise UserError(UNAVAILABLE)
        member = await self.is_member(day.chat_id, who.user_id)
        if member is None:
            raise UserError("err-member-unknown")
        if not member:
            raise UserError(UNAVAILABLE)
        deal = await repo_day.deal(self.ctx.db, day.date)
        assert deal is not None, "a day's deal is stored before it opens"
        async with self._lock(day.date, who.user_id):
            play = await repo_day.get_play(self.ctx.db, day.date, who.user_id)
            fresh = play is None
            if play is None:
                play = Play(day.date, who.user_id, day.day_id, self.ctx.clock.now(), *[None] * 4)
            elif play.day_id != day.day_id:
                # Played (or begun) by another group's link: once a date, that one.
                day = await repo_day.get_day(self.ctx.db, play.day_id) or day
            actions = [] if fresh else await repo_day.moves(self.ctx.db, day.date, who.user_id)
            text, markup = await self._message(day, deal, play, actions)
            async with self.ctx.db.tx() as conn:
                if fresh:
                    await repo_day.start_play(
                        conn, day.date, who.user_id, day.day_id, play.started_at
                    )
                # Anew at the bottom of the chat: the link may be pressed again later.
                await enqueue_repost(
                    conn, who.user_id, hand_key(day.date, who.user_id), text, markup
                )
        self.ctx.changed()
        self.kick(day.date, who.user_id)

    # ------------------------------------------------------------ a press
    async def press(self, day_id: int, user_id: int, seq: int, action: int) -> None:
        """A bid or a card of the person's own hand: it counts only for their
        play of this very day, at this move number, on their turn."""
        day = await repo_day.get_day(self.ctx.db, day_id)
        if day is None or day.closed:
            raise UserError("err-stale")
        async with self._lock(day.date, user_id):
            play = await repo_day.get_play(self.ctx.db, day.date, user_id)
            deal = await repo_day.deal(self.ctx.db, day.date)
            if play is None or play.day_id != day_id or play.finished_at is not None:
                raise UserError("err-stale")
            assert deal is not None
            actions = await repo_day.moves(self.ctx.db, day.date, user_id)
            g = rebuild(deal, actions)
            if seq != len(actions) or done(g) or g.to_move != deal.seat:
                raise UserError("err-stale")
            if action not in g.legal_actions():
                raise UserError("err-stale")
            await self._commit(day, deal, play, actions, action)
        self.kick(day.date, user_id)

    async def why(self, day_id: int, user_id: int, seq: int, action: int) -> str:
        """Why a marked card cannot be played: the engine's own refusal, as a locale key."""
        day = await repo_day.get_day(self.ctx.db, day_id)
        play = await repo_day.get_play(self.ctx.db, day.date, user_id) if day else None
        if day is None or play is None or play.day_id != day_id:
            return "err-stale"
        deal = await repo_day.deal(self.ctx.db, day.date)
        actions = await repo_day.moves(self.ctx.db, day.date, user_id)
        if deal is None or seq != len(actions):
            return "err-stale"
        code = rebuild(deal, actions).refusal(action, deal.seat)
        return "err-stale" if code is None else f"err-{code}"

    async def _commit(
        self, day: Day, deal: Deal, play: Play, actions: list[int], action: int
    ) -> None:
        """One move and the message it causes, in one transaction; the hand's
        end records the person's result in it too."""
        seq = len(actions)
        actions = [*actions, action]
        g = rebuild(deal, actions)
        now = self.ctx.clock.now()
        text, markup = await self._message(day, deal, play, actions, finishing=done(g))
        try:
            async with self.ctx.db.tx() as conn:
                if not await repo_day.add_move(conn, day.date, play.user_id, seq, action):
                    return  # the person asked to be forgotten meanwhile: nothing to show them
                if done(g):
                    r = result(g, deal.seat)
                    await repo_day.finish_play(
                        conn, day.date, play.user_id, r.bid, r.tricks, r.score, now
                    )
                await enqueue_put(
                    conn, play.user_id, hand_key(day.date, play.user_id), text, markup
                )
        except sqlite3.IntegrityError:
            raise UserError("err-stale") from None
        self.ctx.changed()

    async def _message(
        self, day: Day, deal: Deal, play: Play, actions: list[int], *, finishing: bool = False
    ) -> tuple[str, Keyboard | None]:
        """The person's private message: their hand as it stands, or once it
        is over their own score and how many have played (nothing else);
        ``finishing``: this move ends it, their play not yet counted."""
        user = await repo_users.get_user(self.ctx.db, play.user_id)
        group = await repo_day.group(self.ctx.db, day.chat_id)
        lang = (user.lang if user and user.lang else None) or (group["lang"] if group else "ru")
        tr = partial(self.ctx.texts, lang)
        title = group["title"] if group else ""
        g = rebuild(deal, actions)
        if done(g):
            plays = await repo_day.plays_of_day(self.ctx.db, day.day_id)
            played = len([p for p in plays if p.finished_at]) + int(finishing)
            r = result(g, deal.seat)
            return day_done_text(
                tr, title, r.bid, r.tricks, r.score, played, day.closes_at, self.ctx.settings.zone
            ), None
        table = seat_table(day, deal, title, lang, play.user_id, user.first_name if user else "")
        table.game = g
        return day_hand(tr, table, view(g, deal.seat), day.day_id, len(actions))

    # ------------------------------------------------------- the computer
    def kick(self, date: str, user_id: int) -> None:
        """Make sure the computer seats of this play get to move."""
        if self._stopped:
            return
        task = self._runners.get((date, user_id))
        if task is None or task.done():
            self._runners[(date, user_id)] = asyncio.create_task(self._run(date, user_id))

    async def _run(self, date: str, user_id: int) -> None:
        try:
            while await self._computer_move(date, user_id):
                pass
        except Exception:
            log.exception("a computer move of a day's play failed")
        finally:
            self._runners.pop((date, user_id), None)

    async def _computer_move(self, date: str, user_id: int) -> bool:
        """One computer move if one is due; False when it is the person's turn
        (or the hand is over, or the day closed)."""
        async with self._lock(date, user_id):
            play = await repo_day.get_play(self.ctx.db, date, user_id)
            deal = await repo_day.deal(self.ctx.db, date)
            if play is None or deal is None or play.finished_at is not None:
                return False
            day = await repo_day.get_day(self.ctx.db, play.day_id)
            if day is None or day.closed:
                return False
            actions = await repo_day.moves(self.ctx.db, date, user_id)
            g = rebuild(deal, actions)
            if done(g) or g.to_move == deal.seat:
                return False
            action = await self._decide(deal, g, actions)
            await self._commit(day, deal, play, actions, action)
            return True

    async def _decide(self, deal: Deal, g: Game, actions: list[int]) -> int:
        """The decision stored for this point of the date's deal, else the
        computer's (searched with the level's full budget) stored now. The
        people who reach one point at once (everyone, before their first
        bid) wait for one search: the pool is not asked the same thing twice."""
        key = history_key(actions)
        known = await repo_day.decision(self.ctx.db, deal.date, key)
        if known is not None:
            return known
        flight = self._deciding.get((deal.date, key))
        if flight is None:
            flight = asyncio.create_task(self._search(deal, g, key, len(actions)))
            self._deciding[(deal.date, key)] = flight
            flight.add_done_callback(lambda _: self._deciding.pop((deal.date, key), None))
        return await asyncio.shield(flight)

    async def _search(self, deal: Deal, g: Game, key: str, made: int) -> int:
        level = self.ctx.settings.ai_level
        budget = DEFAULT_BUDGET_MS.get(level, 0) or None
        seed = deal.seed ^ (made * 0x9E3779B1)
        async with self._slots:
            action = await self.computer.think(
                self.computer.chooser, view(g, g.to_move), level, seed, budget
            )
        async with self.ctx.db.tx() as conn:
            await repo_day.add_decision(conn, deal.date, key, action)
        # One stored a moment before (a search that had just ended): that one counts.
        stored = await repo_day.decision(self.ctx.db, deal.date, key)
        return action if stored is None else stored

    async def resume(self, since: str) -> None:
        """After a restart: every unfinished play of an open day goes on."""
        for play in await repo_day.unfinished_plays(self.ctx.db, since):
            self.kick(play.date, play.user_id)

    async def stop(self) -> None:
        self._stopped = True
        await cancel_and_wait([*self._runners.values(), *self._deciding.values()])
        self._runners.clear()
        self._deciding.clear()


def hand_key(date: str, user_id: int) -> str:
    """The outbox key of a person's day message (edited as the hand goes on)."""
    return f"day:{date}:{user_id}"


def seat_table(day: Day, deal: Deal, title: str, lang: str, user_id: int, name: str) -> LiveTable:
    """The play as a table for the hand views: the person at the date's seat,
    the computer in the others (it is never stored as a table)."""
    seats: list[int | None] = [None] * RULES.players
    seats[deal.seat] = user_id
    return LiveTable(
        table_id=0,
        chat_id=day.chat_id,
        chat_title=title,
        creator_id=0,
        status=TableStatus.PLAYING,
        rules=RULES,
        lang=lang,
        seats=seats,
        names={user_id: name},
        looked=set(range(RULES.players)),
    )
