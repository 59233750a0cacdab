"""The durable outbox: every message the bot sends goes through the ``outbox`` table.

Services queue messages in the same transaction that records a move, so an
acknowledged move always has its messages on disk; :class:`Outbox` then sends
them at Telegram's pace. Delivery is *at least once*: a crash (or a network
error) after Telegram received a call but before we marked the row sent
repeats the call on restart. For ``put`` that is harmless (an identical edit
is "not modified"); a ``send`` may rarely appear twice.

Operations:

* ``put``: make the message remembered under ``key`` show this text, editing it
  if we know its id, else sending it and remembering the new id. Several
  pending puts for one key collapse into the newest, so a burst of moves costs
  one edit of the table message.
* ``send``: always a new message (remembered under ``key`` if one is given).
* ``delete``: delete the message remembered under ``key`` and forget it.

Message texts can contain a player's hidden cards, so nothing here logs them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import sqlite3
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

import aiohttp
from aiogram import Bot
from aiogram.client.session.aiohttp import AiohttpSession
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
from aiogram.methods import (
    AnswerCallbackQuery,
    DeleteMessage,
    EditMessageText,
    GetChatMember,
    GetMe,
    GetUpdates,
    SendMessage,
    SetMyCommands,
    TelegramMethod,
)
from aiogram.methods.base import Response
from aiogram.types import InlineKeyboardMarkup, Message

from bot.config import Settings
from bot.storage.db import Conn, Database, defer

log = logging.getLogger(__name__)

PUT, SEND, DELETE = "put", "send", "delete"

# aiogram parses every answer as ``Response[method.__returning__]``, a pydantic
# generic class that pydantic caches only weakly: the garbage collector keeps
# dropping these classes and each re-creation costs ~10 ms of CPU (under load
# most answers paid it). Holding them here makes every lookup a cache hit.
_PINNED_RESPONSE_TYPES = tuple(
    Response[m.__returning__]
    for m in (
        SendMessage,
        EditMessageText,
        DeleteMessage,
        AnswerCallbackQuery,
        GetUpdates,
        GetChatMember,
        GetMe,
        SetMyCommands,
    )
)

Markup = InlineKeyboardMarkup | dict[str, Any] | None
ForbiddenHandler = Callable[[int, str], Awaitable[None]]
MigratedHandler = Callable[[int, int], Awaitable[None]]

# Telegram's descriptions are the only way to tell these 400s apart.
_NOT_MODIFIED = ("message is not modified",)
_EDIT_TARGET_GONE = (
    "message to edit not found",
    "message can't be edited",
    "message_id_invalid",
    "message not found",
)
_DELETE_TARGET_GONE = (
    "message to delete not found",
    "message can't be deleted",
    "message_id_invalid",
    "message not found",
)
# 400s that mean "this chat cannot be written to": treated like a 403.
_UNREACHABLE = (
    "chat not found",
    "not enough rights",
    "have no rights to send",
    "need administrator rights",
    "bot is not a member",
    "bot was kicked",
    "user is deactivated",
    "peer_id_invalid",
)


def _matches(description: str, needles: tuple[str, ...]) -> bool:
    text = description.lower()
    return any(needle in text for needle in needles)


def _markup_json(reply_markup: Markup) -> dict[str, Any] | None:
    if reply_markup is None:
        return None
    if isinstance(reply_markup, InlineKeyboardMarkup):
        return reply_markup.model_dump(mode="json", exclude_none=True)
    if isinstance(reply_markup, dict):
        return reply_markup
    raise TypeError(f"reply_markup must be InlineKeyboardMarkup or dict, not {type(reply_markup)}")


def _payload(
    text: str,
    reply_markup: Markup,
    parse_mode: str | None,
    disable_notification: bool,
    reply_to: int | None = None,
) -> str:
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text)}")
    data: dict[str, Any] = {"text": text, "parse_mode": parse_mode}
    markup = _markup_json(reply_markup)
    if markup is not None:
        data["reply_markup"] = markup
    if disable_notification:
        data["disable_notification"] = True
    if reply_to is not None:
        if isinstance(reply_to, bool) or not isinstance(reply_to, int):
            raise TypeError(f"reply_to must be a message id, not {type(reply_to)}")
        data["reply_to"] = reply_to
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


async def _insert(
    conn: Conn,
    chat_id: int,
    op: str,
    key: str | None,
    payload: str,
    not_before: float,
) -> None:
    await defer(
        conn,
        "INSERT INTO outbox(chat_id, op, key, payload, not_before, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (chat_id, op, key, payload, not_before, time.time()),
    )


async def enqueue_put(
    conn: Conn,
    chat_id: int,
    key: str,
    text: str,
    reply_markup: Markup = None,
    parse_mode: str | None = "HTML",
    *,
    disable_notification: bool = False,
    not_before: float = 0.0,
) -> None:
    """Queue "the message under ``key`` shows ``text``" (edit if known, else send).

    Call inside ``db.tx()``; ``not_before`` is a ``time.time()`` instant before
    which the row is not sent (and it holds back this chat's later rows).
    """
    payload = _payload(text, reply_markup, parse_mode, disable_notification)
    await _insert(conn, chat_id, PUT, key, payload, not_before)


async def enqueue_send(
    conn: Conn,
    chat_id: int,
    text: str,
    reply_markup: Markup = None,
    key: str | None = None,
    parse_mode: str | None = "HTML",
    *,
    disable_notification: bool = False,
    not_before: float = 0.0,
    reply_to: int | None = None,
) -> None:
    """Queue a new message; with ``key`` its id is remembered so later puts edit it.

    ``reply_to``: the id of the message (in this chat) it answers; should that
    message be gone by then, it is sent as a plain message.
    """
    payload = _payload(text, reply_markup, parse_mode, disable_notification, reply_to)
    await _insert(conn, chat_id, SEND, key, payload, not_before)


async def enqueue_delete(conn: Conn, chat_id: int, key: str, *, not_before: float = 0.0) -> None:
    """Queue deleting the message remembered under ``key`` (a no-op if none is)."""
    await _insert(conn, chat_id, DELETE, key, "{}", not_before)


async def forget_key(conn: Conn, key: str) -> None:
    """Forget the message under ``key``: the next put sends a fresh message."""
    await defer(conn, "DELETE FROM messages WHERE key = ?", (key,))


class Pacer:
    """A token bucket (``rate``/s, up to ``burst`` at once) plus an optional sliding window.

    The window caps the calls in any ``window`` seconds at ``rate * window``,
    which the bucket alone would exceed by ``burst``; the bucket keeps calls
    spread out instead of spending a whole minute's allowance at once.

    Calls taken with ``pending=True`` count in the window from the moment they
    are taken until :meth:`settle` (their answer came), and from then on with
    the answer's time: Telegram received each call somewhere between the two,
    so no window at Telegram's end can hold more than the cap, however the
    network delays answers.
    """

    def __init__(self, rate: float, burst: int = 1, window: float | None = None) -> None:
        if rate <= 0:
            raise ValueError("rate must be positive")
        self.rate = rate
        self.burst = max(1, burst)
        self.tokens = float(self.burst)
        self.stamp: float | None = None
        self.window = window
        self.cap = max(1, round(rate * window)) if window else 0
        self.recent: deque[float] = deque()
        self.pending = 0  # calls taken and not answered yet

    def _refill(self, now: float) -> None:
        if self.stamp is not None and now > self.stamp:
            self.tokens = min(float(self.burst), self.tokens + (now - self.stamp) * self.rate)
        if self.stamp is None or now > self.stamp:
            self.stamp = now

    def delay(self, now: float) -> float:
        """Seconds until one more call is allowed (0 if it is allowed now)."""
        self._refill(now)
        wait = 0.0 if self.tokens >= 1 else (1 - self.tokens) / self.rate
        if self.window:
            while self.recent and self.recent[0] <= now - self.window:
                self.recent.popleft()
            if len(self.recent) + self.pending >= self.cap:
                # With every slot a call on its way, wait for an answer (inf).
                wait = max(wait, self.recent[0] + self.window - now) if self.recent else math.inf
        return wait

    def take(self, now: float, *, pending: bool = False) -> None:
        """Record one call made at ``now`` (``pending``: settled when answered)."""
        self._refill(now)
        self.tokens -= 1
        if self.window:
            if pending:
                self.pending += 1
            else:
                self.recent.append(now)

    def settle(self, now: float, *, sequential: bool) -> None:
        """A call taken with ``pending=True`` was answered at ``now``.

        ``sequential``: this pacer never has two calls on the way (one chat),
        so its bucket refills from the answer too: a slow answer cannot squeeze
        the next call closer to it at Telegram's end.
        """
        if sequential and self.stamp is not None and now > self.stamp:
            self.stamp = now
        if self.window and self.pending > 0:
            self.pending -= 1
            self.recent.append(now)

    def idle(self, now: float) -> bool:
        """True when forgetting this pacer would change nothing."""
        return (
            self.delay(now) == 0
            and self.tokens >= self.burst
            and not self.recent
            and not self.pending
        )


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


@dataclass(slots=True)
class _Row:
    id: int
    chat_id: int
    op: str
    key: str | None
    payload: str
    not_before: float


@dataclass(slots=True)
class _Plan:
    target: _Row  # the row whose content goes out
    superseded: list[int]  # older puts for the same key that target replaces
    message_id: int | None  # the remembered message for target.key in this chat
    head: _Row | None = None  # the chat's first pending row, when not target

    @property
    def first(self) -> _Row:
        return self.head or self.target


_ROW_COLS = "id, chat_id, op, key, payload, not_before"


def _plan_rows(raw: sqlite3.Connection, head: _Row, scan: int, now: float) -> _Plan:
    """:meth:`Outbox._plan` on the database thread: its reads in one hop."""
    message_id: int | None = None
    if head.key is not None and head.op in (PUT, DELETE):
        known = raw.execute(
            "SELECT chat_id, message_id FROM messages WHERE key = ?", (head.key,)
        ).fetchone()
        if known is not None and known[0] == head.chat_id:
            message_id = int(known[1])
    if head.op != PUT:
        return _Plan(head, [], message_id)
    later = raw.execute(
        "SELECT id, op, key, not_before FROM outbox"
        " WHERE chat_id = ? AND status = 'pending' AND id > ? ORDER BY id LIMIT ?",
        (head.chat_id, head.id, scan),
    ).fetchall()
    superseded: list[int] = []
    target_id = head.id
    for row_id, op, key, not_before in later:
        if op == PUT and key == head.key and not_before <= now:
            superseded.append(target_id)
            target_id = row_id
        elif key == head.key or message_id is None:
            # Another op on this key, or (while the message does not exist
            # yet) any other message: moving past it would reorder the chat.
            break
    if target_id == head.id:
        return _Plan(head, [], message_id)
    row = raw.execute(f"SELECT {_ROW_COLS} FROM outbox WHERE id = ?", (target_id,)).fetchone()
    if row is None:
        return _Plan(head, [], message_id)
    return _Plan(_Row(*row), superseded, message_id, head)


def _next_plan(raw: sqlite3.Connection, chat_id: int, scan: int, now: float) -> _Plan | None:
    """The chat's first pending row and what to send for it (None: nothing pending)."""
    row = raw.execute(
        f"SELECT {_ROW_COLS} FROM outbox WHERE chat_id = ? AND status = 'pending'"
        " ORDER BY id LIMIT 1",
        (chat_id,),
    ).fetchone()
    return None if row is None else _plan_rows(raw, _Row(*row), scan, now)


def _mark_superseded(raw: sqlite3.Connection, ids: list[int]) -> int:
    if not ids:
        return 0
    marks = ",".join("?" * len(ids))
    return raw.execute(
        f"UPDATE outbox SET status = 'superseded' WHERE status = 'pending' AND id IN ({marks})",
        ids,
    ).rowcount


def _finish_rows(
    raw: sqlite3.Connection, plan: _Plan, message_id: int | None, forget: bool, scan: int
) -> tuple[int, _Plan | None]:
    """:meth:`Outbox._finish` on the database thread: how many rows it superseded,
    and the chat's next plan, read in the same trip."""
    row = plan.target
    coalesced = _mark_superseded(raw, plan.superseded)
    raw.execute(
        "UPDATE outbox SET status = 'sent', attempts = attempts + 1, error = NULL WHERE id = ?",
        (row.id,),
    )
    if forget and row.key is not None:
        raw.execute("DELETE FROM messages WHERE key = ? AND chat_id = ?", (row.key, row.chat_id))
    elif row.key is not None and message_id is not None:
        raw.execute(
            "INSERT INTO messages(key, chat_id, message_id) VALUES (?, ?, ?)"
            " ON CONFLICT(key) DO UPDATE SET chat_id = excluded.chat_id,"
            " message_id = excluded.message_id",
            (row.key, row.chat_id, message_id),
        )
    return coalesced, _next_plan(raw, row.chat_id, scan, time.time())


@dataclass(slots=True)
class _Call:
    """One Bot API call: the aiogram method it is and its parameters."""

    model: type[TelegramMethod[Any]]
    body: dict[str, Any]

    def method(self) -> TelegramMethod[Any]:
        return self.model(**self.body)


_JSON_HEADERS = {"Content-Type": "application/json"}
# A prune deletes at most PRUNE_CHUNKS × PRUNE_CHUNK rows of each kind; the rest wait.
PRUNE_CHUNK = 500
PRUNE_CHUNKS = 10


class _Stop(Exception):
    """This chat's worker must end (its rows moved to another chat)."""


class Outbox:
    """Sends the ``outbox`` rows: in order per chat, chats in parallel, at Telegram's pace."""

    #: How long sent/superseded rows are kept, and failed ones (for diagnosis).
    keep_sent: float = 3600.0
    keep_failed: float = 7 * 24 * 3600.0
    prune_interval: float = 60.0
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
    ) -> None:
        """``clock``/``sleep`` drive pacing and backoff; tests pass fakes to run fast."""
        self._db = db
        self._bot = bot
        self._on_forbidden = on_forbidden
        self._on_migrated = on_migrated
        self._clock = clock
        self._sleep = sleep
        self._request_timeout = request_timeout
        self._group_rate = settings.group_messages_per_minute / 60.0
        self._private_rate = settings.private_messages_per_second
        global_rate = settings.global_messages_per_second
        self._global = (
            Pacer(global_rate, burst=max(1, int(global_rate)), window=1.0)
            if global_rate > 0
            else None
        )
        self._pacers: dict[int, Pacer | None] = {}
        self._paused: dict[int, float] = {}
        self._global_paused = float("-inf")
        self._recent_floods: dict[int, float] = {}
        self._workers: dict[int, asyncio.Task[None]] = {}
        self._ahead: dict[int, _Plan] = {}  # per chat: the next plan, read while finishing
        self._event = asyncio.Event()
        self._gen = 0
        self._running = False
        self._stopping = False
        self._busy: set[int] = set()  # chats with a call in flight (or its bookkeeping)
        self._answered = asyncio.Event()
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

        On cancellation, calls already made are given ``shutdown_grace`` seconds
        to be answered and recorded, so a restart does not repeat them.
        """
        if self._running:
            raise RuntimeError("Outbox.run() is already running")
        self._running = True
        loop = asyncio.get_running_loop()
        next_prune = loop.time()
        try:
            while True:
                self._event.clear()
                try:
                    await self._schedule()
                    if loop.time() >= next_prune:
                        next_prune = loop.time() + self.prune_interval
                        await self.prune()
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
                row = await self._db.fetchone(
                    "SELECT 1 FROM outbox WHERE status = 'pending' LIMIT 1"
                )
                if row is None and not self._workers:
                    return
                if row is not None:
                    self.wake()
            if loop.time() >= deadline:
                raise TimeoutError("outbox still has pending rows")
            await asyncio.sleep(0.01)

    async def prune(self) -> int:
        """Delete old sent/superseded (and very old failed) rows; returns how many."""
        now = time.time()
        removed = 0
        for statuses, age in (
            ("'sent', 'superseded'", self.keep_sent),
            ("'failed'", self.keep_failed),
        ):
            # Small deletes: the moves of every table share the writing
            # connection and would wait behind one big delete.
            for _ in range(PRUNE_CHUNKS):
                n = await self._db.execute(
                    "DELETE FROM outbox WHERE id IN (SELECT id FROM outbox"
                    f" WHERE created_at < ? AND status IN ({statuses}) LIMIT {PRUNE_CHUNK})",
                    (now - age,),
                )
                removed += n
                if n < PRUNE_CHUNK:
                    break
        mono = self._clock()
        for chat_id, pacer in list(self._pacers.items()):
            if chat_id not in self._workers and (pacer is None or pacer.idle(mono)):
                del self._pacers[chat_id]
        self._paused = {c: until for c, until in self._paused.items() if until > mono}
        return removed

    # -- scheduling ------------------------------------------------------

    async def _schedule(self) -> None:
        rows = await self._db.fetchall(
            "SELECT DISTINCT chat_id FROM outbox WHERE status = 'pending'"
        )
        for row in rows:
            chat_id = int(row["chat_id"])
            if chat_id not in self._workers:
                task = asyncio.create_task(self._work(chat_id), name=f"outbox-{chat_id}")
                self._workers[chat_id] = task

    async def _work(self, chat_id: int) -> None:
        """Send one chat's rows strictly in id order until none is pending."""
        failures = 0
        waited_for: int | None = None
        try:
            while not self._stopping:
                gen = self._gen
                try:
                    # Read along with the last row's bookkeeping, else read now.
                    plan = self._ahead.pop(chat_id, None) or await self._db.run(
                        _next_plan, chat_id, self.coalesce_scan, time.time()
                    )
                    if plan is None:
                        if gen == self._gen:
                            return  # the finally runs before any other coroutine
                        continue
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
                        await self._sleep(
                            min(self.backoff_cap, self.backoff_base * 2 ** (failures - 1))
                        )
                except _Stop:
                    return
                except asyncio.CancelledError:
                    raise
                except Exception:
                    failures += 1
                    log.exception("outbox worker for chat %s failed; retrying", chat_id)
                    await self._sleep(
                        min(self.backoff_cap, self.backoff_base * 2 ** (failures - 1))
                    )
        finally:
            self._ahead.pop(chat_id, None)
            if self._workers.get(chat_id) is asyncio.current_task():
                del self._workers[chat_id]

    # -- pacing ----------------------------------------------------------

    def _pacer(self, chat_id: int) -> Pacer | None:
        if chat_id not in self._pacers:
            if chat_id < 0:
                rate = self._group_rate
                pacer = (
                    Pacer(rate, burst=min(self.group_burst, max(1, round(rate * 60))), window=60.0)
                    if rate > 0
                    else None
                )
            else:
                rate = self._private_rate
                pacer = Pacer(rate, burst=1) if rate > 0 else None
            self._pacers[chat_id] = pacer
        return self._pacers[chat_id]

    def _wait_needed(self, chat_id: int, now: float) -> float:
        """Seconds until this chat, the global budget and any flood pause allow one call."""
        pacer = self._pacer(chat_id)
        return max(
            self._paused.get(chat_id, now) - now,
            self._global_paused - now,
            pacer.delay(now) if pacer else 0.0,
            self._global.delay(now) if self._global else 0.0,
        )

    async def _acquire(self, chat_id: int) -> bool:
        """Wait until one call is allowed (without using the allowance: see
        :meth:`_take`); True if it had to wait."""
        waited = False
        while True:
            answered = self._answered  # set when a call in flight is answered
            wait = self._wait_needed(chat_id, self._clock())
            if wait <= 0:
                return waited
            waited = True
            if wait == math.inf:
                await answered.wait()
            else:
                await self._sleep(max(wait, 0.001))

    def _take(self, chat_id: int) -> float | None:
        """Use one call's allowance now, if it is still there; returns the moment
        (no ``await`` may come between this and the call)."""
        now = self._clock()
        if self._wait_needed(chat_id, now) > 0:
            return None
        pacer = self._pacer(chat_id)
        if pacer:
            pacer.take(now, pending=True)
        if self._global:
            self._global.take(now, pending=True)
        self._paused.pop(chat_id, None)
        return now

    def _settle(self, chat_id: int) -> None:
        """The call :meth:`_take` allowed is over (answered, failed or abandoned)."""
        self._answered.set()
        self._answered = asyncio.Event()
        now = self._clock()
        pacer = self._pacers.get(chat_id)
        if pacer is not None:
            pacer.settle(now, sequential=True)
        if self._global is not None:
            self._global.settle(now, sequential=False)

    def _flood(self, chat_id: int, retry_after: float) -> None:
        """Pause the chat; if several chats hit 429 at once, the flood is global: pause all."""
        now = self._clock()
        self._paused[chat_id] = now + retry_after
        self._recent_floods = {c: t for c, t in self._recent_floods.items() if now - t < 1.0}
        self._recent_floods[chat_id] = now
        if len(self._recent_floods) >= 2:
            self._global_paused = max(self._global_paused, now + retry_after)

    # -- one attempt -----------------------------------------------------

    async def _plan(self, head: _Row) -> _Plan:
        """Pick what to send for ``head``, folding newer puts for the same key into it."""
        if head.op == SEND:
            return _Plan(head, [], None)  # nothing to look up: no trip to the database
        return await self._db.run(_plan_rows, head, self.coalesce_scan, time.time())

    def _build(self, plan: _Plan) -> _Call:
        row = plan.target
        if row.op == DELETE:
            assert plan.message_id is not None
            return _Call(DeleteMessage, {"chat_id": row.chat_id, "message_id": plan.message_id})
        data = json.loads(row.payload)
        body: dict[str, Any] = {"chat_id": row.chat_id}
        if row.op == PUT and plan.message_id is not None:
            model: type[TelegramMethod[Any]] = EditMessageText
            body["message_id"] = plan.message_id
        else:
            model = SendMessage
            if data.get("disable_notification"):
                body["disable_notification"] = True
            reply_to = data.get("reply_to")
            if reply_to is not None:
                if isinstance(reply_to, bool) or not isinstance(reply_to, int):
                    raise TypeError("reply_to must be a message id")
                body["reply_parameters"] = {
                    "message_id": reply_to,
                    "allow_sending_without_reply": True,
                }
        text = data["text"]
        if not isinstance(text, str):
            raise TypeError("text must be a string")
        body["text"] = text
        if data.get("parse_mode"):
            body["parse_mode"] = data["parse_mode"]
        if data.get("reply_markup"):
            body["reply_markup"] = data["reply_markup"]
        return _Call(model, body)

    async def _post(self, call: _Call) -> int | None:
        """Make the call; returns the message id Telegram answered with, if any.

        Raises what ``bot(method)`` raises. With aiogram's aiohttp session the
        body goes out as JSON and only a failed answer is parsed into aiogram's
        models (for its exceptions): aiogram's own path (a multipart form per
        call, every answer validated into a ``Message``) cost about as much CPU
        as rendering the message.
        """
        session = self._bot.session
        if type(session) is not AiohttpSession or session.middleware._middlewares:
            result = await self._bot(call.method(), request_timeout=self._request_timeout)
            return result.message_id if isinstance(result, Message) else None
        client = await session.create_session()
        url = session.api.api_url(token=self._bot.token, method=call.model.__api_method__)
        seconds = session.timeout if self._request_timeout is None else self._request_timeout
        try:
            async with client.post(
                url,
                data=json.dumps(call.body, ensure_ascii=False),
                headers=_JSON_HEADERS,
                timeout=aiohttp.ClientTimeout(total=seconds),
            ) as resp:
                status, content = resp.status, await resp.text()
        except TimeoutError as exc:
            raise TelegramNetworkError(call.method(), "Request timeout error") from exc
        except aiohttp.ClientError as exc:
            raise TelegramNetworkError(call.method(), f"{type(exc).__name__}: {exc}") from exc
        if status == 200:
            try:
                answer = json.loads(content)
            except ValueError:
                answer = None
            if isinstance(answer, dict) and answer.get("ok") is True:
                result = answer.get("result")
                if isinstance(result, dict) and isinstance(result.get("message_id"), int):
                    return result["message_id"]
                return None
        # Not a plain success: aiogram's own checks raise the exception it would.
        session.check_response(self._bot, call.method(), status, content)
        return None

    async def _attempt(self, chat_id: int, plan: _Plan) -> bool:
        """Try to deliver the plan's row (or its newest replacement); False means back off."""
        head = plan.first
        while True:
            if head.op == DELETE and plan.message_id is None:
                await self._finish(plan, None)  # nothing to delete: no call, no quota spent
                return True
            if await self._acquire(chat_id):
                # Planned again after a wait, so puts queued meanwhile are folded in.
                plan = await self._plan(head)
                continue
            taken = self._take(chat_id)
            if taken is not None:
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
            self._settle(chat_id)

    async def _deliver(self, chat_id: int, plan: _Plan, call: _Call) -> bool:
        """Make the call and record its outcome; False means back off and retry."""
        row = plan.target
        self._stats.api_calls += 1
        try:
            message_id = await self._post(call)
        except TelegramRetryAfter as exc:
            self._stats.flood_waits += 1
            log.warning("flood control in chat %s: waiting %s s", chat_id, exc.retry_after)
            self._flood(chat_id, float(exc.retry_after))
            return True
        except TelegramMigrateToChat as exc:
            await self._migrate(chat_id, exc.migrate_to_chat_id)
            raise _Stop from None
        except TelegramForbiddenError as exc:
            await self._forbidden(plan, exc.message)
            return True
        except TelegramBadRequest as exc:
            return await self._bad_request(plan, exc.message)
        except TelegramEntityTooLarge as exc:
            await self._fail(plan, exc.message)
            return True
        except TelegramUnauthorizedError as exc:
            # A wrong token: nothing to do but wait for someone to fix it.
            self._stats.retries += 1
            log.error("Telegram rejects the bot token (%s); outbox keeps rows pending", exc.message)
            await self._note_error(plan, exc.message)
            return False
        except (TelegramAPIError, ClientDecodeError, OSError, TimeoutError) as exc:
            self._stats.retries += 1
            description = getattr(exc, "message", None) or type(exc).__name__
            log.warning("outbox row %s to chat %s: %s; will retry", row.id, chat_id, description)
            await self._note_error(plan, str(description))
            return False

        if row.op == DELETE:
            self._stats.deletes += 1
            await self._finish(plan, None, forget=True)
        elif call.model is EditMessageText:
            self._stats.edits += 1
            await self._finish(plan, plan.message_id)
        else:
            self._stats.sends += 1
            if message_id is None:
                # Telegram said ok without a message: nothing to remember; a
                # later put of this key sends anew.
                log.warning("outbox row %s: sendMessage answered without a message", row.id)
            await self._finish(plan, message_id)
        return True

    async def _bad_request(self, plan: _Plan, description: str) -> bool:
        row = plan.target
        if row.op == PUT and plan.message_id is not None:
            if _matches(description, _NOT_MODIFIED):
                self._stats.not_modified += 1
                await self._finish(plan, plan.message_id)
                return True
            if _matches(description, _EDIT_TARGET_GONE):
                # Forget the lost message; the next attempt sends a new one.
                self._stats.resent += 1
                await self._db.execute(
                    "DELETE FROM messages WHERE key = ? AND message_id = ?",
                    (row.key, plan.message_id),
                )
                return True
        if row.op == DELETE and _matches(description, _DELETE_TARGET_GONE):
            await self._finish(plan, None, forget=True)
            return True
        if _matches(description, _UNREACHABLE):
            await self._forbidden(plan, description)
            return True
        await self._fail(plan, description)
        return True

    # -- bookkeeping (each a short transaction) --------------------------

    async def _finish(self, plan: _Plan, message_id: int | None, *, forget: bool = False) -> None:
        coalesced, ahead = await self._db.run_tx(
            _finish_rows, plan, message_id, forget, self.coalesce_scan
        )
        self._stats.coalesced += coalesced
        if ahead is not None and plan.target.chat_id in self._workers:
            self._ahead[plan.target.chat_id] = ahead

    async def _fail(self, plan: _Plan, description: str) -> None:
        row = plan.target
        self._stats.failed += 1
        log.error(
            "outbox row %s (%s to chat %s) failed for good: %s",
            row.id,
            row.op,
            row.chat_id,
            description,
        )

        def fail(raw: sqlite3.Connection) -> None:
            _mark_superseded(raw, plan.superseded)
            raw.execute(
                "UPDATE outbox SET status = 'failed', attempts = attempts + 1, error = ?"
                " WHERE id = ?",
                (description[:500], row.id),
            )

        await self._db.run_tx(fail)

    async def _note_error(self, plan: _Plan, description: str) -> None:
        await self._db.execute(
            "UPDATE outbox SET attempts = attempts + 1, error = ? WHERE id = ?",
            (description[:500], plan.target.id),
        )

    async def _forbidden(self, plan: _Plan, description: str) -> None:
        """The chat refuses us: fail its pending rows (they would all fail) and tell the service."""
        chat_id = plan.target.chat_id
        self._stats.forbidden += 1
        log.warning("chat %s cannot be written to: %s", chat_id, description)
        self._stats.failed += await self._db.execute(
            "UPDATE outbox SET status = 'failed', attempts = attempts + 1, error = ?"
            " WHERE chat_id = ? AND status = 'pending'",
            (description[:500], chat_id),
        )
        if self._on_forbidden is not None:
            try:
                await self._on_forbidden(chat_id, description)
            except Exception:
                log.exception("on_forbidden(%s) failed", chat_id)

    async def migrate(self, old: int, new: int) -> None:
        """Telegram said the group became a supergroup (service message or error)."""
        await self._migrate(old, new)

    async def _migrate(self, old: int, new: int) -> None:
        """A group became a supergroup: move everything that refers to the old chat id."""
        self._stats.migrations += 1
        log.info("chat %s migrated to %s", old, new)
        async with self._db.tx() as conn:
            await conn.execute(
                "UPDATE outbox SET chat_id = ? WHERE chat_id = ? AND status = 'pending'", (new, old)
            )
            await conn.execute("UPDATE messages SET chat_id = ? WHERE chat_id = ?", (new, old))
            # OR IGNORE: should the new chat already have a live table, keep both intact.
            await conn.execute(
                "UPDATE OR IGNORE tables SET chat_id = ?, updated_at = ? WHERE chat_id = ?",
                (new, time.time(), old),
            )
        if self._on_migrated is not None:
            try:
                await self._on_migrated(old, new)
            except Exception:
                log.exception("on_migrated(%s, %s) failed", old, new)
        self.wake()
