"""The sender: sends the ``outbox`` rows in order per chat, chats in parallel, at Telegram's pace."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from aiogram import Bot
from aiogram.exceptions import (
    ClientDecodeError,
    TelegramAPIError,
    TelegramBadRequest,
    TelegramEntityTooLarge,
    TelegramForbiddenError,
    TelegramMigrateToChat,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramUnauthorizedError,
)
from aiogram.methods import EditMessageText
from aiogram.types import Message

from bot.config import Settings
from bot.outbox import queue
from bot.outbox.calls import DELETE, PUT, Call, delete_call, text_call, thread_of
from bot.outbox.errors import (
    is_delete_target_gone,
    is_edit_target_gone,
    is_not_modified,
    is_topic_deleted,
    is_topic_gone,
    is_unreachable,
)
from bot.outbox.pacer import Pacing
from bot.outbox.queue import Plan
from bot.storage.db import Database
from bot.tasks import cancel_and_wait

log = logging.getLogger("bot.outbox")

#: ``(chat_id, description, sent_at)``: ``sent_at`` is the ``time.time()`` the
#: refused request went out, so a refusal older than the user's return can be told apart.
ForbiddenHandler = Callable[[int, str, float], Awaitable[None]]
MigratedHandler = Callable[[int, int], Awaitable[None]]
#: Told (chat, topic, deleted) when a forum topic refuses new messages.
TopicHandler = Callable[[int, int, bool], Awaitable[None]]


@dataclass(slots=True)
class OutboxStats:
    """Counters for tests and monitoring."""

    api_calls: int = 0
    sends: int = 0
    edits: int = 0
    deletes: int = 0
    coalesced: int = 0  # rows superseded by a newer put for the same key
    not_modified: int = 0
    resent: int = 0  # edits whose message was gone, so it was sent anew
    retries: int = 0  # transient errors (5xx, network, timeouts)
    flood_waits: int = 0  # 429 answers
    failed: int = 0
    forbidden: int = 0
    migrations: int = 0
    pruned: int = 0  # finished rows deleted


class _Stop(Exception):
    """This chat's worker must end (its rows moved to another chat)."""


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
        self._bot = bot
        self._request_timeout = request_timeout
        self._on_forbidden = on_forbidden
        self._on_migrated = on_migrated
        self._on_topic_gone = on_topic_gone
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
        self._pruned_to: queue.Mark = queue.START  # rows before it were pruned
        self._swept_at = float("-inf")  # time.time() of the last prune from the oldest row
        self._stats = OutboxStats()

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
                pending = await queue.any_pending(self._db)
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
        now = time.time()
        if now - self._swept_at >= self.full_sweep:
            self._pruned_to = queue.START
            self._swept_at = now
        cutoff = now - self.keep_sent
        removed = 0
        mark: queue.Mark | None = self._pruned_to
        while mark is not None:
            n, mark = await self._db.run_tx(
                queue.prune_step, mark, cutoff, now - self.keep_failed, self.prune_chunk
            )
            removed += n
            self._stats.pruned += n
            if mark is not None:
                self._pruned_to = mark  # a cancelled prune goes on from here
        self._pruned_to = (cutoff - self.prune_overlap, 0)
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
        for chat_id in await queue.pending_chats(self._db):
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
                            queue.next_plan, chat_id, self.coalesce_scan, time.time()
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
                except _Stop:
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
                await self._finish(plan, None)  # nothing to delete: no call, no quota spent
                return True
            deferrable = queue.deferrable(plan)
            if await self._pacing.acquire(chat_id, deferrable=deferrable):
                # Planned again after a wait: puts queued meanwhile are folded
                # in, and an answer queued meanwhile goes before edits.
                fresh = await self._db.run(
                    queue.next_plan, chat_id, self.coalesce_scan, time.time()
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
                await self._fail(plan, f"bad payload: {type(exc).__name__}")
                return True
            self._busy.add(chat_id)
            try:
                return await self._deliver(chat_id, plan, call)
            finally:
                self._busy.discard(chat_id)
        finally:
            self._pacing.settle(chat_id)

    async def _deliver(self, chat_id: int, plan: Plan, call: Call) -> bool:
        """Make the call and record its outcome; False means back off and retry.

        aiogram's exceptions decide: wait (429), move (a supergroup), give up
        on the chat (403), sort a 400 by its description, give up on the row
        (413), else try again later. Their descriptions are Telegram's (or
        aiohttp's, the token blanked out), never a message's text.
        """
        row = plan.target
        self._stats.api_calls += 1
        sent_at = time.time()
        try:
            result = await self._bot(call, request_timeout=self._request_timeout)
        except TelegramRetryAfter as exc:
            self._stats.flood_waits += 1
            log.warning("flood control in chat %s: waiting %s s", chat_id, exc.retry_after)
            self._pacing.flood(chat_id, exc.retry_after)
            return True
        except TelegramMigrateToChat as exc:
            await self._migrate(chat_id, exc.migrate_to_chat_id)
            raise _Stop from None
        except TelegramForbiddenError as exc:
            await self._forbidden(plan, exc.message, sent_at)
            return True
        except TelegramBadRequest as exc:
            return await self._bad_request(plan, exc.message, sent_at)
        except TelegramEntityTooLarge as exc:
            await self._fail(plan, exc.message)
            return True
        except TelegramUnauthorizedError as exc:
            # A wrong token: nothing to do but wait for someone to fix it.
            self._stats.retries += 1
            log.error("Telegram rejects the bot token (%s); outbox keeps rows pending", exc.message)
            await self._note_error(plan, exc.message)
            return False
        except (TelegramAPIError, ClientDecodeError) as exc:
            # 5xx, a network error or timeout (TelegramNetworkError), 404 (a
            # wrong API URL), 409, a 429 without retry_after, an answer that is
            # not Telegram's (a proxy's page: ClientDecodeError, whose text,
            # an echo of the message, stays out of the log).
            self._stats.retries += 1
            description = self._describe(exc)
            log.warning("outbox row %s to chat %s: %s; will retry", row.id, chat_id, description)
            await self._note_error(plan, description)
            return False

        if row.op == DELETE:
            self._stats.deletes += 1
            await self._finish(plan, None, forget=True)
        elif isinstance(call, EditMessageText):
            self._stats.edits += 1
            await self._finish(plan, plan.message_id)
        else:
            self._stats.sends += 1
            message_id = result.message_id if isinstance(result, Message) else None
            await self._finish(plan, message_id)
        return True

    def _describe(self, exc: TelegramAPIError | ClientDecodeError) -> str:
        """What a failure to retry is noted as: Telegram's description or the
        network error's (the token blanked out); for an unreadable answer, only that."""
        if isinstance(exc, ClientDecodeError):
            return "the answer is not Telegram's"
        # (Telegram's answer may lack a description: {"ok": false}.)
        text = exc.message or type(exc).__name__
        if isinstance(exc, TelegramNetworkError):
            text = text.replace(self._bot.token, "<token>")
        return text

    async def _bad_request(self, plan: Plan, description: str, sent_at: float) -> bool:
        row = plan.target
        if row.op == PUT and plan.message_id is not None:
            if is_not_modified(description):
                self._stats.not_modified += 1
                await self._finish(plan, plan.message_id)
                return True
            if is_edit_target_gone(description):
                # Forget the lost message; the next attempt sends a new one.
                self._stats.resent += 1
                await self._db.run_tx(queue.forget_lost, row.key, plan.message_id)
                return True
        if row.op == DELETE and is_delete_target_gone(description):
            await self._finish(plan, None, forget=True)
            return True
        if is_unreachable(description):
            await self._forbidden(plan, description, sent_at)
            return True
        thread = thread_of(row.payload)
        if thread and is_topic_gone(description):
            await self._topic_gone(plan, thread, description, sent_at)
            return True
        await self._fail(plan, description)
        return True

    async def _topic_gone(self, plan: Plan, thread: int, description: str, sent_at: float) -> None:
        """A forum topic refuses new messages (closed or deleted): its rows
        queued by then fail, the chat's others go on, and the services learn
        of it (the table there waits, as when the bot is removed)."""
        chat_id = plan.target.chat_id
        log.warning("topic %s of chat %s cannot be written to: %s", thread, chat_id, description)
        await self._fail(plan, description)
        self._stats.failed += await self._db.run_tx(
            queue.fail_topic, chat_id, thread, description, sent_at
        )
        if self._on_topic_gone is not None:
            try:
                await self._on_topic_gone(chat_id, thread, is_topic_deleted(description))
            except Exception:
                log.exception("on_topic_gone(%s, %s) failed", chat_id, thread)

    # -- bookkeeping (each a short transaction) --------------------------

    async def _finish(self, plan: Plan, message_id: int | None, *, forget: bool = False) -> None:
        gen = self._gen
        coalesced, ahead = await self._db.run_tx(
            queue.finish_rows, plan, message_id, forget, self.coalesce_scan
        )
        self._stats.coalesced += coalesced
        if plan.target.chat_id in self._workers:
            self._ahead[plan.target.chat_id] = (gen, ahead)

    async def _fail(self, plan: Plan, description: str) -> None:
        row = plan.target
        self._stats.failed += 1
        log.error(
            "outbox row %s (%s to chat %s) failed for good: %s",
            row.id,
            row.op,
            row.chat_id,
            description,
        )
        await self._db.run_tx(queue.fail_rows, plan, description)

    async def _note_error(self, plan: Plan, description: str) -> None:
        await self._db.run_tx(queue.note_error, plan.target.id, description)

    async def _forbidden(self, plan: Plan, description: str, sent_at: float) -> None:
        """The chat refuses us: fail the rows it held when the request went out
        (they would all fail) and tell the service. Rows put since then stay:
        the user may have come back while the refusal was on its way."""
        chat_id = plan.target.chat_id
        self._stats.forbidden += 1
        log.warning("chat %s cannot be written to: %s", chat_id, description)
        self._stats.failed += await self._db.run_tx(queue.fail_chat, chat_id, description, sent_at)
        if self._on_forbidden is not None:
            try:
                await self._on_forbidden(chat_id, description, sent_at)
            except Exception:
                log.exception("on_forbidden(%s) failed", chat_id)

    async def migrate(self, old: int, new: int) -> None:
        """Telegram said the group became a supergroup (service message or error)."""
        await self._migrate(old, new)

    async def _migrate(self, old: int, new: int) -> None:
        """Move the outbox's own rows to the new chat id, then tell the services
        (``on_migrated``), whose data it is to move the rest."""
        self._stats.migrations += 1
        log.info("chat %s migrated to %s", old, new)
        await self._db.run_tx(queue.move_chat, old, new)
        if self._on_migrated is not None:
            try:
                await self._on_migrated(old, new)
            except Exception:
                log.exception("on_migrated(%s, %s) failed", old, new)
        self.wake()
