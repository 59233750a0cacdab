"""Live tables in memory, one lock per table, rebuilt from the database on demand.

Every change to a table happens under its lock: two presses at the same
moment are applied one after the other against the current state, and the
second sees the first's result (usually: a stale button). So a lock's
release is also the moment its table may have changed: whoever shows tables
elsewhere (the Mini App's hub) listens there (``Registry.on_release``),
and looks at those tables only.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

from bot.clock import Clock
from bot.i18n import Texts
from bot.model import LiveTable, Pause, TableStatus, rules_from_json
from bot.pace import is_daily
from bot.services.errors import UserError
from bot.storage import (
    repo_claims,
    repo_club,
    repo_games,
    repo_moves,
    repo_seats,
    repo_tables,
    repo_teaching,
    repo_users,
)
from bot.storage.db import Database
from bot.views.messages import Scene
from engine import Game

if TYPE_CHECKING:
    from bot.config import Settings
    from bot.outbox import Outbox

log = logging.getLogger(__name__)


@dataclass(slots=True)
class Ctx:
    """What every service needs; built once with the services."""

    db: Database
    texts: Texts
    outbox: Outbox
    settings: Settings
    bot_username: str
    clock: Clock
    # Set by whatever may bring the next deadline closer: the deadline loop waits on it.
    deadlines: asyncio.Event = field(default_factory=asyncio.Event)

    def changed(self) -> None:
        """After every committed change: the outbox sends what it queued, the
        deadline loop looks at the deadlines again."""
        self.outbox.wake()
        self.deadlines.set()


class TableLock(asyncio.Lock):
    """A table's lock that says when it is released."""

    def __init__(self, table_id: int, released: Callable[[int], None]) -> None:
        super().__init__()
        self.table_id = table_id
        self.released = released

    def release(self) -> None:
        super().release()
        self.released(self.table_id)


def _ignore(_: int) -> None:
    """No one listens."""


#: Finished or cancelled tables kept in memory, the latest asked for (a
#: lookup, a record, a rematch reads one again and again; months of them must not pile up).
KEPT_ENDED = 32


class Registry:
    def __init__(self, ctx: Ctx) -> None:
        self.ctx = ctx
        self._tables: dict[int, LiveTable] = {}
        # Weak: a lock lives while someone holds or waits for it, so forged
        # table ids cannot pile up locks.
        self._locks: weakref.WeakValueDictionary[int, TableLock] = weakref.WeakValueDictionary()
        self._chat_locks: weakref.WeakValueDictionary[int, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )
        self.langs: dict[int, str] = {}  # user id -> locale for private messages
        s = ctx.settings
        # What the render pass needs besides a table (the people's languages, above).
        self.scene = Scene(
            ctx.texts, self.langs, s.zone, ctx.bot_username, s.webapp_url, s.webapp_short_name
        )
        # Told the table's id each time its lock is released.
        self.on_release: Callable[[int], None] = _ignore
        # Each told a person's id once /forget_me has dropped them from here:
        # what remembers people elsewhere (the Mini App's hub keeps finished
        # tables for their open pages, inline mode its answers) drops them too.
        self.on_forget: list[Callable[[int], None]] = []

    def lock(self, table_id: int) -> asyncio.Lock:
        lock = self._locks.get(table_id)
        if lock is None:
            lock = TableLock(table_id, self._released)
            self._locks[table_id] = lock
        return lock

    def _released(self, table_id: int) -> None:
        self.on_release(table_id)

    def chat_lock(self, chat_id: int) -> asyncio.Lock:
        """Serialises what decides which table a chat has (two ``/newgame`` at
        once would both find none and both open one)."""
        lock = self._chat_locks.get(chat_id)
        if lock is None:
            lock = asyncio.Lock()
            self._chat_locks[chat_id] = lock
        return lock

    def forget(self, table_id: int) -> None:
        self._tables.pop(table_id, None)

    async def drop_person(self, user_id: int) -> None:
        """After ``/forget_me``: no table in memory may still hold the person's
        name (lookups of finished games are served from here). A live table
        keeps its place, without the name; any other is read again when asked."""
        for table_id in list(self._tables):
            async with self.lock(table_id):
                live = self._tables.get(table_id)
                if live is None or (user_id not in live.names and user_id not in live.seats):
                    continue
                live.names.pop(user_id, None)
                if live.ended:
                    self.forget(table_id)
        self.langs.pop(user_id, None)
        for forgotten in self.on_forget:
            forgotten(user_id)

    def cached_in_chat(self, chat_id: int) -> list[int]:
        return [t for t, live in self._tables.items() if live.chat_id == chat_id]

    def busy(self, table_id: int) -> bool:
        """Someone holds the table's lock: its state may be a change not yet
        committed (or about to be rolled back)."""
        lock = self._locks.get(table_id)
        return lock is not None and lock.locked()

    def cached(self, table_id: int) -> LiveTable | None:
        return self._tables.get(table_id)

    async def get(self, table_id: int) -> LiveTable | None:
        """The live table, loading it (and replaying its game) if not cached."""
        live = self._tables.get(table_id)
        if live is not None:
            if live.ended:
                self._tables[table_id] = self._tables.pop(table_id)  # asked for last
            return live
        row = await repo_tables.get_table(self.ctx.db, table_id)
        if row is None:
            return None
        rules = rules_from_json(row.rules_json)
        seats = await repo_seats.get_seats(self.ctx.db, table_id)
        live = LiveTable(
            table_id=row.table_id,
            chat_id=row.chat_id,
            chat_title=row.chat_title,
            creator_id=row.creator_id,
            status=TableStatus(row.status),
            rules=rules,
            lang=row.lang,
            seats=seats,
            pace=row.pace,
            paused=Pause(row.paused),
            thread_id=row.thread_id,
            hints=row.hints,
            ai_level=row.ai_level or self.ctx.settings.ai_level,
        )
        live.away = await repo_seats.get_away(self.ctx.db, table_id)
        live.timeouts = await repo_moves.get_timeouts(self.ctx.db, table_id)
        if row.status != "open":
            game_row = await repo_games.last_game(self.ctx.db, table_id)
            if game_row is not None:
                actions = await repo_moves.game_actions(self.ctx.db, game_row.game_id)
                live.rules = rules_from_json(game_row.rules_json)
                live.game_id = game_row.game_id
                live.game = Game.replay(live.rules, game_row.seed, actions, game_row.first_dealer)
                if live.hints:
                    live.hint_counts = await repo_teaching.hint_counts(
                        self.ctx.db, game_row.game_id
                    )
                live.looked = await repo_moves.looked_seats(
                    self.ctx.db, game_row.game_id, live.game.hand_no
                )
                live.claims, live.claim_vote = await repo_claims.load(self.ctx.db, game_row.game_id)
                deadline = await repo_moves.get_deadline(self.ctx.db, game_row.game_id)
                live.due_at = deadline.due_at if deadline else None
                if deadline is not None and deadline.reminders and not is_daily(live.pace):
                    live.pinged = deadline.seat
        await self.refresh_names(live)
        self._tables[table_id] = live
        if live.ended:
            self._trim_ended()
        return live

    def _trim_ended(self) -> None:
        """Keep the ``KEPT_ENDED`` ended tables asked for last; any other is
        read again when asked (one whose lock is held stays till next time)."""
        ended = [t for t, live in self._tables.items() if live.ended]
        for table_id in ended[:-KEPT_ENDED]:
            if not self.busy(table_id):
                del self._tables[table_id]

    async def refresh_names(self, live: LiveTable) -> None:
        ids = [uid for uid in live.seats if uid is not None]
        users = await repo_users.get_users(self.ctx.db, ids)
        live.authority = await repo_club.authority(self.ctx.db, ids)
        live.blocked = set()
        for seat, uid in enumerate(live.seats):
            if uid is None:
                continue
            user = users.get(uid)
            if user is None:
                continue
            live.names[uid] = user.first_name
            if user.lang:
                self.langs[uid] = user.lang
            if user.blocked and live.status == "playing":
                live.blocked.add(seat)

    async def live_in(self, chat_id: int, thread_id: int = 0) -> LiveTable | None:
        """The open or running table of a group's topic (0: the group, or General)."""
        row = await repo_tables.live_table(self.ctx.db, chat_id, thread_id)
        return await self.get(row.table_id) if row else None

    async def latest_in(self, chat_id: int, thread_id: int = 0) -> LiveTable | None:
        """The live table, else the last finished one: lookups work after the end too."""
        row = await repo_tables.latest_table(self.ctx.db, chat_id, thread_id)
        return await self.get(row.table_id) if row else None

    def tr_group(self, live: LiveTable) -> partial[str]:
        return partial(self.ctx.texts, live.lang)

    def tr_user(self, user_id: int, fallback: str) -> partial[str]:
        return partial(self.ctx.texts, self.langs.get(user_id, fallback))


@contextmanager
def undone_on_failure(live: LiveTable, duplicate: str | None = None) -> Iterator[None]:
    """The table in memory as it was when the change's transaction fails (the
    database rolled back too); with ``duplicate``, a unique key's clash (a
    double press, two racing presses) is that refusal to the user."""
    saved = live.snapshot()
    try:
        yield
    except BaseException as e:
        live.restore(saved)
        if duplicate is not None and isinstance(e, sqlite3.IntegrityError):
            raise UserError(duplicate) from None
        raise
