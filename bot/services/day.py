"""«Сдача дня» (issue #49): the same deal for the whole group, played by each
person in private at their own time, compared when the day closes.

A group turns it on or off (``/day on|off``: an admin, also anonymously, or
whoever opened the group's first table) and may move its opening hour
(``/day 10:00``; 09:00 in the bot's zone by default). At that hour the
group's day opens: one message with the link to play; 24 hours later it
closes with the table of results, and the next day opens. The deal of a
date is shared by every group, and stored before any day of that date opens
(together with the next date's), never recomputed. The person's play is
:mod:`bot.services.day_play`'s; what the group and the person read,
:mod:`bot.views.day`'s.
"""

from __future__ import annotations

import logging
import math
import random
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import date as Date
from datetime import datetime, time, timedelta, tzinfo
from functools import partial

from bot.outbox import enqueue_put, enqueue_send
from bot.services.day_play import RULES, DayPlays, rebuild, seat_table
from bot.services.errors import UserError
from bot.services.live import Ctx
from bot.storage import repo_day, repo_users
from bot.storage.repo_day import Day, Deal, Play
from bot.views.day import (
    DayLine,
    close_message,
    closed_opening_text,
    opening_message,
    own_days_text,
    state_text,
)
from bot.views.record import record_text
from engine.record import hand_record

log = logging.getLogger(__name__)

#: Who may turn the day on or off in a group: (chat, user) -> admin there?
AdminCheck = Callable[[int, int], Awaitable[bool]]
DEFAULT_MINUTE = 9 * 60
#: Days (or groups) opened or closed in one pass of the timer loop: 500 groups
#: at the same hour are many short transactions, the live tables' between them.
BATCH = 20
#: Seconds before openings and closings that failed are tried again.
RETRY_AFTER = 60.0
#: The last days a person's /day in private lists.
OWN_DAYS = 7


def local_date(moment: float, zone: tzinfo) -> str:
    return datetime.fromtimestamp(moment, zone).date().isoformat()


def next_opening(after: float, minute: int, zone: tzinfo) -> float:
    """The first moment strictly after ``after`` when the clock in ``zone`` reads ``minute``."""
    local = datetime.fromtimestamp(after, zone)
    at = time(minute // 60, minute % 60)
    for days in range(3):
        moment = datetime.combine(local.date() + timedelta(days=days), at, zone).timestamp()
        if moment > after:
            return moment
    raise AssertionError("an opening within two days")


def parse_minute(text: str) -> int | None:
    """``9:30`` or ``09:30`` → 570; anything else None."""
    hh, sep, mm = text.partition(":")
    if not sep or not (hh.isascii() and hh.isdigit() and mm.isascii() and mm.isdigit()):
        return None
    if len(hh) > 2 or len(mm) != 2 or int(hh) > 23 or int(mm) > 59:
        return None
    return int(hh) * 60 + int(mm)


def new_deal(date: str) -> Deal:
    """A fresh deal for ``date``: a seed, the dealer and the person's seat."""
    rng = random.SystemRandom()
    return Deal(date, rng.randrange(1 << 62), rng.randrange(4), rng.randrange(4))


@dataclass(frozen=True, slots=True)
class Setting:
    """How ``/day`` changed the group's day (for the reply)."""

    enabled: bool
    minute: int
    next_at: float | None


def matchpoints(scores: list[int], mine: int) -> float:
    """1 for each other score below ``mine``, ½ for each equal one
    (``scores`` holds ``mine`` itself once)."""
    below = sum(1 for s in scores if s < mine)
    equal = sum(1 for s in scores if s == mine) - 1
    return below + equal / 2


def better_than(scores: list[int], mine: int) -> int | None:
    """«лучше, чем у N % сыгравших»: matchpoints over the others, as a percent."""
    if len(scores) < 2:
        return None
    return round(100 * matchpoints(scores, mine) / (len(scores) - 1))


class DayService:
    def __init__(self, ctx: Ctx, plays: DayPlays, is_admin: AdminCheck) -> None:
        self.ctx = ctx
        self.plays = plays
        self.is_member = plays.is_member
        self.is_admin = is_admin
        self._resumed = False
        # The next opening or closing, as last read (0: read again). Only this
        # service changes them, so the timer loop's many wake-ups cost nothing.
        self._next_at = 0.0
        # (user, day) -> when the best line's record was sent: a double tap sends it once.
        self._records: dict[tuple[int, int], float] = {}

    @property
    def zone(self) -> tzinfo:
        return self.ctx.settings.zone

    # ------------------------------------------------------ the group's setting
    async def configure(
        self,
        chat_id: int,
        title: str,
        thread_id: int,
        lang: str,
        user_id: int | None,
        anonymous_admin: bool,
        arg: str,
    ) -> Setting:
        """``/day on``, ``/day off``, ``/day HH:MM`` by an admin of the group
        (asked of the group itself; an anonymous admin of it counts) or the
        creator of its first table (``user_id``; None: not a person)."""
        words = arg.lower().split()
        switch = [w for w in words if w in ("on", "off")]
        minutes = [parse_minute(w) for w in words if w not in ("on", "off")]
        if not words or len(switch) > 1 or len(minutes) > 1 or None in minutes:
            raise UserError("day-usage")
        if not anonymous_admin:
            if user_id is None:
                raise UserError("err-write-as-yourself")
            creator = await repo_day.first_creator(self.ctx.db, chat_id)
            if creator != user_id and not await self.is_admin(chat_id, user_id):
                raise UserError("day-not-allowed")
        row = await repo_day.group(self.ctx.db, chat_id)
        enabled = bool(row["enabled"]) if row is not None else False
        old_minute = int(row["open_minute"]) if row is not None else DEFAULT_MINUTE
        if switch:
            enabled = switch[0] == "on"
        minute = minutes[0] if minutes and minutes[0] is not None else old_minute
        now = self.ctx.clock.now()
        next_at = next_opening(now, minute, self.zone) if enabled else None
        async with self.ctx.db.tx() as conn:
            await repo_day.set_group(
                conn,
                chat_id,
                enabled=enabled,
                open_minute=minute,
                title=title,
                lang=lang,
                thread_id=thread_id,
                next_at=next_at,
            )
        self._next_at = 0.0
        self.ctx.changed()
        return Setting(enabled, minute, next_at)

    # ------------------------------------------------------------ the timer
    async def due(self, now: float) -> float | None:
        """The days whose time has come are closed, then the groups' next days
        opened; the next such moment. Run by the timer loop."""
        if not self._resumed:
            self._resumed = True
            await self.plays.resume(local_date(now - 2 * 86400, self.zone))
        if now < self._next_at:
            return None if self._next_at == math.inf else self._next_at
        try:
            return await self._due(now)
        except Exception:
            # The live tables' deadlines share this loop: a failure here must not end it.
            log.exception("the deal of the day's openings and closings failed")
            self._next_at = now + RETRY_AFTER
            return self._next_at

    async def _due(self, now: float) -> float | None:
        while days := await repo_day.days_to_close(self.ctx.db, now, BATCH):
            for day in days:
                await self._close(day)
        while groups := await repo_day.groups_due(self.ctx.db, now, BATCH):
            for row in groups:
                await self._open(row["chat_id"], float(row["next_at"]))
        moments = [
            m
            for m in (
                await repo_day.next_closing(self.ctx.db),
                await repo_day.next_opening(self.ctx.db),
            )
            if m is not None
        ]
        self._next_at = min(moments) if moments else math.inf
        return min(moments) if moments else None

    async def _open(self, chat_id: int, at: float) -> None:
        """The group's day opens (the deal of its date, and the next date's,
        stored first if no group stored them before); one message."""
        row = await repo_day.group(self.ctx.db, chat_id)
        if row is None or row["next_at"] is None:
            return
        minute = int(row["open_minute"])
        closes_at = next_opening(at, minute, self.zone)
        now = self.ctx.clock.now()
        while closes_at <= now:  # the bot was down over a whole day: only today's opens
            at, closes_at = closes_at, next_opening(closes_at, minute, self.zone)
        date = local_date(at, self.zone)
        tomorrow = (Date.fromisoformat(date) + timedelta(days=1)).isoformat()
        key = secrets.token_hex(8)
        tr = partial(self.ctx.texts, row["lang"])
        async with self.ctx.db.tx() as conn:
            await repo_day.add_deal(conn, new_deal(date))
            await repo_day.add_deal(conn, new_deal(tomorrow))
            await repo_day.set_next(conn, chat_id, closes_at)
            day_id = await repo_day.open_day(conn, chat_id, date, key, at, closes_at)
            if day_id is not None:
                text, markup = opening_message(tr, self.link(day_id, key), closes_at, self.zone)
                await enqueue_send(
                    conn, chat_id, text, markup, key=opening_key(day_id), thread=row["thread_id"]
                )
        self.ctx.changed()

    def link(self, day_id: int, key: str) -> str:
        return f"https://t.me/{self.ctx.bot_username}?start=day_{day_id}_{key}"

    async def _close(self, day: Day) -> None:
        """One group message: each player's bid, tricks, score and matchpoints,
        the share of every group's players they did better than, and the
        best line's record a tap away. Who has left the group is not listed."""
        group = await repo_day.group(self.ctx.db, day.chat_id)
        lang = group["lang"] if group else "ru"
        thread = group["thread_id"] if group else 0
        tr = partial(self.ctx.texts, lang)
        lines = await self._lines(day)
        unfinished = len(
            [p for p in await repo_day.plays_of_day(self.ctx.db, day.day_id) if not p.finished_at]
        )
        async with self.ctx.db.tx() as conn:
            if not await repo_day.close_day(conn, day.day_id):
                return
            await enqueue_put(
                conn,
                day.chat_id,
                opening_key(day.day_id),
                closed_opening_text(tr, day.closes_at, self.zone),
                None,
                thread=thread,
            )
            text, markup = close_message(tr, day.day_id, lines, unfinished)
            await enqueue_send(conn, day.chat_id, text, markup, thread=thread)
        self.ctx.changed()

    async def _lines(self, day: Day) -> list[DayLine]:
        """The finished plays of the group's day whose players are still in the
        group (Telegram asked; no answer keeps them), best first."""
        plays = [p for p in await repo_day.plays_of_day(self.ctx.db, day.day_id) if p.finished_at]
        kept: list[Play] = []
        for p in plays:
            if await self.is_member(day.chat_id, p.user_id) is not False:
                kept.append(p)
        users = await repo_users.get_users(self.ctx.db, [p.user_id for p in kept])
        everyone = await repo_day.scores_of_date(self.ctx.db, day.date)
        scores = [int(p.score or 0) for p in kept]
        lines = [
            DayLine(
                user_id=p.user_id,
                name=users[p.user_id].first_name if p.user_id in users else "",
                bid=int(p.bid or 0),
                tricks=int(p.tricks or 0),
                score=int(p.score or 0),
                points=matchpoints(scores, int(p.score or 0)),
                percent=better_than(everyone, int(p.score or 0)),
                finished_at=float(p.finished_at or 0),
            )
            for p in kept
        ]
        lines.sort(key=lambda x: (-x.score, x.finished_at))
        return lines

    # -------------------------------------------------------------- /day
    async def group_state(self, chat_id: int, lang: str) -> str:
        """``/day`` in the group: whether it is on, who played and who is
        playing today's deal, when it closes (no score before the close)."""
        tr = partial(self.ctx.texts, lang)
        row = await repo_day.group(self.ctx.db, chat_id)
        day = await repo_day.running_day(self.ctx.db, chat_id)
        plays = await repo_day.plays_of_day(self.ctx.db, day.day_id) if day else []
        users = await repo_users.get_users(self.ctx.db, [p.user_id for p in plays])
        done = [users[p.user_id].first_name for p in plays if p.finished_at and p.user_id in users]
        playing = [
            users[p.user_id].first_name for p in plays if not p.finished_at and p.user_id in users
        ]
        return state_text(
            tr,
            enabled=bool(row and row["enabled"]),
            minute=int(row["open_minute"]) if row else DEFAULT_MINUTE,
            closes_at=day.closes_at if day else None,
            next_at=float(row["next_at"]) if row and row["next_at"] is not None else None,
            done=done,
            playing=playing,
            zone=self.zone,
        )

    async def own(self, user_id: int, lang: str) -> str:
        """``/day`` in private: the person's last days; a day not yet closed
        shows only their own score and how many have played."""
        tr = partial(self.ctx.texts, lang)
        rows = await repo_day.plays_of_user(self.ctx.db, user_id, OWN_DAYS)
        items = []
        for r in rows:
            closed = bool(r["closed"])
            played = len(
                [p for p in await repo_day.plays_of_day(self.ctx.db, r["day_id"]) if p.finished_at]
            )
            percent = None
            if closed and r["score"] is not None:
                percent = better_than(
                    await repo_day.scores_of_date(self.ctx.db, r["date"]), int(r["score"])
                )
            items.append((r, closed, played, percent))
        return own_days_text(tr, items, self.zone)

    # ------------------------------------------------------- the best line
    async def best_record(self, day_id: int, user_id: int, chat_id: int, locale: str) -> str:
        """The «📜» under a day's results, pressed in its own group: the best
        line's hand, trick by trick, in the presser's private chat."""
        day = await repo_day.get_day(self.ctx.db, day_id)
        if day is None or not day.closed or day.chat_id != chat_id:
            raise UserError("err-stale")
        me = await repo_users.get_user(self.ctx.db, user_id)
        if me is None or not me.started or me.blocked:
            raise UserError("lookup-start-first", bot=self.ctx.bot_username)
        now = self.ctx.clock.now()
        self._records = {k: t for k, t in self._records.items() if now - t < 60}
        if (user_id, day_id) in self._records:
            raise UserError("record-sent-already")
        # The deal is every group's that date: its cards are shown only once
        # no group may still play it (groups close at their own hours).
        if await repo_day.date_open_anywhere(self.ctx.db, day.date):
            raise UserError("day-record-later")
        lines = await self._lines(day)
        if not lines:
            raise UserError("err-stale")
        best = lines[0]
        deal = await repo_day.deal(self.ctx.db, day.date)
        assert deal is not None
        g = rebuild(deal, await repo_day.moves(self.ctx.db, day.date, best.user_id))
        group = await repo_day.group(self.ctx.db, day.chat_id)
        title = group["title"] if group else ""
        table = seat_table(day, deal, title, locale, best.user_id, best.name)
        table.game = g
        tr = partial(self.ctx.texts, me.lang or locale)
        text = record_text(tr, table, hand_record(g, 0))
        async with self.ctx.db.tx() as conn:
            await enqueue_send(conn, user_id, text)
        self._records[(user_id, day_id)] = now
        self.ctx.changed()
        return "record-sent"


def opening_key(day_id: int) -> str:
    """The outbox key of a day's opening message in its group."""
    return f"dayopen:{day_id}"


__all__ = ["RULES", "DayService", "better_than", "matchpoints", "next_opening"]
