"""«Call me to the next game»: getting four people together is the hard part.

A person asks in a group (``/call_me``, or the button under a game's final
result) to be called; when a table opens in that group, in any of its
topics, each of them gets one private message with a seat in one tap. The
calls are queued in the transaction that first shows the table, so a table
that was shown has its calls on disk; a person is called at most once an
hour per group, however many tables open.
"""

from __future__ import annotations

from functools import partial

from bot.model import LiveTable
from bot.outbox import enqueue_send
from bot.services.errors import UserError
from bot.services.live import Registry
from bot.services.tables import Person, TableService
from bot.storage import repo, repo_calls
from bot.storage.db import Conn
from bot.views.social import call_message

# At most one call per person and group in this many seconds.
CALL_EVERY = 3600.0


class CallService:
    def __init__(self, reg: Registry, tables: TableService) -> None:
        self.reg = reg
        self.ctx = reg.ctx
        self.tables = tables

    async def toggle(self, chat_id: int, person: Person) -> tuple[bool, bool]:
        """Calls on, or off again: (now on, the bot can write to the person).
        Someone who never pressed Start is subscribed all the same, and told
        that the calls reach them once they have."""
        async with self.reg.chat_lock(chat_id):
            user = await repo.get_user(self.ctx.db, person.user_id)
            on = not await repo_calls.is_subscribed(self.ctx.db, chat_id, person.user_id)
            async with self.ctx.db.tx() as conn:
                await repo.upsert_user(
                    conn, person.user_id, person.first_name, person.username, person.lang
                )
                if on:
                    await repo_calls.subscribe(conn, chat_id, person.user_id)
                else:
                    await repo_calls.unsubscribe(conn, chat_id, person.user_id)
        self.reg.langs[person.user_id] = person.lang
        return on, user is not None and user.started and not user.blocked

    async def turn_off(self, chat_id: int, user_id: int) -> bool:
        """The call's own button: no more calls from that group (True: there were)."""
        if not repo.storable(chat_id):
            return False
        async with self.reg.chat_lock(chat_id), self.ctx.db.tx() as conn:
            return await repo_calls.unsubscribe(conn, chat_id, user_id)

    async def on_open(self, conn: Conn, live: LiveTable) -> None:
        """A hook of the transaction that first shows a table: the calls.
        Nobody is called to a full table, nor to a table they sit at."""
        if None not in live.seats:
            return
        now = self.ctx.clock.now()
        before = now - CALL_EVERY
        skip = {uid for uid in live.seats if uid is not None} | {live.creator_id}
        after = -(2**63)
        while callee := await repo_calls.next_callee(conn, live.chat_id, before, after):
            after = callee.user_id
            if callee.user_id in skip:
                continue
            await repo_calls.mark_called(conn, live.chat_id, callee.user_id, now)
            tr = partial(self.ctx.texts, callee.lang or live.lang)
            text, markup = call_message(tr, live)
            await enqueue_send(conn, callee.user_id, text, markup)

    async def sit(self, chat_id: int, table_id: int, person: Person) -> LiveTable | str:
        """The call's seat button: a free seat at that very table while it is
        still open (the table's own checks). A person the bot no longer knows
        (forgotten since) gets the table's deep link to Start with instead."""
        row = await repo.get_table(self.ctx.db, table_id)
        if row is None or row.chat_id != chat_id:
            raise UserError("err-stale")
        user = await repo.get_user(self.ctx.db, person.user_id)
        if user is None or not user.started or user.blocked:
            return self.tables.join_link(table_id, 0)
        return await self.tables.join_from_link(table_id, -1, person)
