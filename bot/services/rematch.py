"""«Ещё партию»: the same table again, in one tap under the final result.

A new table opens in the finished table's group and topic with its rules,
pace, hints and computer strength, and each person in the seat they had
(free to stand up), except those the bot can no longer write to (they
blocked it, or asked to be forgotten) and those no longer in the group
(Telegram is asked, as for every seat: a person banned after the game is
not seated again). One rematch per finished table: the
``tables.rematch_of`` unique index holds to that whoever presses, however
often, also across a restart.
"""

from __future__ import annotations

import asyncio
import sqlite3

from bot.model import LiveTable, Place
from bot.services.errors import UserError
from bot.services.live import Registry
from bot.services.seats import MemberCheck
from bot.services.tables import Opening, Person, TableService
from bot.storage import repo_calls, repo_tables


class RematchService:
    def __init__(self, reg: Registry, tables: TableService, is_member: MemberCheck) -> None:
        self.reg = reg
        self.ctx = reg.ctx
        self.tables = tables
        self.is_member = is_member

    async def rematch_from_private(self, table_id: int, person: Person) -> LiveTable:
        """Pressed under the game's end in a player's own chat: the same
        rematch as the group's button, in the finished table's group."""
        row = await repo_tables.get_table(self.ctx.db, table_id)
        if row is None:
            raise UserError("err-stale")
        return await self.rematch(table_id, row.chat_id, person)

    async def rematch(self, table_id: int, chat_id: int, person: Person) -> LiveTable:
        """Pressed in group ``chat_id`` on finished table ``table_id``'s
        result: by someone who sat there and is still in the group, or an
        admin of the group."""
        row = await repo_tables.get_table(self.ctx.db, table_id)
        if row is None or row.chat_id != chat_id or row.status != "finished":
            raise UserError("err-stale")
        old = await self.reg.get(table_id)
        assert old is not None
        # A finished table's seats no longer change: Telegram is asked about
        # them before the group's lock, all at once, once (and only once the
        # presser may ask for a rematch at all).
        answers = await self._answers(old) if person.user_id in old.seats else None
        mine = answers.get(person.user_id) if answers is not None else False
        if not mine and not await self.tables.is_admin(chat_id, person.user_id):
            # A player Telegram said nothing about may well be in the group.
            raise UserError("err-member-unknown" if mine is None else "err-rematch-rights")
        if answers is None:  # an admin who did not play: asked now, once
            answers = await self._answers(old)
        members = {uid for uid, member in answers.items() if member}
        async with self.reg.chat_lock(chat_id):
            if await repo_calls.rematch_of(self.ctx.db, table_id) is not None:
                raise UserError("err-rematch-done")
            if await self.reg.live_in(chat_id, old.thread_id) is not None:
                raise UserError("err-rematch-busy")
            # The same way as /newgame: one transaction with the seats, the
            # table message and the calls.
            opening = Opening(
                place=Place(old.chat_id, old.thread_id),
                title=old.chat_title,
                # Who asked for it sets it up and starts it: the old table's
                # creator may have left, and nobody else could.
                creator_id=person.user_id,
                lang=old.lang,
                rules=old.rules,
                ai_level=old.ai_level,
                seats=tuple(uid if uid in members else None for uid in old.seats),
                pace=old.pace,
                hints=old.hints,
                rematch_of=old.table_id,
            )
            try:
                return await self.tables.open_new(opening)
            except sqlite3.IntegrityError:
                # Another bot process on the same database? The index holds: one
                # table. Any other refusal is no rematch made: it is an error.
                if await repo_calls.rematch_of(self.ctx.db, table_id) is None:
                    raise
                raise UserError("err-rematch-done") from None

    async def _answers(self, old: LiveTable) -> dict[int, bool | None]:
        """What Telegram says of each person seated at ``old``: in its group
        now, not, or None (no answer: left out of the rematch, as one not in
        the group; they may sit down themselves)."""
        seated = list(dict.fromkeys(uid for uid in old.seats if uid is not None))
        answers = await asyncio.gather(*(self.is_member(old.chat_id, u) for u in seated))
        return dict(zip(seated, answers, strict=True))
