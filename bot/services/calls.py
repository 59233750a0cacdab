"""«Call me to the next game»: getting four people together is the hard part.

A person asks in a group (``/call_me``, or the button under a game's final
result) to be called; when a table opens in that group, in any of its
topics, each of them gets one private message with a seat in one tap. The
calls are queued in the transaction that opens the table (its row, its
seats, its group message and the calls are written together), so no table
is without its calls and no call without its table, ``kill -9`` or not; a
person is called at most once an hour per group, however many tables open.
When the bot leaves a group, that group's calls end.
"""

from __future__ import annotations

from bot.model import LiveTable
from bot.services.live import Registry
from bot.services.tables import Person
from bot.storage import inbox, repo_calls, repo_users
from bot.storage.db import Conn, storable
from bot.views.outcome import Called

# At most one call per person and group in this many seconds.
CALL_EVERY = 3600.0


class CallService:
    """Built before the tables: :class:`~bot.services.tables.TableService` is
    given :meth:`on_open` when it is constructed."""

    def __init__(self, reg: Registry) -> None:
        self.reg = reg
        self.ctx = reg.ctx

    async def subscribe(self, chat_id: int, person: Person) -> tuple[bool, bool]:
        """Calls on (the button under a result, ``/call_me on``): (newly on,
        the bot can write to the person). Pressed again it stays on. Someone
        who never pressed Start is subscribed all the same, and told that the
        calls reach them once they have."""
        return await self._change(chat_id, person)

    async def toggle(self, chat_id: int, person: Person, update_id: int) -> tuple[bool, bool]:
        """``/call_me``: calls on, or off again: (now on, the bot can write to
        the person). Handled twice it would undo itself, so update
        ``update_id`` is marked handled in the same transaction: a restart
        after a crash never handles it again."""
        return await self._change(chat_id, person, toggled_by=update_id)

    async def _change(
        self, chat_id: int, person: Person, *, toggled_by: int | None = None
    ) -> tuple[bool, bool]:
        user = await repo_users.get_user(self.ctx.db, person.user_id)
        async with self.ctx.db.tx() as conn:
            await repo_users.upsert_user(
                conn, person.user_id, person.first_name, person.username, person.lang
            )
            added = await repo_calls.subscribe(conn, chat_id, person.user_id)
            if toggled_by is not None:
                if not added:
                    await repo_calls.unsubscribe(conn, chat_id, person.user_id)
                await inbox.done_with_effect(conn, toggled_by)
        self.reg.langs[person.user_id] = person.lang
        return added, user is not None and user.started and not user.blocked

    async def turn_off(self, chat_id: int, user_id: int) -> bool:
        """No more calls from that group (True: there were). Again: nothing changes."""
        if not storable(chat_id):
            return False
        async with self.ctx.db.tx() as conn:
            return await repo_calls.unsubscribe(conn, chat_id, user_id)

    async def group_gone(self, chat_id: int) -> None:
        """The bot left or was removed from the group: nobody is called to it."""
        async with self.ctx.db.tx() as conn:
            await repo_calls.drop_chat(conn, chat_id)

    async def on_open(self, conn: Conn, live: LiveTable) -> list[Called]:
        """Part of the transaction that opens a table (``TableService.open_new``):
        who is called (their calls are shown with the table). Nobody is called
        to a full table, nor to a table they sit at."""
        called: list[Called] = []
        if None not in live.seats:
            return called
        now = self.ctx.clock.now()
        before = now - CALL_EVERY
        skip = {uid for uid in live.seats if uid is not None} | {live.creator_id}
        after = -(2**63)
        while callee := await repo_calls.next_callee(conn, live.chat_id, before, after):
            after = callee.user_id
            if callee.user_id in skip:
                continue
            await repo_calls.mark_called(conn, live.chat_id, callee.user_id, now)
            called.append(Called(callee.user_id, callee.lang or live.lang))
        return called
