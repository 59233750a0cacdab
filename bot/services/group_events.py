"""The group's own events for its tables: the bot removed from the group or
added back, a forum topic closed or reopened, the group become a supergroup.

A running game waits (no deadlines, no computer moves, presses refused)
while the bot cannot write to its place, and goes on where it stopped."""

from __future__ import annotations

import logging
from collections.abc import Callable

from bot.model import LiveTable, Pause
from bot.outbox import enqueue_send, forget_key
from bot.services import render
from bot.services.tables import TableService
from bot.storage import repo_calls, repo_day, repo_tables
from bot.storage.db import Conn
from bot.views.common import Tr
from bot.views.pauses import paused_private, resumed_note, resumed_private

log = logging.getLogger(__name__)


class GroupEvents:
    """What happens to the tables when their group changes around them."""

    def __init__(self, tables: TableService) -> None:
        self.tables = tables
        self.reg = tables.reg
        self.ctx = tables.ctx
        self.play = tables.play

    async def bot_removed(self, chat_id: int) -> None:
        """The group removed the bot. Its running games are kept and wait (no
        deadlines, no computer moves, presses refused) until the bot is back;
        the players learn why in private, since the group cannot be written to."""
        for row in await repo_tables.live_tables_in_chat(self.ctx.db, chat_id):
            await self._pause(row.table_id, Pause.BOT_REMOVED)

    async def topic_gone(self, chat_id: int, thread_id: int, deleted: bool) -> None:
        """The table's forum topic was closed (or deleted): its game waits, as
        when the bot is removed, until the topic is open again."""
        row = await repo_tables.live_table(self.ctx.db, chat_id, thread_id)
        if row is not None and thread_id:
            await self._pause(row.table_id, Pause.TOPIC_DELETED if deleted else Pause.TOPIC_CLOSED)

    async def _pause(self, table_id: int, reason: Pause) -> None:
        async with self.reg.lock(table_id):
            live = await self.reg.get(table_id)
            if live is None or live.status != "playing" or live.paused >= reason:
                return
            before = live.paused
            live.paused = reason
            try:
                async with self.ctx.db.tx() as conn:
                    await repo_tables.update_table(conn, live.table_id, paused=int(reason))
                    await self.play.schedule(conn, live)
                    if not before:
                        await self._tell_players(conn, live, paused_private)
            except BaseException:
                live.paused = before
                raise
        log.info("table %s paused (%s) in chat %s", live.table_id, reason.name, live.chat_id)
        self.play.on_change()

    async def bot_added(self, chat_id: int) -> None:
        """Added back: a paused game goes on from where it stopped, with a fresh
        table message at the bottom of the chat; an open table is shown again."""
        for row in await repo_tables.live_tables_in_chat(self.ctx.db, chat_id):
            await self._resume(row.table_id, topic=False)

    async def topic_reopened(self, chat_id: int, thread_id: int) -> None:
        """The table's topic is open again: its game goes on."""
        row = await repo_tables.live_table(self.ctx.db, chat_id, thread_id)
        if row is not None and thread_id:
            await self._resume(row.table_id, topic=True)

    async def _resume(self, table_id: int, *, topic: bool) -> None:
        """A paused game goes on: its topic open again (``topic``), or the
        bot back in the group, when the table message is posted anew (the old
        one may be gone with the bot's removal)."""
        fresh = not topic
        async with self.reg.lock(table_id):
            live = await self.reg.get(table_id)
            if live is None or live.ended:
                return
            before = live.paused
            if not before and not fresh:
                return
            live.paused = Pause.NONE
            try:
                async with self.ctx.db.tx() as conn:
                    if fresh:
                        await forget_key(conn, render.table_key(live.table_id))
                    if before:
                        await repo_tables.update_table(conn, live.table_id, paused=0)
                        await self.play.schedule(conn, live)
                        note = resumed_note(self.reg.tr_group(live), topic)
                        await render.group_note(conn, live, note)
                        await self._tell_players(conn, live, resumed_private)
                    await render.table_message(
                        conn, self.reg, live, self.tables.options_shown(live.table_id)
                    )
            except BaseException:
                live.paused = before
                raise
        self.play.on_change()
        if before:
            log.info("table %s resumed in chat %s", live.table_id, live.chat_id)
            self.play.kick(live.table_id)

    async def _tell_players(
        self, conn: Conn, live: LiveTable, line: Callable[[Tr, LiveTable], str]
    ) -> None:
        """A private ``line`` (a view) to each seated person who can receive
        it, in their language."""
        for seat, uid in live.humans():
            if seat not in live.blocked:
                await enqueue_send(conn, uid, line(self.reg.tr_user(uid, live.lang), live))

    async def migrated(self, old: int, new: int) -> None:
        """The group became a supergroup (the service message in the old chat):
        the outbox moves its queue, then calls :meth:`after_migration`."""
        await self.ctx.outbox.migrate(old, new)

    async def after_migration(self, old: int, new: int) -> None:
        """The outbox has moved its rows to the new chat (it learnt of the move
        from Telegram, or from :meth:`migrated`): the tables follow, cached and
        stored, and the table message is shown in the new chat, since the old
        chat's messages cannot be edited there. Called again for the same move
        (another call to the old id), it edits that one message, never a second."""
        async with self.ctx.db.tx() as conn:
            await repo_tables.move_tables_to_chat(conn, old, new)
            await repo_calls.move_chat(conn, old, new)
            await repo_day.move_chat(conn, old, new)
        for table_id in self.reg.cached_in_chat(old):
            async with self.reg.lock(table_id):
                live = self.reg.cached(table_id)
                if live is not None and live.chat_id == old:
                    live.chat_id = new
        for row in await repo_tables.live_tables_in_chat(self.ctx.db, new):
            async with self.reg.lock(row.table_id):
                live = await self.reg.get(row.table_id)
                if live is None or live.chat_id != new or live.ended:
                    continue
                async with self.ctx.db.tx() as conn:
                    # The old chat's message is forgotten (queue.move_chat): this
                    # sends it in the new chat the first time, then edits it.
                    await render.table_message(
                        conn, self.reg, live, self.tables.options_shown(live.table_id)
                    )
        self.play.on_change()
