"""Taking a seat and leaving it: the table message's seat buttons, a join
link after Start, a call's «Сесть», standing up and ``/leave``.

Every way to a seat asks Telegram whether the person is in the table's
group (:class:`bot.services.membership.Members`); a refusal names no group
and does not tell whether the table exists (:data:`UNAVAILABLE`). The
table's own state and its message belong to :class:`TableService`.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable

from bot.model import LiveTable, Place, TableStatus
from bot.services import render
from bot.services.errors import UserError
from bot.services.tables import Person, TableService
from bot.storage import repo_calls, repo_club, repo_seats, repo_tables, repo_users

#: Asks Telegram whether a user is in a group now: (chat, user) -> True/False,
#: None when there is no answer (:class:`bot.services.membership.Members`).
MemberCheck = Callable[[int, int], Awaitable[bool | None]]

#: The one answer to a seat that is not to be had: no such table, a closed
#: one, a wrong link, someone not in the group. It names no group and does
#: not tell whether the table exists.
UNAVAILABLE = "err-seat-unavailable"


async def _membership_unknown(chat_id: int, user_id: int) -> bool | None:
    return None


class SeatService:
    """The seats of the tables :class:`TableService` opens."""

    def __init__(self, tables: TableService, is_member: MemberCheck = _membership_unknown) -> None:
        self.tables = tables
        self.reg = tables.reg
        self.ctx = tables.ctx
        self.play = tables.play
        self.is_member = is_member

    def join_link(self, row: repo_tables.TableRow, seat: int) -> str:
        """The deep link that seats someone after Start: it carries the
        table's secret key, which its number does not give away."""
        table, key = row.table_id, row.join_key
        return f"https://t.me/{self.ctx.bot_username}?start=join_{table}_{seat}_{key}"

    async def _seat_row(self, table_id: int) -> repo_tables.TableRow:
        """The table's row while it is open or playing (read without loading
        its game); the generic refusal otherwise."""
        row = await repo_tables.get_table(self.ctx.db, table_id)
        if row is None or row.status not in (TableStatus.OPEN, TableStatus.PLAYING):
            raise UserError(UNAVAILABLE)
        return row

    async def _member(self, chat_id: int, user_id: int) -> None:
        """Only a member of the table's group takes a seat there (someone
        over the membership quota is refused alike); when Telegram did not
        answer, try again."""
        member = await self.is_member(chat_id, user_id)
        if member is None:
            raise UserError("err-member-unknown")
        if not member:
            raise UserError(UNAVAILABLE)

    async def join_from_call(self, chat_id: int, table_id: int, person: Person) -> LiveTable | str:
        """A call's seat button: a free seat at that very table while it is
        still open (the table's own checks). A person the bot no longer knows
        (forgotten since) gets the table's deep link to Start with instead.
        Someone who has left the group since (Telegram does not always tell
        the bot) gets no seat there and is called no more; the data is
        forgeable, so the refusal is the one a stranger gets."""
        row = await self._seat_row(table_id)
        if row.chat_id != chat_id:
            raise UserError(UNAVAILABLE)
        member = await self.is_member(chat_id, person.user_id)
        if member is False:
            async with self.ctx.db.tx() as conn:
                await repo_calls.unsubscribe(conn, chat_id, person.user_id)
            raise UserError(UNAVAILABLE)
        if member is None:
            raise UserError("err-member-unknown")
        user = await repo_users.get_user(self.ctx.db, person.user_id)
        if user is None or not user.started or user.blocked:
            return self.join_link(row, 0)
        return await self._take_free_seat(table_id, -1, person)

    async def sit(self, table_id: int, person: Person, seat: int, chat_id: int) -> str | None:
        """Take (or, pressed again, leave) a seat, pressed in ``chat_id``: only
        in the table's own group, by a member of it. Returns a deep link when
        the person must first press Start in the private chat; nothing
        changes then."""
        row = await self._seat_row(table_id)
        if row.chat_id != chat_id:
            raise UserError(UNAVAILABLE)
        # Asked outside the table's lock, so nobody waits on Telegram's
        # answer; someone seated already (standing up, moving) is not asked.
        live = await self.reg.get(table_id)
        if live is None or live.seat_of(person.user_id) is None:
            await self._member(row.chat_id, person.user_id)
        async with self.reg.lock(table_id):
            live = await self.tables.open_table(table_id)
            if not 0 <= seat < live.players:
                raise UserError("err-stale")
            holder = live.seats[seat]
            if holder == person.user_id:
                await self._set_seat(live, seat, None)
                return None
            if holder is not None:
                raise UserError("err-seat-taken")
            user = await repo_users.get_user(self.ctx.db, person.user_id)
            if user is None or not user.started or user.blocked:
                return self.join_link(row, seat)
            seat = await self._partner_seat(live, person.user_id, seat)
            await self._set_seat(live, seat, person.user_id, person)
        return None

    async def _partner_seat(self, live: LiveTable, user_id: int, wanted: int) -> int:
        """A permanent partner already seated? Sit opposite them if that seat is free."""
        if live.players != 4:
            return wanted
        partners = {r["partner"] for r in await repo_club.permanent_partners(self.ctx.db, user_id)}
        for seat, uid in enumerate(live.seats):
            if uid in partners:
                opposite = (seat + 2) % 4
                if live.seats[opposite] is None:
                    return opposite
        return wanted

    async def join_from_link(self, table_id: int, seat: int, key: str, person: Person) -> LiveTable:
        """``/start join_<table>_<seat>_<key>``: the person has just started
        the bot. The key must be the table's, and the person in its group."""
        row = await self._seat_row(table_id)
        if not row.join_key or not hmac.compare_digest(row.join_key.encode(), key.encode()):
            raise UserError(UNAVAILABLE)
        await self._member(row.chat_id, person.user_id)
        return await self._take_free_seat(table_id, seat, person)

    async def _take_free_seat(self, table_id: int, seat: int, person: Person) -> LiveTable:
        """``seat`` if free, else the first free one; a member of the group,
        checked already."""
        async with self.reg.lock(table_id):
            live = await self.tables.open_table(table_id)
            current = live.seat_of(person.user_id)
            if current is not None:
                return live
            free = [s for s in range(live.players) if live.seats[s] is None]
            if not free:
                raise UserError("err-table-full")
            target = seat if seat in free else free[0]
            target = await self._partner_seat(live, person.user_id, target)
            await self._set_seat(live, target, person.user_id, person)
            return live

    async def _set_seat(
        self, live: LiveTable, seat: int, user_id: int | None, person: Person | None = None
    ) -> None:
        if user_id is not None:
            live.authority.update(await repo_club.authority(self.ctx.db, [user_id]))
        async with self.ctx.db.tx() as conn:
            if user_id is not None:
                old = live.seat_of(user_id)
                if old is not None:
                    await repo_seats.set_seat(conn, live.table_id, old, None)
                    live.seats[old] = None
                if person is not None:
                    live.names[user_id] = person.first_name
            await repo_seats.set_seat(conn, live.table_id, seat, user_id)
            live.seats[seat] = user_id
            await render.table_message(
                conn, self.reg, live, self.tables.options_shown(live.table_id)
            )
        self.ctx.outbox.wake()

    async def stand(self, table_id: int, person: Person, chat_id: int) -> None:
        """Stand up, pressed in ``chat_id``: only the table's own group."""
        async with self.reg.lock(table_id):
            live = await self.tables.own_open_table(table_id, chat_id)
            seat = live.seat_of(person.user_id)
            if seat is None:
                raise UserError("err-not-at-table")
            await self._set_seat(live, seat, None)

    async def leave(self, place: Place, person: Person) -> str:
        """``/leave``: stand up at an open table, or hand one's seat to the computer."""
        live = await self.reg.live_in(place.chat_id, place.thread_id)
        if live is None:
            raise UserError("err-no-table")
        if live.status == "open":
            await self.stand(live.table_id, person, live.chat_id)
            return "left-open"
        async with self.reg.lock(live.table_id):
            seat = live.seat_of(person.user_id)
            if seat is None or seat in live.away:
                raise UserError("err-not-at-table")
            async with self.ctx.db.tx() as conn:
                await repo_seats.set_away(conn, live.table_id, seat, True)
                live.away.add(seat)
                await self.play.schedule(conn, live)
                await render.table_message(conn, self.reg, live)
            await self.play.seat_to_computer(live, seat)
        self.play.on_change()
        self.play.kick(live.table_id)
        return "left-game"
