"""The tasks that live as long as the bot, and its stop: in order, once.

Stopping (SIGTERM, a deploy): no new update comes in by then; the updates
being handled get up to :data:`DRAIN_SECONDS` to finish (Telegram was told
they arrived), with the outbox and the database still there for them; then
the computer players and the charts stop, then every task but the outbox's,
and the outbox sends what is queued until :data:`FLUSH_UNTIL_SECONDS` after
the stop began (then calls already made get the outbox's ``shutdown_grace``,
and the app closes the database). Docker sends SIGKILL 10 s after SIGTERM;
what was acknowledged is safe even then: the queue is sent at the next start.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from bot.middlewares import InFlight
from bot.outbox import Outbox
from bot.tasks import cancel_and_wait

log = logging.getLogger(__name__)

DRAIN_SECONDS = 8.0
FLUSH_UNTIL_SECONDS = 4.0


class Lifetime:
    """The bot's background tasks (the outbox's among them, stopped last) and
    the one stop that ends them."""

    def __init__(self) -> None:
        self._tasks: list[asyncio.Task[Any]] = []
        self._sending: asyncio.Task[None] | None = None  # the outbox, stopped last
        self._stopping: asyncio.Task[None] | None = None

    def background(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """A task that lives as long as the bot; its crash is logged at once, not
        found at the stop (a dead deadline loop would end every timeout quietly)."""
        task = asyncio.create_task(work)
        task.add_done_callback(_report_crash)
        self._tasks.append(task)
        return task

    def sending(self, outbox: Outbox) -> None:
        """The outbox's sender: the last task to stop, after it sent the queue."""
        self._sending = self.background(outbox.run())

    async def stop(
        self,
        in_flight: InFlight,
        stop_players: Callable[[], Awaitable[None]],
        outbox: Outbox,
        last_beat: Callable[[], Awaitable[None]],
    ) -> None:
        """Stop all that handles updates or writes texts, once.

        One task, so a second signal that cuts the caller short does not cut
        the stop short: a later call waits for the same task.
        """
        if self._stopping is None:
            self._stopping = asyncio.create_task(
                self._stop(in_flight, stop_players, outbox, last_beat)
            )
        await asyncio.shield(self._stopping)

    async def _stop(
        self,
        in_flight: InFlight,
        stop_players: Callable[[], Awaitable[None]],
        outbox: Outbox,
        last_beat: Callable[[], Awaitable[None]],
    ) -> None:
        # Each step runs whatever the one before did: a stop must get to the end.
        loop = asyncio.get_running_loop()
        flush_until = loop.time() + FLUSH_UNTIL_SECONDS
        try:
            left = await in_flight.drain(DRAIN_SECONDS)
            if left:
                log.warning(
                    "stopped %d updates still being handled after %.0f s", left, DRAIN_SECONDS
                )
        except Exception:
            log.exception("waiting for the updates being handled failed")
        try:
            await stop_players()
        except Exception:
            log.exception("stopping the computer players failed")
        # Nothing queues messages now but the outbox's own bookkeeping: what
        # was queued goes out before the stop, not minutes later at the next start.
        await cancel_and_wait(t for t in self._tasks if t is not self._sending)
        await self._flush(outbox, flush_until - loop.time())
        await cancel_and_wait(self._tasks)
        self._tasks.clear()
        with contextlib.suppress(Exception):
            await last_beat()

    async def _flush(self, outbox: Outbox, seconds: float) -> None:
        """Let the outbox send what is queued, for at most ``seconds`` (a flood
        wait or an outage leaves the rest queued for the next start)."""
        if self._sending is None or self._sending.done() or seconds <= 0:
            return
        try:
            # Bounded here too: drain's own clock stops while its read waits
            # behind a write held up by another process's lock.
            async with asyncio.timeout(seconds):
                await outbox.drain(seconds)
        except TimeoutError:
            log.info("stopping with messages still queued; they go out at the next start")
        except Exception:
            log.exception("sending the queued messages at the stop failed")


def _report_crash(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error(
            "background task %s stopped with an error", task.get_coro(), exc_info=task.exception()
        )
