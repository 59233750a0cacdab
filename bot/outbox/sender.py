"""The sender: sends the ``outbox`` rows in order per chat, chats in parallel, at Telegram's pace.

A worker per chat plans its next row (:mod:`.plans`), waits for the pace
(:mod:`.pacer`), and hands the call to :class:`~.delivery.Delivery`, which
records what Telegram's answer means; :class:`~.pruning.Pruner` deletes
finished rows alongside.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from aiogram import Bot

from bot.config import Settings
from bot.outbox import bookkeeping, plans
from bot.outbox.calls import DELETE, Call, delete_call, text_call
from bot.outbox.delivery import (
    ChatMoved,
    Delivery,
    ForbiddenHandler,
    MigratedHandler,
    TopicHandler,
)
from bot.outbox.pacer import Pacing
from bot.outbox.plans import Plan
from bot.outbox.pruning import Pruner
from bot.outbox.stats import OutboxStats
from bot.storage.db import Database
from bot.tasks import cancel_and_wait

log = logging.getLogger("bot.outbox")


class Outbox:
    """Sends the ``outbox`` rows: in order per chat, chats in parallel, at Telegram's pace.

    A worker per chat with pending rows sends them strictly in id order; a
    burst of puts for one key goes out as one call (the newest). A row is
    marked sent only after Telegram's answer, so a crash in between repeats the
    call on restart (at least once).
    """

    #: Finished rows are kept this long after they were queued: sent and
    #: superseded ones only briefly (nothing reads them; a look at the database
    #: shows what just went out), failed ones a week for diagnosis. The table
    #: therefore holds about (rows queued per second) x (keep_sent +
    #: prune_interval) rows, whatever the load and however long the bot runs.
    keep_sent: float = 30.0
    keep_failed: float = 7 * 24 * 3600.0
    prune_interval: float = 5.0
    #: Rows looked at (and at most deleted) per transaction: moves wait
    #: behind one such transaction at most, never behind the whole prune.
    prune_chunk: int = 250
    #: A prune goes on from where the last one ended, less this overlap (a
    #: row is stamped a moment before its transaction commits) ...
    prune_overlap: float = 10.0
    #: ... and every ``full_sweep`` seconds starts from the oldest row: for rows
    #: finished after a pass went by (pending past ``keep_sent``: a flood wait,
    #: an outage, ``not_before``) and failed rows coming of age.
    full_sweep: float = 600.0
    #: Fallback poll for rows queued without :meth:`wake`.
    poll_interval: float = 2.0
    backoff_base: float = 1.0
    backoff_cap: float = 30.0
    group_burst: int = 3
    #: On shutdown, how long calls already sent to Telegram may take to finish.
    shutdown_grace: float = 5.0
    coalesce_scan: int = 500

    def __init__(
        self,
        db: Database,
        bot: Bot,
        settings: Settings,
        on_forbidden: ForbiddenHandler | None = None,
        on_migrated: MigratedHandler | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
        *,
        request_timeout: int | None = None,
        on_topic_gone: TopicHandler | None = None,
    ) -> None:
        """``clock``/``sleep`` drive pacing and backoff; tests pass fakes to run fast.

        Calls go out as ``bot``'s own (``bot(method)``), ``request_timeout``
        seconds each, else the session's timeout.
        """
        self._db = db
        self._sleep = sleep
        self._pacing = Pacing(
            settings.group_messages_per_minute,
            settings.private_messages_per_second,
            settings.global_messages_per_second,
            clock,
            sleep,
            group_burst=self.group_burst,
        )
        self._workers: dict[int, asyncio.Task[None]] = {}
        # Per chat: the next plan (None: nothing pending), read while finishing
        # the last row, with the wake count from before that read.
        self._ahead: dict[int, tuple[int, Plan | None]] = {}
        self._event = asyncio.Event()
        self._gen = 0
        self._running = False
        self._stopping = False
        self._busy: set[int] = set()  # chats with a call in flight (or its bookkeeping)
        self._stats = OutboxStats()
        self._delivery = Delivery(
            db,
            bot,
            self._stats,
            self._pacing,
            self._finish,
            self.wake,
            request_timeout=request_timeout,
            on_forbidden=on_forbidden,
            on_migrated=on_migrated,
            on_topic_gone=on_topic_gone,
        )
        self._pruner = Pruner(db, self._stats)

    # -- public ----------------------------------------------------------

    def wake(self) -> None:
        """Tell the sender new rows were committed; call after ``db.tx()`` exits."""
        self._gen += 1
        self._event.set()

    def stats(self) -> OutboxStats:
        """A snapshot of the counters."""
        return replace(self._stats)

    async def run(self) -> None:
        """The sender loop; runs until cancelled. Rows left pending are sent on the next run.

        Pruning runs alongside in a task of its own, so it never holds up the
        scheduling. On cancellation, calls already made are given
        ``shutdown_grace`` seconds to be answered and recorded, so a restart
        does not repeat them.
        """
        if self._running:
            raise RuntimeError("Outbox.run() is already running")
        self._running = True
        pruner = asyncio.create_task(self._prune_loop(), name="outbox-prune")
        try:
            while True:
                self._event.clear()
                try:
                    await self._schedule()
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("outbox scheduler failed; retrying")
                # asyncio.timeout, not wait_for: on Python 3.11 wait_for can
                # swallow a cancellation that lands as the event fires, and
                # shutdown then waits for this loop forever.
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self.poll_interval):
                        await self._event.wait()
        finally:
            try:
                await cancel_and_wait([pruner])
            finally:
                await self._stop_workers()
                self._running = False

    async def _stop_workers(self) -> None:
        self._stopping = True
        workers = dict(self._workers)
        try:
            for chat_id, task in workers.items():
                if chat_id not in self._busy:
                    task.cancel()
            busy = [task for task in workers.values() if not task.done()]
            if busy:
                await asyncio.wait(busy, timeout=self.shutdown_grace)
        finally:
            for task in workers.values():
                task.cancel()
            await asyncio.gather(*workers.values(), return_exceptions=True)
            self._workers.clear()
            self._stopping = False

    async def drain(self, timeout: float = 10.0) -> None:
        """Wait until no row is pending and no call is in flight (needs :meth:`run` running).

        Raises ``TimeoutError`` after ``timeout`` seconds of real time.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            if not self._workers:
                pending = await plans.any_pending(self._db)
                if not pending and not self._workers:
                    return
                if pending:
                    self.wake()
            if loop.time() >= deadline:
                raise TimeoutError("outbox still has pending rows")
            await asyncio.sleep(0.01)

    async def prune(self) -> int:
        """Delete the finished rows older than ``keep_sent`` (``keep_failed`` for
        failed ones); returns how many.

        All of them, however many, so pruning keeps up with any rate of
        sending; but ``prune_chunk`` rows per transaction, so the moves of
        every table, which share the writing connection, wait for one chunk
        at most.
        """
        removed = await self._pruner.prune(
            keep_sent=self.keep_sent,
            keep_failed=self.keep_failed,
            chunk=self.prune_chunk,
            overlap=self.prune_overlap,
            full_sweep=self.full_sweep,
        )
        self._pacing.forget_idle(self._workers)
        return removed

    async def _prune_loop(self) -> None:
        while True:
            try:
                await self.prune()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("outbox prune failed; retrying")
            # Real time, not self._sleep: a test's fake clock must not race ahead.
            await asyncio.sleep(self.prune_interval)

    # -- scheduling ------------------------------------------------------

    async def _schedule(self) -> None:
        for chat_id in await plans.pending_chats(self._db):
            if chat_id not in self._workers:
                task = asyncio.create_task(self._work(chat_id), name=f"outbox-{chat_id}")
                self._workers[chat_id] = task

    async def _work(self, chat_id: int) -> None:
        """Send one chat's rows strictly in id order until none is pending."""
        failures = 0
        waited_for: int | None = None
        try:
            while not self._stopping:
                try:
                    # Read along with the last row's bookkeeping, else read now.
                    ahead = self._ahead.pop(chat_id, None)
                    if ahead is not None:
                        gen, plan = ahead
                    else:
                        gen = self._gen
                        plan = await self._db.run(
                            plans.next_plan, chat_id, self.coalesce_scan, time.time()
                        )
                    if plan is None:
                        if gen != self._gen:
                            # Rows were queued while this read ran, maybe for
                            # this chat: the scheduler looks once more, after
                            # this worker is gone, for every worker ending so
                            # (a re-read here by each of them cost more reads
                            # than rows under load).
                            self._event.set()
                        return  # the finally runs before any other coroutine
                    head = plan.first
                    delay = head.not_before - time.time()
                    if delay > 0 and waited_for != head.id:
                        waited_for = head.id
                        await self._sleep(delay)
                        continue
                    if await self._attempt(chat_id, plan):
                        failures = 0
                    elif not self._stopping:
                        failures += 1
                        await self._sleep(self._backoff(failures))
                except ChatMoved:
                    return
                except asyncio.CancelledError:
                    raise
                except Exception:
                    failures += 1
                    log.exception("outbox worker for chat %s failed; retrying", chat_id)
                    await self._sleep(self._backoff(failures))
        finally:
            self._ahead.pop(chat_id, None)
            if self._workers.get(chat_id) is asyncio.current_task():
                del self._workers[chat_id]

    def _backoff(self, failures: int) -> float:
        return min(self.backoff_cap, self.backoff_base * 2.0 ** (failures - 1))

    # -- one attempt -----------------------------------------------------

    @staticmethod
    def _build(plan: Plan) -> Call:
        row = plan.target
        if row.op == DELETE:
            assert plan.message_id is not None
            return delete_call(row.chat_id, plan.message_id)
        return text_call(row.chat_id, row.op, row.payload, plan.message_id)

    async def _attempt(self, chat_id: int, plan: Plan) -> bool:
        """Try to deliver the plan's row (or its newest replacement); False means back off."""
        while True:
            head = plan.first
            if head.op == DELETE and plan.message_id is None:
                await self._finish(plan, None, False)  # nothing to delete: no call, no quota spent
                return True
            deferrable = plans.deferrable(plan)
            if await self._pacing.acquire(chat_id, deferrable=deferrable):
                # Planned again after a wait: puts queued meanwhile are folded
                # in, and an answer queued meanwhile goes before edits.
                fresh = await self._db.run(
                    plans.next_plan, chat_id, self.coalesce_scan, time.time()
                )
                if fresh is None or fresh.first.not_before > time.time():
                    return True  # the worker's loop looks again (and waits for it)
                plan = fresh
                continue
            # No await between this and the call: another chat could take the allowance.
            if self._pacing.take(chat_id, deferrable=deferrable) is not None:
                break
        try:
            try:
                call = self._build(plan)
            except (ValueError, TypeError, KeyError) as exc:
                await self._delivery.fail(plan, f"bad payload: {type(exc).__name__}")
                return True
            self._busy.add(chat_id)
            try:
                return await self._delivery.deliver(chat_id, plan, call)
            finally:
                self._busy.discard(chat_id)
        finally:
            self._pacing.settle(chat_id)

    # -- a plan gone out (a short transaction) ----------------------------

    async def _finish(self, plan: Plan, message_id: int | None, forget: bool) -> None:
        """The plan went out: its rows marked, and the chat's next plan read in the
        same transaction, kept for its worker."""
        gen = self._gen
        coalesced, ahead = await self._db.run_tx(
            bookkeeping.finish_rows, plan, message_id, forget, self.coalesce_scan
        )
        self._stats.coalesced += coalesced
        if plan.target.chat_id in self._workers:
            self._ahead[plan.target.chat_id] = (gen, ahead)

    async def migrate(self, old: int, new: int) -> None:
        """Telegram said the group became a supergroup (service message or error)."""
        await self._delivery.migrate(old, new)
