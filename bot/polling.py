"""Long polling that loses no update: kept in the inbox before it is confirmed.

aiogram's own polling confirms an update (by asking for the next ones) as
soon as it has been read, before it is handled: a ``kill -9`` in between
lost the press, and the person had to press again. Here each ``getUpdates``
answer is written to the inbox (:mod:`bot.storage.inbox`) before the next
call confirms it; meanwhile each update is already handled in a task of its
own, as aiogram does, and marked done when its handler returns. After a crash the
updates not marked done are handled at the start. A move handled twice (a
crash after its commit, before the mark) loses cleanly on its sequence
number, like a double press.

One process takes a token's updates: Telegram ends an older ``getUpdates``
with 409 when a newer one comes. A bot that meets a 409 within its first
seconds of polling has found another process polling with its token and
refuses to start (:class:`AnotherPoller`); the one that was there first
sees a single 409, waits a moment and goes on. Of two that start within the
same few seconds, both probing, the one whose poll the other's ends refuses
and the other goes on.
"""

from __future__ import annotations

import asyncio
import logging

from aiogram import Bot, Dispatcher
from aiogram.exceptions import (
    TelegramAPIError,
    TelegramConflictError,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramUnauthorizedError,
)
from aiogram.types import Update

from bot.storage import inbox
from bot.storage.db import Database
from bot.tasks import cancel_and_wait

log = logging.getLogger(__name__)

# Long-poll length; Telegram answers at once when updates are waiting.
POLL_SECONDS = 25
# A 409 in this many seconds after the first poll: someone else was polling.
PROBE_SECONDS = 5.0
# After a 409 later on: let the other poller's request end before ours.
CONFLICT_PAUSE = 0.5
RETRY_CAP = 30.0
PRUNE_EVERY = 60.0


async def prune_inbox(db: Database) -> int:
    """Every handled update past :data:`inbox.KEEP_DONE` forgotten, a chunk
    per transaction (:data:`inbox.PRUNE_CHUNK`); how many."""
    removed, chunk = 0, inbox.PRUNE_CHUNK
    while True:
        n = await db.run_tx(inbox.prune, None, chunk)
        removed += n
        if n < chunk:
            return removed


class AnotherPoller(Exception):
    """Another process is taking this bot's updates (409 Conflict at the start)."""


class Poller:
    """Reads updates into the inbox and hands each to the dispatcher once."""

    def __init__(self, dp: Dispatcher, bot: Bot, db: Database) -> None:
        self.dp = dp
        self.bot = bot
        self.db = db
        self._tasks: set[asyncio.Task[None]] = set()
        # Ids kept from the last run: Telegram sends them again until the first
        # call of this run confirms them, and each is handled once.
        self._kept: set[int] = set()
        self._pruning: asyncio.Task[int] | None = None  # beside the polling, never in its way

    async def run(self) -> None:
        """Until cancelled. The updates being handled go on: see :meth:`stop`."""
        self._kept = set(await self.db.run(inbox.kept_ids))
        for update_id, body in await self.db.run(inbox.unhandled):
            log.info("handling update %s left from the last run", update_id)
            self._dispatch(update_id, body, None)
        await self._poll()

    async def stop(self, grace: float = 2.0) -> None:
        """After the dispatcher's shutdown let the handlers finish: give the
        last ones a moment to be marked done, then cancel what is left (it is
        handled at the next start)."""
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=grace)
        await cancel_and_wait([*self._tasks, *([self._pruning] if self._pruning else [])])

    async def _poll(self) -> None:
        loop = asyncio.get_running_loop()
        allowed = self.dp.resolve_used_update_types()
        offset: int | None = None
        started = loop.time()
        next_prune = started + PRUNE_EVERY
        delay = 1.0
        while True:
            probing = loop.time() - started < PROBE_SECONDS
            timeout = int(PROBE_SECONDS) if probing else POLL_SECONDS
            try:
                updates = await self.bot.get_updates(
                    offset=offset,
                    timeout=timeout,
                    allowed_updates=allowed,
                    request_timeout=timeout + 30,
                )
            except TelegramConflictError as e:
                if probing:
                    raise AnotherPoller(e.message) from None
                log.warning("another getUpdates ended ours (%s); polling again", e.message)
                await asyncio.sleep(CONFLICT_PAUSE)
                continue
            except TelegramRetryAfter as e:
                log.warning("getUpdates: flood wait %s s", e.retry_after)
                await asyncio.sleep(e.retry_after)
                continue
            except TelegramUnauthorizedError:
                raise
            except Exception as e:  # network, 5xx, a proxy's error page: wait it out
                log.warning(
                    "getUpdates failed (%s); trying again in %.0f s", type(e).__name__, delay
                )
                await asyncio.sleep(delay)
                delay = min(delay * 2, RETRY_CAP)
                continue
            delay = 1.0
            if updates:
                rows = [
                    (u.update_id, u.model_dump_json(exclude_unset=True, by_alias=True))
                    for u in updates
                ]
                # Handled while being kept (a press is not held up behind the
                # write), kept before the next call tells Telegram they arrived.
                stored = asyncio.ensure_future(self._keep(rows))
                for update in updates:
                    if update.update_id not in self._kept:
                        self._dispatch(update.update_id, update, stored)
                try:
                    await asyncio.shield(stored)
                except asyncio.CancelledError:
                    # A stop: what is being handled must still be kept (and
                    # so marked done), or the next start handles it again.
                    await asyncio.wait([stored])
                    raise
                offset = updates[-1].update_id + 1
                if self._kept:
                    self._kept = {i for i in self._kept if i >= offset}
            if loop.time() >= next_prune:
                next_prune = loop.time() + PRUNE_EVERY
                self._prune()

    def _prune(self) -> None:
        """Start pruning the inbox, unless the last pruning still runs."""
        last = self._pruning
        if last is not None and not last.done():
            return
        if last is not None and not last.cancelled() and last.exception() is not None:
            log.warning("pruning the inbox failed (%r); trying again", last.exception())
        self._pruning = asyncio.create_task(prune_inbox(self.db))

    async def _keep(self, rows: list[tuple[int, str]]) -> None:
        """Store the updates, however long the database takes: they are being
        handled already, and one not kept would be handled again after the
        next start (Telegram sends it again)."""
        delay = 1.0
        while True:
            try:
                await self.db.run_tx(inbox.store, rows)
                return
            except Exception:
                log.exception("keeping %d updates failed; trying again in %.0f s", len(rows), delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, RETRY_CAP)

    def _dispatch(
        self, update_id: int, update: Update | str, stored: asyncio.Future[None] | None
    ) -> None:
        task = asyncio.create_task(self._handle(update_id, update, stored))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _handle(
        self, update_id: int, update: Update | str, stored: asyncio.Future[None] | None
    ) -> None:
        try:
            if isinstance(update, str):
                update = Update.model_validate_json(update, context={"bot": self.bot})
            await self.dp.feed_update(self.bot, update)
        except (TelegramAPIError, TelegramNetworkError) as e:
            log.warning("update %s: a Telegram call failed: %r", update_id, e)
        except Exception:
            # The errors router answered what it could; an update that breaks
            # the bot is not handled again and again.
            log.exception("update %s failed", update_id)
        if stored is not None:
            await asyncio.shield(stored)  # marked done after it was kept, not before
        await self.db.run_tx(inbox.done, [update_id])
