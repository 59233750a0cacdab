"""The afterword after a game: a few minutes for kind words (seed 003).

The group gets one message that fills as people speak and, when it closes,
ends with who thanked whom; each player chooses in private (their own
picker: whom, then which gesture). Every gesture received adds to Authority.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence

from bot.model import LiveTable
from bot.outbox import enqueue_put, enqueue_send
from bot.services.errors import UserError
from bot.services.live import Registry
from bot.storage import repo_club
from bot.storage.db import Conn
from bot.views.club import KINDS, MENU, NAMES, afterword_message, afterword_picker, fitting

# Long enough to say something after a game without hurrying.
AFTERWORD_SECONDS = 600


def afterword_key(game_id: int) -> str:
    return f"afterword:{game_id}"


def picker_key(game_id: int, seat: int) -> str:
    return f"afterword:{game_id}:{seat}"


class AfterwordService:
    def __init__(self, reg: Registry, on_change: Callable[[], None]) -> None:
        """``on_change``: called after every committed change (wakes the sender)."""
        self.reg = reg
        self.ctx = reg.ctx
        self.on_change = on_change

    def _people(self, live: LiveTable) -> list[tuple[int, int]]:
        """(seat, user) of everyone who sat at the table (also those the
        computer stood in for at the end), except who blocked the bot."""
        return [
            (s, uid)
            for s, uid in enumerate(live.seats)
            if uid is not None and s not in live.blocked
        ]

    async def open(self, conn: Conn, live: LiveTable) -> None:
        """Inside the transaction that ends the game (a finish hook of
        ``PlayService``): with two people or more at the table."""
        assert live.game_id is not None
        if len([uid for uid in live.seats if uid is not None]) < 2:
            return
        now = self.ctx.clock.now()
        await repo_club.open_afterword(
            conn, live.game_id, live.table_id, live.chat_id, now + AFTERWORD_SECONDS
        )
        text, markup = afterword_message(
            self.reg.tr_group(live), live, [], True, self.ctx.bot_username
        )
        await enqueue_send(
            conn, live.chat_id, text, markup, key=afterword_key(live.game_id), thread=live.thread_id
        )
        for seat, uid in self._people(live):
            await self._picker(conn, live, seat, uid, [], NAMES, True, new=True)

    async def _picker(
        self,
        conn: Conn,
        live: LiveTable,
        seat: int,
        uid: int,
        sent: Sequence[sqlite3.Row],
        choosing: int,
        open_: bool,
        *,
        new: bool = False,
    ) -> None:
        assert live.game_id is not None
        tr = self.reg.tr_user(uid, live.lang)
        text, markup = afterword_picker(tr, live, seat, sent, choosing, open_)
        key = picker_key(live.game_id, seat)
        if new:
            await enqueue_send(conn, uid, text, markup, key=key)
        else:
            await enqueue_put(conn, uid, key, text, markup)

    async def pick(self, game_id: int, user_id: int, to_seat: int, index: int) -> str | None:
        """A press in someone's picker: the names, one player's gestures, or a
        gesture sent. Returns the toast key (None: nothing to say)."""
        aw = await repo_club.get_afterword(self.ctx.db, game_id)
        if aw is None:
            raise UserError("err-stale")
        table_id = aw["table_id"]
        async with self.reg.lock(table_id):
            aw = await repo_club.get_afterword(self.ctx.db, game_id)
            if aw is None or aw["closed"] or self.ctx.clock.now() >= aw["closes_at"]:
                raise UserError("err-afterword-closed")
            live = await self.reg.get(table_id)
            if live is None or live.game_id != game_id:
                raise UserError("err-stale")
            me = live.seat_of(user_id)
            if me is None:
                raise UserError("err-afterword-not-player")
            toast: str | None = None
            choosing = to_seat
            if to_seat != NAMES:
                if not 0 <= to_seat < len(live.seats) or live.seats[to_seat] is None:
                    raise UserError("err-afterword-computer")
                if to_seat == me:
                    raise UserError("err-afterword-self")
                if index != MENU:
                    toast = await self._send(live, me, to_seat, index)
                    choosing = NAMES
            sent = await repo_club.gestures_of_game(self.ctx.db, game_id)
            async with self.ctx.db.tx() as conn:
                await self._picker(conn, live, me, user_id, sent, choosing, True)
                if toast is not None:
                    await self._group(conn, live, sent, True)
        self.on_change()
        return toast

    async def _send(self, live: LiveTable, me: int, to: int, index: int) -> str:
        if not 0 <= index < len(KINDS) or KINDS[index] not in fitting(live, me, to):
            raise UserError("err-stale")
        to_user, from_user = live.seats[to], live.seats[me]
        assert to_user is not None and from_user is not None and live.game_id is not None
        async with self.ctx.db.tx() as conn:
            added = await repo_club.add_gesture(
                conn, live.game_id, from_user, to_user, KINDS[index], self.ctx.clock.now()
            )
        if not added:
            raise UserError("err-afterword-twice")
        return "afterword-sent"

    async def _group(
        self, conn: Conn, live: LiveTable, sent: Sequence[sqlite3.Row], open_: bool
    ) -> None:
        assert live.game_id is not None
        text, markup = afterword_message(
            self.reg.tr_group(live), live, sent, open_, self.ctx.bot_username
        )
        await enqueue_put(
            conn, live.chat_id, afterword_key(live.game_id), text, markup, thread=live.thread_id
        )

    async def refresh(self, game_id: int, table_id: int) -> None:
        """The open afterword shown anew everywhere (someone asked to be forgotten)."""
        async with self.reg.lock(table_id):
            aw = await repo_club.get_afterword(self.ctx.db, game_id)
            live = await self.reg.get(table_id)
            if aw is None or aw["closed"] or live is None or live.game_id != game_id:
                return
            sent = await repo_club.gestures_of_game(self.ctx.db, game_id)
            async with self.ctx.db.tx() as conn:
                await self._group(conn, live, sent, True)
                for seat, uid in self._people(live):
                    await self._picker(conn, live, seat, uid, sent, NAMES, True)
        self.on_change()

    async def close_due(self, now: float) -> float | None:
        """Close the afterwords whose time is over; the next closing moment."""
        while True:
            aw = await repo_club.next_afterword_close(self.ctx.db)
            if aw is None:
                return None
            if aw["closes_at"] > now:
                return float(aw["closes_at"])
            await self._close(aw["game_id"], aw["table_id"])

    async def _close(self, game_id: int, table_id: int) -> None:
        async with self.reg.lock(table_id):
            live = await self.reg.get(table_id)
            sent = await repo_club.gestures_of_game(self.ctx.db, game_id)
            async with self.ctx.db.tx() as conn:
                await repo_club.close_afterword(conn, game_id)
                if live is not None and live.game_id == game_id:
                    await self._group(conn, live, sent, False)
                    for seat, uid in self._people(live):
                        await self._picker(conn, live, seat, uid, sent, NAMES, False)
        self.on_change()
