"""Deadlines: whose move is awaited until when, the reminders before it,
and the computer's move for a player whose time ran out.

A real-time game's player who has waited ``TURN_PING_AFTER`` seconds (and
again with a third of the time left) gets a short "your turn" ping that
notifies: the private hand is only edited as the game goes on, and Telegram
never notifies about an edit. The ping is deleted as soon as that seat
moves, so the private chat does not fill with pings. A daily game's player
gets a reminder line instead (the hand itself comes anew at each turn).
The deadline loop (:mod:`bot.services.timers`) finds what is due; a move
sets the next one in its own transaction (``bot.services.moves.schedule_turn``).
"""

from __future__ import annotations

from typing import Protocol

from bot.model import LiveTable, VoterOut
from bot.pace import is_daily, next_reminder
from bot.services.moves import Moves
from bot.services.render import publish
from bot.storage import repo_games, repo_moves, repo_seats, repo_users
from bot.storage.db import Conn
from bot.views.outcome import Change, Event, Pinged, Reminded, TimedOut


class ClaimVoteEnds(Protocol):
    """How a claim's vote ends without a press (``bot.services.claims.ClaimVotes``),
    called under the table's lock: its deadline came, or a voter's answer can
    no longer come. Built before the play services, from the registry alone."""

    async def expire(self, live: LiveTable) -> None: ...

    async def voter_out(self, live: LiveTable, seat: int, why: VoterOut) -> None: ...

    async def remind(self, live: LiveTable, left: float) -> None: ...


class Deadlines:
    def __init__(self, moves: Moves, votes: ClaimVoteEnds) -> None:
        """``votes``: a claim's vote holding the move whose deadline passed
        ends instead of the club player moving."""
        self.moves = moves
        self.computer = moves.computer
        self.reg = moves.reg
        self.ctx = moves.ctx
        self.votes = votes
        self._ping_after = self.ctx.settings.turn_ping_after

    async def on_deadline(self, d: repo_moves.Deadline, now: float) -> None:
        """A reminder or a missed move, as the deadline loop found it due."""
        table_id = await repo_games.game_table(self.ctx.db, d.game_id)
        if table_id is None:
            async with self.ctx.db.tx() as conn:
                await repo_moves.clear_deadline(conn, d.game_id)
            return
        async with self.reg.lock(table_id):
            live = await self.reg.get(table_id)
            current = await repo_moves.get_deadline(self.ctx.db, d.game_id)
            if current is None or (current.seq, current.seat, current.due_at) != (
                d.seq,
                d.seat,
                d.due_at,
            ):
                return  # moved on meanwhile
            g = live.game if live else None
            if (
                live is None
                or g is None
                or live.game_id != d.game_id
                or live.status != "playing"
                or live.seq != d.seq
                or g.to_move != d.seat
            ):
                async with self.ctx.db.tx() as conn:
                    await repo_moves.clear_deadline(conn, d.game_id)
                return
            if now < d.due_at:
                await self._remind(live, d)
            else:
                await self._timeout(live, d.seat)
        self.ctx.changed()

    async def _remind(self, live: LiveTable, d: repo_moves.Deadline) -> None:
        """Daily: a reminder line. Real time: a ping that goes when they move
        (none for people who asked for /quiet)."""
        sent = d.reminders + 1
        after = next_reminder(live.pace, d.due_at - live.pace, d.due_at, sent, self._ping_after)
        if live.voting:
            await self._remind_voters(live, d, sent, after)
            return
        uid = live.seats[d.seat]
        user = await repo_users.get_user(self.ctx.db, uid) if uid is not None else None
        reminded: Event | None = None
        if uid is not None and d.seat not in live.blocked:
            left = d.due_at - self.ctx.clock.now()
            if is_daily(live.pace):
                reminded = Reminded(d.seat, left)
            elif user is None or not user.quiet:
                reminded = Pinged(d.seat, left)
        async with self.ctx.db.tx() as conn:
            await repo_moves.reminder_sent(conn, d.game_id, sent, after)
            if isinstance(reminded, Pinged):
                live.pinged = d.seat  # its ping goes once the seat has moved
            events = () if reminded is None else (reminded,)
            await publish(conn, self.reg, live, Change(events, table=True))

    async def _remind_voters(
        self, live: LiveTable, d: repo_moves.Deadline, sent: int, after: float | None
    ) -> None:
        """A claim's vote runs to this deadline: the voters who have not
        answered are reminded, not the claimer (who cannot move meanwhile);
        in real time only with a third of the time left (the early ping is
        for a mover, and the voters have just been asked)."""
        async with self.ctx.db.tx() as conn:
            await repo_moves.reminder_sent(conn, d.game_id, sent, after)
        # Recorded first: a crash in between costs a reminder, never doubles one.
        if is_daily(live.pace) or after is None:
            await self.votes.remind(live, d.due_at - self.ctx.clock.now())

    async def _timeout(self, live: LiveTable, seat: int) -> None:
        """The club player makes this one move; three in a row hand it the seat."""
        g = live.game
        assert g is not None
        if live.voting:  # the vote's own deadline
            await self.votes.expire(live)
            self.computer.kick(live.table_id)  # the claimer may have left the seat to the computer
            return
        action = await self.computer.decide(g, seat, live.ai_level)
        missed = live.timeouts.get(seat, 0) + 1
        away = missed >= 3 and live.seats[seat] is not None

        async def record(conn: Conn) -> None:
            live.timeouts[seat] = missed
            await repo_moves.set_timeouts(conn, live.table_id, seat, missed)
            if away:
                live.away.add(seat)
                await repo_seats.set_away(conn, live.table_id, seat, True)

        told = (TimedOut(seat, action, away),)
        await self.moves.commit(live, seat, action, None, extra=record, events=told)
        self.computer.kick(live.table_id)
