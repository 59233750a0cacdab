"""A player away from their game, and back: the bot cannot write to them (they
blocked it, or never started it), they press Start again, their seat passes
to the computer (/leave, /forget_me, three missed moves), and /back.

A player the bot cannot write to keeps the seat and the game waits for
them; the group is told how to unblock the bot. A seat played by the
computer is taken back with /back or the button under the private notice.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

from bot.model import COMPUTER, UNREACHABLE, LiveTable
from bot.services.deadlines import ClaimVoteEnds
from bot.services.moves import Moves
from bot.services.render import publish
from bot.storage import repo_moves, repo_seats, repo_tables, repo_users
from bot.views.outcome import Blocked, CameBack, Change, Hands

log = logging.getLogger(__name__)


class Absence:
    def __init__(self, moves: Moves, votes: ClaimVoteEnds) -> None:
        """``votes``: a voter on a claim who cannot answer any more ends its vote."""
        self.moves = moves
        self.computer = moves.computer
        self.reg = moves.reg
        self.ctx = moves.ctx
        self.votes = votes

    async def _my_playing_tables(
        self, user_id: int, table_id: int | None = None
    ) -> AsyncIterator[tuple[LiveTable, int]]:
        """Each running table where the user sits, with the seat, under its lock."""
        for row in await repo_tables.live_tables_of_user(self.ctx.db, user_id):
            if row.status != "playing" or (table_id is not None and row.table_id != table_id):
                continue
            async with self.reg.lock(row.table_id):
                live = await self.reg.get(row.table_id)
                seat = live.seat_of(user_id) if live is not None else None
                if live is not None and live.game is not None and seat is not None:
                    yield live, seat

    async def user_returned(self, user_id: int) -> None:
        """The user pressed Start again (e.g. after blocking the bot): resend their hands."""
        async for live, seat in self._my_playing_tables(user_id):
            live.blocked.discard(seat)
            hands = Hands(only=frozenset({seat}))
            async with self.ctx.db.tx() as conn:
                await publish(conn, self.reg, live, Change(table=True, hands=hands))
        self.ctx.changed()

    async def on_forbidden(
        self, chat_id: int, description: str, sent_at: float | None = None
    ) -> None:
        """Telegram refused a message (403): a player blocked the bot or never
        started it, or the bot left a group. The game waits; the group is told.
        ``sent_at`` is when the refused message went out (None: the refusal is
        news now): one sent before the user's latest Start changes nothing."""
        if chat_id < 0:
            log.warning("group %s refused messages: %s", chat_id, description)
            return
        async with self.ctx.db.tx() as conn:
            blocked = await repo_users.set_blocked(conn, chat_id, sent_at)
        if not blocked:
            log.info("chat %s: a refusal from before the user's latest Start; ignored", chat_id)
            return
        rows = await repo_tables.live_tables_of_user(self.ctx.db, chat_id)
        for row in rows:
            if row.status != "playing":
                continue
            async with self.reg.lock(row.table_id):
                live = await self.reg.get(row.table_id)
                if live is None:
                    continue
                seat = live.seat_of(chat_id)
                if seat is None or seat in live.blocked:
                    continue
                user = await repo_users.get_user(self.ctx.db, chat_id)
                if user is None or not user.blocked:
                    continue  # they pressed Start meanwhile: user_returned has run or will
                live.blocked.add(seat)
                async with self.ctx.db.tx() as conn:
                    await publish(conn, self.reg, live, Change((Blocked(seat),), table=True))
                # A voter on a claim who cannot be asked: the vote ends at once.
                await self.votes.voter_out(live, seat, UNREACHABLE)
            self.computer.kick(row.table_id)
        self.ctx.changed()

    async def seat_to_computer(self, live: LiveTable, seat: int) -> None:
        """After ``seat`` passed to the computer (/leave, /forget_me), under the
        table's lock: a claim's vote it had to answer ends, as a computer refuses."""
        await self.votes.voter_out(live, seat, COMPUTER)

    async def come_back(self, user_id: int, table_id: int | None = None) -> int:
        """``/back`` or the button: the player takes the seat back from the computer."""
        count = 0
        async for live, seat in self._my_playing_tables(user_id, table_id):
            if seat not in live.away:
                continue
            async with self.ctx.db.tx() as conn:
                live.away.discard(seat)
                live.timeouts.pop(seat, None)
                await repo_seats.set_away(conn, live.table_id, seat, False)
                await repo_moves.set_timeouts(conn, live.table_id, seat, 0)
                await self.moves.schedule(conn, live)
                hands = Hands(only=frozenset({seat}), fresh=True)
                change = Change((CameBack(seat),), table=True, hands=hands)
                await publish(conn, self.reg, live, change)
            count += 1
        self.ctx.changed()
        return count
