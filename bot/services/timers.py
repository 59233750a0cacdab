"""The deadline loop: reminders before a move is due, the computer's move for
an absent player when it is. Deadlines live in the database; the loop keeps a
heartbeat there so that, after the bot was down, every deadline moves by the
downtime instead of charging it to the players."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from bot.services.afterword import AfterwordService
from bot.services.deadlines import Deadlines
from bot.services.replies import Replies
from bot.storage import repo_moves
from bot.tasks import cancel_and_wait

log = logging.getLogger(__name__)

HEARTBEAT = "heartbeat_at"

#: Does what is due by a moment; the next moment something will be.
Due = Callable[[float], Awaitable[float | None]]


class Timers:
    # The downtime credited after a crash is measured from the last beat: one
    # a second keeps it right to the second (a tiny write, and the loop's two
    # indexed reads, once a second).
    heartbeat_every = 1.0

    def __init__(
        self,
        deadlines: Deadlines,
        afterword: AfterwordService,
        replies: Replies,
        days: Due | None = None,
    ) -> None:
        """The loop sleeps until the next moment something is due, or until
        ``ctx.deadlines`` is set by whatever may have moved it closer (a
        committed change, a passing answer queued). ``days``: «Сдача дня»'s
        openings and closings (wall-clock moments, never moved by downtime)."""
        self.deadlines = deadlines
        self.afterword = afterword
        self.replies = replies
        self.days = days
        self.ctx = deadlines.ctx
        self._wake = self.ctx.deadlines

    async def credit_downtime(self) -> float:
        """Move every deadline by the time the bot was not running."""
        clock = self.ctx.clock
        last = await repo_moves.get_meta(self.ctx.db, HEARTBEAT)
        now = clock.now()
        shift = max(0.0, now - float(last)) if last else 0.0
        async with self.ctx.db.tx() as conn:
            if shift > 0:
                await repo_moves.shift_deadlines(conn, shift)
            await repo_moves.set_meta(conn, HEARTBEAT, repr(now))
        if shift > 0:
            log.info("deadlines moved by %.0f s of downtime", shift)
        return shift

    async def beat(self) -> None:
        """Record that the bot is alive now (also on a clean shutdown)."""
        async with self.ctx.db.tx() as conn:
            await repo_moves.set_meta(conn, HEARTBEAT, repr(self.ctx.clock.now()))

    async def run(self) -> None:
        clock = self.ctx.clock
        last_beat = clock.now()
        while True:
            # Cleared before reading, not before sleeping: a deadline set while
            # this loop reads the database must cut the coming sleep short.
            self._wake.clear()
            now = clock.now()
            if now - last_beat >= self.heartbeat_every:
                async with self.ctx.db.tx() as conn:
                    await repo_moves.set_meta(conn, HEARTBEAT, repr(now))
                last_beat = now
            wait = self.heartbeat_every
            dues = [await self.afterword.close_due(now), await self.replies.expire_due(now)]
            if self.days is not None:
                dues.append(await self.days(now))
            for due in dues:
                if due is not None:
                    wait = min(wait, due - now)
            nxt = await repo_moves.next_deadline(self.ctx.db)
            if nxt is not None:
                moment = min(nxt.due_at, nxt.remind_at or nxt.due_at)
                log.debug("next deadline: game %s in %.0f s", nxt.game_id, moment - now)
                if moment <= now:
                    try:
                        await self.deadlines.on_deadline(nxt, now)
                    except Exception:
                        log.exception("deadline of game %s failed", nxt.game_id)
                        await asyncio.sleep(1)
                    continue
                wait = min(wait, moment - now)
            # Until a moment reckoned from ``now``: a test's clock may jump a
            # day while this loop is still reading the database.
            await self._sleep_until(now + wait)

    async def _sleep_until(self, moment: float) -> None:
        sleeper = asyncio.create_task(self.ctx.clock.sleep_until(moment))
        waker = asyncio.create_task(self._wake.wait())
        try:
            await asyncio.wait({sleeper, waker}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            await cancel_and_wait((sleeper, waker))
