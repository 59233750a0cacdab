"""A fake Telegram Bot API server for end-to-end tests of the bot.

The bot under test runs unchanged (a real aiogram ``Bot`` and ``Dispatcher``
talking HTTP) against :class:`FakeTelegram`, an aiohttp server on 127.0.0.1.
Tests play the users through the driving API (``send_text``, ``press``,
``block_bot``…), read what the bot left in the chats (``chat_messages``,
``last_message``) and synchronise with the bot through ``wait_for`` /
``wait_idle`` instead of sleeping.

The fake mimics Telegram where a difference could hide a bug: the wire format
aiogram expects, error codes and descriptions, "message is not modified",
privacy mode in groups, the 15-second life of a callback query, flood limits.
It also injects faults (flood waits, 5xx, dropped or hung connections, even
*after* the action was applied) for the hardening and load tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import random
import time
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, TypeVar

import aiohttp
from aiohttp import web

from . import errors
from .api import REAL_METHODS, BotApi, decode_params, lookup
from .errors import ApiError, flood_wait
from .models import (
    PRESENT,
    Button,
    CallRecord,
    CallStats,
    FakeChat,
    FakeMessage,
    FakeUser,
    Fault,
    FaultKind,
    MemberStatus,
    PendingCallback,
    RateLimits,
)
from .world import SUPERGROUP_ID_LIMIT, World

T = TypeVar("T")

FAULT_KINDS: frozenset[str] = frozenset({"429", "500", "502", "502_html", "timeout", "drop"})
#: A callback query must be answered within this many seconds of the press.
CALLBACK_TTL = 15.0


def _is_message_method(method: str) -> bool:
    """Methods that put or change a message in a chat: what flood limits count."""
    lowered = method.lower()
    return (lowered.startswith("send") and lowered != "sendchataction") or lowered.startswith(
        "editmessage"
    )


def _chat_id_of(params: dict[str, Any]) -> int | None:
    value = params.get("chat_id")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass
class _RandomFaults:
    """State of ``inject_random``: a seeded generator makes a run reproducible."""

    rate: float
    kinds: tuple[FaultKind, ...]
    rng: random.Random
    method: str | None
    chat_id: int | None
    after_rate: float
    retry_after: int


class CallbackPress:
    """A button press queued as a ``callback_query`` update.

    ``await press.answer()`` waits for the bot's answerCallbackQuery and
    returns its parameters: ``text``, ``show_alert``, ``url``, ``cache_time``.
    """

    def __init__(
        self,
        fake: FakeTelegram,
        pending: PendingCallback,
        update: dict[str, Any] | None,
    ) -> None:
        self._fake = fake
        self._pending = pending
        self.update = update

    @property
    def query_id(self) -> str:
        return self._pending.query_id

    @property
    def answered(self) -> bool:
        return self._pending.answered

    async def answer(self, timeout: float = 5.0) -> dict[str, Any]:
        """The answerCallbackQuery parameters, or AssertionError if none came in time."""
        try:
            return await asyncio.wait_for(asyncio.shield(self._pending.answer), timeout)
        except TimeoutError:
            raise AssertionError(
                f"the bot did not answer callback query {self.query_id} within {timeout}s\n"
                f"{self._fake.dump_calls()}"
            ) from None


class FakeTelegram:
    """The fake Bot API server plus the API tests use to act as Telegram users.

    Configuration attributes (all may be changed at any time):

    * ``clock`` -- callable returning the current Unix time; replace it with a
      fake clock to test callback expiry, message ages and flood limits.
    * ``enforce_limits`` / ``limits`` -- answer 429 when the bot exceeds
      Telegram's flood limits (off by default; the calls are recorded either
      way so ``limit_violations()`` can check them).
    * ``privacy_mode`` -- Telegram's default for bots: in groups the bot only
      sees commands, replies to it and service messages (unless it is admin).
    * ``strict_html`` -- refuse a bare ``&`` in HTML (see ``markup.parse_html``).
    """

    def __init__(
        self,
        bot_username: str = "piki_test_bot",
        bot_id: int = 7_000_000_001,
        *,
        bot_first_name: str = "Пики",
    ) -> None:
        self.bot = FakeUser(
            id=bot_id,
            first_name=bot_first_name,
            username=bot_username,
            language_code=None,
            is_bot=True,
        )
        self.clock: Callable[[], float] = time.time
        self.enforce_limits = False
        self.limits = RateLimits()
        self.world = World(bot=self.bot, now=self.now, on_change=self._notify)
        self.api = BotApi(self.world)
        self.calls: list[CallRecord] = []
        self.tokens: set[str] = set()
        self._faults: list[Fault] = []
        self._random: _RandomFaults | None = None
        self._limit_log: dict[int, deque[float]] = defaultdict(deque)
        self._buckets: dict[int, tuple[float, float]] = {}
        self._global_log: deque[float] = deque()
        self._changed = asyncio.Event()
        self._closing = asyncio.Event()
        self._poll_generation = 0
        self._in_flight = 0
        self._last_activity = 0.0
        self._runner: web.AppRunner | None = None
        self._port: int | None = None
        self._delivery: asyncio.Task[None] | None = None
        #: Webhook POSTs the bot answered with 200, and those it did not (retried).
        self.webhook_deliveries = 0
        self.webhook_failures = 0
        #: Seconds before a failed webhook delivery is tried again.
        self.webhook_retry = 0.2
        self.webhook_last_error: str | None = None

    # --------------------------------------------------------------- settings

    @property
    def bot_id(self) -> int:
        return self.bot.id

    @property
    def bot_username(self) -> str:
        return self.bot.username or ""

    @property
    def token(self) -> str:
        """A token of this bot; one with another bot id is refused with 401 like Telegram does."""
        return f"{self.bot.id}:AAFakeTelegramTokenForTests"

    @property
    def privacy_mode(self) -> bool:
        return self.world.privacy_mode

    @privacy_mode.setter
    def privacy_mode(self, value: bool) -> None:
        self.world.privacy_mode = value

    @property
    def strict_html(self) -> bool:
        return self.api.strict_html

    @strict_html.setter
    def strict_html(self, value: bool) -> None:
        self.api.strict_html = value

    @property
    def users(self) -> dict[int, FakeUser]:
        return self.world.users

    @property
    def chats(self) -> dict[int, FakeChat]:
        return self.world.chats

    def now(self) -> float:
        """Telegram's time (``clock``): message dates, callback expiry, flood limits."""
        return self.clock()

    # -------------------------------------------------------------- lifecycle

    @property
    def base_url(self) -> str:
        """For ``TelegramAPIServer.from_base(fake.base_url)``."""
        if self._port is None:
            raise RuntimeError("FakeTelegram is not started")
        return f"http://127.0.0.1:{self._port}"

    async def start(self) -> None:
        """Listen on a free port of 127.0.0.1."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        # A dropped client connection cancels its handler, as a closed socket ends
        # a request on Telegram's side; it also lets stop() finish promptly.
        self._runner = web.AppRunner(
            app, handler_cancellation=True, shutdown_timeout=1.0, access_log=None
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self._port = self._runner.addresses[0][1]
        self._last_activity = asyncio.get_running_loop().time()
        self._delivery = asyncio.create_task(self._deliver())

    async def stop(self) -> None:
        """Release long polls and hung requests, then close the server."""
        self._closing.set()
        self._notify()
        if self._delivery is not None:
            self._delivery.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._delivery
            self._delivery = None
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeTelegram:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    # ------------------------------------------------------------------- HTTP

    async def _read_params(self, request: web.Request) -> dict[str, Any]:
        """Telegram accepts query strings, urlencoded and multipart forms, and JSON."""
        raw: dict[str, Any] = dict(request.query)
        if request.content_type == "application/json":
            body = await request.json()
            if isinstance(body, dict):
                raw.update(body)
        elif request.body_exists:
            form = await request.post()
            for key, value in form.items():
                raw[key] = value if isinstance(value, str) else value.file.read()
        return decode_params(raw)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        token = request.match_info["token"]
        method = request.match_info["method"]
        self.tokens.add(token)
        params = await self._read_params(request)
        entry = lookup(method)
        is_poll = method.lower() == "getupdates"
        canonical = "getUpdates" if is_poll else (entry[0] if entry else method)
        record = CallRecord(
            seq=len(self.calls) + 1,
            method=canonical,
            params=params,
            chat_id=_chat_id_of(params),
            time=self.now(),
            token=token,
        )
        self.calls.append(record)
        loop = asyncio.get_running_loop()
        if not is_poll:
            self._in_flight += 1
            self._last_activity = loop.time()
        self._notify()
        try:
            return await self._process(request, record, is_poll)
        finally:
            record.done = True
            if not is_poll:
                self._in_flight -= 1
                self._last_activity = loop.time()
            self._notify()

    async def _process(
        self, request: web.Request, record: CallRecord, is_poll: bool
    ) -> web.StreamResponse:
        if record.token.partition(":")[0] != str(self.bot.id):
            # A token of another bot (or none): Telegram answers 401 to every call.
            error = ApiError(401, errors.UNAUTHORIZED)
            record.error = error
            return web.json_response(error.to_json(), status=401)
        fault = self._take_fault(record)
        if fault is not None and not fault.after:
            return await self._apply_fault(request, record, fault)
        try:
            if is_poll:
                result = await self._get_updates(record.params)
            elif lookup(record.method) is None:
                if record.method.lower() in REAL_METHODS:
                    raise ApiError(
                        501, f"Not Implemented: the fake Telegram has no {record.method}"
                    )
                raise ApiError(404, errors.METHOD_NOT_FOUND)
            else:
                self._check_limits(record)
                result = await self.api.call(record.method, record.params)
        except ApiError as error:
            record.error = error
            response = web.json_response(error.to_json(), status=error.error_code)
        else:
            record.result = result
            response = web.json_response({"ok": True, "result": result})
        if fault is not None:
            return await self._apply_fault(request, record, fault)
        return response

    async def _get_updates(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        """Long polling: answer at once if updates wait, else when one arrives or time is up.

        A newer getUpdates ends an older one with 409, exactly like Telegram
        does when two bot instances poll at once.
        """
        if self.world.webhook is not None:
            raise ApiError(409, errors.WEBHOOK_ACTIVE)
        self._poll_generation += 1
        generation = self._poll_generation
        self._notify()  # wake an older poll so it reports the conflict
        allowed = params.get("allowed_updates")
        if isinstance(allowed, list):
            self.world.allowed_updates = frozenset(allowed) if allowed else None
        offset = params.get("offset")
        self.world.confirm(offset if isinstance(offset, int) else None)
        limit = params.get("limit")
        limit = limit if isinstance(limit, int) and 1 <= limit <= 100 else 100
        timeout = params.get("timeout")
        timeout = float(timeout) if isinstance(timeout, int) and timeout > 0 else 0.0
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            if generation != self._poll_generation:
                raise ApiError(409, errors.GET_UPDATES_CONFLICT)
            if self.world.updates:
                self._last_activity = loop.time()
                return self.world.updates[:limit]
            remaining = deadline - loop.time()
            if remaining <= 0 or self._closing.is_set():
                return []
            # Re-check at least every 50 ms: a wake-up can be missed when an
            # update is queued between two polls, and a test must not wait a
            # whole long-poll timeout for it.
            await self._wait_change(min(remaining, 0.05))

    async def _deliver(self) -> None:
        """With a webhook set: POST the updates to it in order, one at a time,
        with the secret token header; one not answered 200 is tried again
        after ``webhook_retry`` seconds, as Telegram keeps retrying."""
        loop = asyncio.get_running_loop()
        async with aiohttp.ClientSession() as session:
            while not self._closing.is_set():
                hook = self.world.webhook
                if hook is None or not self.world.updates:
                    await self._wait_change(0.05)
                    continue
                update = self.world.updates[0]
                headers = {}
                if hook["secret_token"]:
                    headers["X-Telegram-Bot-Api-Secret-Token"] = hook["secret_token"]
                self._in_flight += 1
                self._last_activity = loop.time()
                try:
                    async with session.post(
                        hook["url"],
                        json=update,
                        headers=headers,
                        timeout=aiohttp.ClientTimeout(total=60),
                    ) as response:
                        await response.read()
                        ok = response.status == 200
                except Exception as exc:  # noqa: BLE001 - any failure is a failed delivery
                    self.webhook_last_error = repr(exc)
                    ok = False
                finally:
                    self._in_flight -= 1
                    self._last_activity = loop.time()
                    self._notify()
                if ok:
                    self.webhook_deliveries += 1
                    if self.world.updates and self.world.updates[0] is update:
                        del self.world.updates[0]
                else:
                    self.webhook_failures += 1
                    await asyncio.sleep(self.webhook_retry)

    # ------------------------------------------------------------------ faults

    def inject(
        self,
        kind: FaultKind,
        method: str | None = None,
        chat_id: int | None = None,
        count: int | None = 1,
        retry_after: int = 1,
        *,
        after: bool = False,
    ) -> Fault:
        """Fail the next ``count`` matching calls (``count=None``: until cleared).

        ``method=None`` matches every method but getUpdates.  ``after=True``
        performs the action first and then fails the answer, so the message is
        really sent/edited while the bot believes it failed (mostly useful with
        ``"drop"`` and ``"timeout"``, the ambiguity exactly-once code must survive).
        """
        if kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {kind!r}; expected one of {sorted(FAULT_KINDS)}")
        fault = Fault(
            kind=kind,
            method=method,
            chat_id=chat_id,
            remaining=count,
            retry_after=retry_after,
            after=after,
        )
        self._faults.append(fault)
        return fault

    def inject_random(
        self,
        rate: float,
        kinds: Sequence[FaultKind] = ("429", "500", "drop"),
        seed: int = 0,
        *,
        method: str | None = None,
        chat_id: int | None = None,
        after_rate: float = 0.0,
        retry_after: int = 1,
    ) -> None:
        """Fail about ``rate`` of the matching calls, reproducibly for a given ``seed``.

        ``after_rate`` is the share of those faults applied after the action.
        Replaces a previous ``inject_random``.
        """
        unknown = set(kinds) - FAULT_KINDS
        if unknown or not kinds:
            raise ValueError(f"bad fault kinds {sorted(unknown) or kinds!r}")
        self._random = _RandomFaults(
            rate=rate,
            kinds=tuple(kinds),
            rng=random.Random(seed),
            method=method,
            chat_id=chat_id,
            after_rate=after_rate,
            retry_after=retry_after,
        )

    def clear_faults(self) -> None:
        """Remove every injected fault, explicit and random."""
        self._faults.clear()
        self._random = None

    def _take_fault(self, record: CallRecord) -> Fault | None:
        for fault in self._faults:
            if fault.matches(record.method, record.chat_id):
                if fault.remaining is not None:
                    fault.remaining -= 1
                fault.fired += 1
                return fault
        rnd = self._random
        if rnd is None:
            return None
        probe = Fault(kind=rnd.kinds[0], method=rnd.method, chat_id=rnd.chat_id, remaining=None)
        if not probe.matches(record.method, record.chat_id) or rnd.rng.random() >= rnd.rate:
            return None
        return Fault(
            kind=rnd.rng.choice(rnd.kinds),
            method=rnd.method,
            chat_id=rnd.chat_id,
            remaining=0,
            retry_after=rnd.retry_after,
            after=rnd.rng.random() < rnd.after_rate,
            fired=1,
        )

    async def _apply_fault(
        self, request: web.Request, record: CallRecord, fault: Fault
    ) -> web.StreamResponse:
        record.fault = fault.kind
        if fault.kind == "429":
            error = flood_wait(fault.retry_after)
            return web.json_response(error.to_json(), status=429)
        if fault.kind == "500":
            error = ApiError(500, errors.INTERNAL_SERVER_ERROR)
            return web.json_response(error.to_json(), status=500)
        if fault.kind == "502":
            error = ApiError(502, errors.BAD_GATEWAY)
            return web.json_response(error.to_json(), status=502)
        if fault.kind == "502_html":
            return web.Response(status=502, text=errors.NGINX_502_HTML, content_type="text/html")
        if fault.kind == "timeout":
            # Hold the request until the client gives up (its handler is then
            # cancelled) or the fake stops.
            await self._closing.wait()
        self._drop_connection(request)
        # With the socket gone there is nobody to answer; ending the handler as
        # cancelled is how aiohttp itself ends one whose client disconnected.
        raise asyncio.CancelledError

    @staticmethod
    def _drop_connection(request: web.Request) -> None:
        """Close the socket without an HTTP answer, like a lost connection."""
        transport = request.transport
        if transport is not None:
            transport.abort()

    # ------------------------------------------------------------------ limits

    def _check_limits(self, record: CallRecord) -> None:
        """Answer 429 like Telegram when the bot floods (only with ``enforce_limits``)."""
        if not self.enforce_limits:
            return
        now = self.now()
        limits = self.limits
        log = self._global_log
        while log and log[0] <= now - 1.0:
            log.popleft()
        if len(log) >= limits.global_per_second:
            raise flood_wait(1)
        chat = self.world.chats.get(record.chat_id) if record.chat_id is not None else None
        if chat is not None and _is_message_method(record.method):
            if chat.is_group:
                chat_log = self._limit_log[chat.id]
                while chat_log and chat_log[0] <= now - 60.0:
                    chat_log.popleft()
                if len(chat_log) >= limits.group_per_minute:
                    raise flood_wait(max(1, math.ceil(chat_log[0] + 60.0 - now)))
                chat_log.append(now)
            else:
                tokens, last = self._buckets.get(chat.id, (float(limits.private_burst), now))
                tokens = min(
                    float(limits.private_burst),
                    tokens + (now - last) * limits.private_per_second,
                )
                if tokens < 1.0:
                    self._buckets[chat.id] = (tokens, now)
                    raise flood_wait(max(1, math.ceil((1.0 - tokens) / limits.private_per_second)))
                self._buckets[chat.id] = (tokens - 1.0, now)
        log.append(now)

    def message_times(self, chat_id: int) -> list[float]:
        """Fake-clock times of the successful sends and edits in a chat."""
        return [
            call.time
            for call in self.calls
            if call.chat_id == chat_id and call.ok and _is_message_method(call.method)
        ]

    def limit_violations(self, limits: RateLimits | None = None) -> list[str]:
        """Where the bot's successful calls broke Telegram's flood limits (empty = fine).

        Works whether or not ``enforce_limits`` was on, so a test can assert
        the bot paces itself instead of relying on 429s.
        """
        limits = limits or self.limits
        found: list[str] = []
        times = sorted(c.time for c in self.calls if c.ok and c.method != "getUpdates")
        for index in range(len(times) - limits.global_per_second):
            if times[index + limits.global_per_second] - times[index] < 1.0:
                found.append(
                    f"more than {limits.global_per_second} calls within a second "
                    f"at t={times[index]:.3f}"
                )
                break
        for chat_id in sorted({c.chat_id for c in self.calls if c.chat_id is not None}):
            chat = self.world.chats.get(chat_id)
            if chat is None:
                continue
            sent = self.message_times(chat_id)
            if chat.is_group:
                quota = limits.group_per_minute
                for index in range(len(sent) - quota):
                    if sent[index + quota] - sent[index] < 60.0:
                        found.append(
                            f"chat {chat_id}: more than {quota} messages within a minute "
                            f"at t={sent[index]:.3f}"
                        )
                        break
            else:
                tokens, last = float(limits.private_burst), sent[0] if sent else 0.0
                for moment in sent:
                    tokens = min(
                        float(limits.private_burst),
                        tokens + (moment - last) * limits.private_per_second,
                    )
                    last = moment
                    if tokens < 1.0:
                        found.append(
                            f"chat {chat_id}: sustained more than "
                            f"{limits.private_per_second}/s at t={moment:.3f}"
                        )
                        break
                    tokens -= 1.0
        return found

    # ----------------------------------------------------------------- waiting

    def _notify(self) -> None:
        """Wake every waiter; each re-checks its own condition."""
        self._changed.set()
        self._changed = asyncio.Event()

    async def _wait_change(self, timeout: float) -> None:
        event = self._changed
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(event.wait(), timeout)

    async def wait_for(
        self,
        predicate: Callable[[], T],
        timeout: float = 5.0,
        *,
        message: str | None = None,
    ) -> T:
        """Wait until ``predicate()`` is truthy and return its value.

        The predicate is re-checked whenever the bot calls the API or the
        fake's state changes; on timeout an AssertionError shows the recent
        calls, which is usually all one needs to see why.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            value = predicate()
            if value:
                return value
            remaining = deadline - loop.time()
            if remaining <= 0:
                what = message or getattr(predicate, "__name__", "condition")
                raise AssertionError(
                    f"timed out after {timeout}s waiting for {what}\n{self.dump_calls()}"
                )
            await self._wait_change(remaining)

    async def wait_for_call(
        self,
        method: str,
        chat_id: int | None = None,
        *,
        after: int = 0,
        timeout: float = 5.0,
    ) -> CallRecord:
        """The first finished call of ``method`` (optionally to ``chat_id``) with ``seq > after``."""

        def found() -> CallRecord | None:
            for call in self.calls[after:]:
                if (
                    call.done
                    and call.method.lower() == method.lower()
                    and (chat_id is None or call.chat_id == chat_id)
                ):
                    return call
            return None

        return await self.wait_for(found, timeout, message=f"a {method} call")

    async def wait_idle(self, quiet: float = 0.2, timeout: float = 10.0) -> None:
        """Wait until the bot has digested everything.

        Idle means: no update left in the queue, no request other than
        getUpdates in progress, and none made for ``quiet`` seconds (real
        time, so that handler tasks between two calls are covered).
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            now = loop.time()
            idle_for = now - self._last_activity
            if not self.world.updates and self._in_flight == 0 and idle_for >= quiet:
                return
            if now >= deadline:
                raise AssertionError(
                    f"the bot was not idle within {timeout}s: {len(self.world.updates)} updates "
                    f"pending, {self._in_flight} calls in flight\n{self.dump_calls()}"
                )
            pause = quiet - idle_for if idle_for < quiet else quiet / 4
            await asyncio.sleep(max(0.005, min(pause, deadline - now)))

    def dump_calls(self, last: int = 25) -> str:
        """The most recent calls (getUpdates left out), one per line."""
        relevant = [c for c in self.calls if c.method != "getUpdates"][-last:]
        lines = [call.summary() for call in relevant] or ["(the bot made no call but getUpdates)"]
        pending = len(self.world.updates)
        return f"recent calls ({pending} updates pending):\n  " + "\n  ".join(lines)

    def _bump(self) -> None:
        self._last_activity = asyncio.get_running_loop().time()

    # ------------------------------------------------------ driving: the world

    def add_user(
        self,
        user_id: int,
        first_name: str,
        username: str | None = None,
        language_code: str | None = "ru",
        last_name: str | None = None,
    ) -> FakeUser:
        """A Telegram user; the private chat with the bot has the same id."""
        return self.world.add_user(
            FakeUser(
                id=user_id,
                first_name=first_name,
                username=username,
                language_code=language_code,
                last_name=last_name,
            )
        )

    def add_group(
        self,
        chat_id: int,
        title: str,
        members: Iterable[FakeUser] = (),
        admins: Iterable[FakeUser] = (),
        supergroup: bool = False,
        *,
        bot_status: MemberStatus = "member",
        username: str | None = None,
    ) -> FakeChat:
        """A group the bot is already in (no update queued): the first admin is its creator.

        Basic group ids are small negatives (-4001); supergroup ids start with
        -100 (-1001234567890).  ``bot_status="administrator"`` lifts privacy
        mode and allows pinning and deleting others' messages.
        """
        chat = FakeChat(
            id=chat_id,
            type="supergroup" if supergroup else "group",
            title=title,
            username=username,
            bot_status=bot_status,
        )
        members = [self.world.ensure_known(user) for user in members]
        admins = [self.world.ensure_known(user) for user in admins]
        self.world.add_chat(chat)
        self.world.set_members(chat, members, admins)
        return chat

    def chat(self, chat_id: int) -> FakeChat:
        return self.world.chat(chat_id)

    def _by_user(self, chat: FakeChat, by_user: FakeUser | None) -> FakeUser:
        if by_user is not None:
            return self.world.ensure_known(by_user)
        for user_id, status in chat.members.items():
            if status == "creator":
                return self.world.users[user_id]
        for user_id, status in chat.members.items():
            if status in PRESENT:
                return self.world.users[user_id]
        raise AssertionError(f"chat {chat.id} has no member to act; pass by_user")

    # ------------------------------------------------------ driving: messages

    async def send_text(
        self,
        user: FakeUser,
        chat_id: int,
        text: str,
        *,
        reply_to: int | None = None,
    ) -> dict[str, Any]:
        """``user`` writes ``text`` in a chat; returns the Message dict.

        The update is queued only if Telegram would deliver it (privacy mode in
        groups).  Writing in the private chat starts the bot, and un-blocks it
        if needed, as the Telegram app's "Restart" button does.
        """
        self.world.ensure_known(user)
        chat = self.world.chat(chat_id)
        if chat.type == "private":
            if chat.id != user.id:
                raise AssertionError(f"user {user.id} cannot write in the private chat {chat.id}")
            if user.blocked_bot:
                self.unblock_bot(user)
            user.started_bot = True
        else:
            if chat.migrated_to is not None:
                raise AssertionError(f"group {chat.id} was migrated to {chat.migrated_to}")
            if chat.members.get(user.id) not in PRESENT:
                raise AssertionError(f"user {user.id} is not a member of {chat.id}")
        target = None
        if reply_to is not None:
            target = chat.messages.get(reply_to)
            if target is None:
                raise AssertionError(f"no message {reply_to} in chat {chat.id} to reply to")
        payload = self.world.user_message(user, chat, text, reply_to=target)
        self._bump()
        await asyncio.sleep(0)
        return payload

    async def start_bot(self, user: FakeUser, payload: str | None = None) -> dict[str, Any]:
        """``/start`` (or ``/start <payload>``, a deep link) in the private chat."""
        text = "/start" if payload is None else f"/start {payload}"
        return await self.send_text(user, user.id, text)

    async def press(
        self, user: FakeUser, chat_id: int, message_id: int, callback_data: str
    ) -> CallbackPress:
        """``user`` presses the button carrying ``callback_data`` on a bot message.

        Fails the test if the message (as the bot last left it) has no such
        button or the user cannot see the chat; ``press_raw`` forges presses.
        """
        self.world.ensure_known(user)
        chat = self.world.chat(chat_id)
        message = chat.messages.get(message_id)
        if message is None:
            raise AssertionError(f"no live message {message_id} in chat {chat_id}")
        if not message.from_bot:
            raise AssertionError(f"message {message_id} in chat {chat_id} is not the bot's")
        data = [b.get("callback_data") for row in _rows(message) for b in row]
        if callback_data not in data:
            raise AssertionError(
                f"message {message_id} has no button with callback_data {callback_data!r}; "
                f"its buttons: {message.buttons()!r} (use press_raw for a forged press)"
            )
        if chat.type == "private":
            visible = chat.id == user.id
        else:
            visible = chat.members.get(user.id) in PRESENT
        if not visible:
            raise AssertionError(f"user {user.id} cannot see chat {chat_id}")
        return await self.press_raw(user, chat_id, message_id, callback_data)

    async def press_raw(
        self, user: FakeUser, chat_id: int, message_id: int, callback_data: str
    ) -> CallbackPress:
        """Queue a callback query without checking the keyboard: forged or stale presses.

        For a message that does not exist the query carries an
        InaccessibleMessage (``date`` 0), as Telegram does.
        """
        self.world.ensure_known(user)
        chat = self.world.chat(chat_id)
        message = chat.messages.get(message_id)
        if message is not None:
            message_obj = message.to_api()
        else:
            message_obj = {"chat": chat.to_api(), "message_id": message_id, "date": 0}
        query_id = str(self.world.next_callback_id)
        self.world.next_callback_id += 1
        pending = PendingCallback(
            query_id=query_id,
            created=self.now(),
            answer=asyncio.get_running_loop().create_future(),
        )
        self.world.callbacks[query_id] = pending
        update = self.world.enqueue(
            "callback_query",
            {
                "id": query_id,
                "from": user.to_api(),
                "message": message_obj,
                "chat_instance": str(abs(chat.id) * 7919 % 10**19),
                "data": callback_data,
            },
        )
        self._bump()
        await asyncio.sleep(0)
        return CallbackPress(self, pending, update)

    async def press_button(
        self,
        user: FakeUser,
        message: FakeMessage,
        *,
        text_contains: str | None = None,
        data_startswith: str | None = None,
    ) -> CallbackPress:
        """Find a callback button on ``message`` (see ``find_button``) and press it."""
        button = self.find_button(
            message, text_contains=text_contains, data_startswith=data_startswith
        )
        if button.value is None:
            raise AssertionError(f"button {button.text!r} has no callback_data")
        return await self.press(user, message.chat_id, message.message_id, button.value)

    # ------------------------------------------------- driving: memberships

    def block_bot(self, user: FakeUser) -> None:
        """The user blocks the bot: a ``my_chat_member`` update, then 403 on every send."""
        self.world.ensure_known(user)
        if user.blocked_bot:
            return
        user.blocked_bot = True
        chat = self.world.chats[user.id]
        self.world.member_update("my_chat_member", chat, user, self.bot, "member", "kicked")
        self._bump()

    def unblock_bot(self, user: FakeUser) -> None:
        """The user unblocks the bot (queues ``my_chat_member`` kicked → member)."""
        self.world.ensure_known(user)
        if not user.blocked_bot:
            return
        user.blocked_bot = False
        chat = self.world.chats[user.id]
        self.world.member_update("my_chat_member", chat, user, self.bot, "kicked", "member")
        self._bump()

    def deactivate_user(self, user: FakeUser) -> None:
        """The account is deleted: further calls to its chat answer 403 user is deactivated."""
        self.world.ensure_known(user).deactivated = True

    def remove_bot_from_group(self, chat_id: int, by_user: FakeUser | None = None) -> None:
        """An admin removes the bot: ``my_chat_member`` (→ kicked), then 403 in that chat."""
        chat = self.world.chat(chat_id)
        actor = self._by_user(chat, by_user)
        old = chat.bot_status
        chat.bot_status = "kicked"
        self.world.member_update("my_chat_member", chat, actor, self.bot, old, "kicked")
        self._bump()

    def add_bot_to_group(
        self, chat_id: int, by_user: FakeUser | None = None, *, as_admin: bool = False
    ) -> None:
        """Someone adds the bot: ``my_chat_member`` plus a ``new_chat_members`` message."""
        chat = self.world.chat(chat_id)
        actor = self._by_user(chat, by_user)
        old = chat.bot_status
        chat.bot_status = "administrator" if as_admin else "member"
        self.world.member_update("my_chat_member", chat, actor, self.bot, old, chat.bot_status)
        self.world.service_message(chat, actor, {"new_chat_members": [self.bot.to_api()]})
        self._bump()

    def add_member(self, chat_id: int, user: FakeUser, by_user: FakeUser | None = None) -> None:
        """``user`` joins a group (a ``new_chat_members`` message and a ``chat_member`` update)."""
        chat = self.world.chat(chat_id)
        self.world.ensure_known(user)
        actor = self.world.ensure_known(by_user) if by_user is not None else user
        old = chat.members.get(user.id, "left")
        chat.members[user.id] = "member"
        self.world.member_update("chat_member", chat, actor, user, old, "member")
        self.world.service_message(chat, actor, {"new_chat_members": [user.to_api()]})
        self._bump()

    def remove_member(self, chat_id: int, user: FakeUser, by_user: FakeUser | None = None) -> None:
        """``user`` leaves (or is removed from) a group."""
        chat = self.world.chat(chat_id)
        self.world.ensure_known(user)
        actor = self.world.ensure_known(by_user) if by_user is not None else user
        old = chat.members.get(user.id, "left")
        new: MemberStatus = "left" if actor is user else "kicked"
        chat.members[user.id] = new
        self.world.member_update("chat_member", chat, actor, user, old, new)
        self.world.service_message(chat, actor, {"left_chat_member": user.to_api()})
        self._bump()

    def migrate_group(
        self,
        chat_id: int,
        new_chat_id: int | None = None,
        by_user: FakeUser | None = None,
    ) -> int:
        """Upgrade a basic group to a supergroup; returns the new chat id.

        Queues ``migrate_to_chat_id`` in the old chat and
        ``migrate_from_chat_id`` in the new one; afterwards every call to the
        old id answers 400 with ``parameters.migrate_to_chat_id``.
        """
        old = self.world.chat(chat_id)
        if old.type != "group" or old.migrated_to is not None:
            raise AssertionError(f"chat {chat_id} is not a basic group that can be upgraded")
        actor = self._by_user(old, by_user)
        new_id = new_chat_id if new_chat_id is not None else SUPERGROUP_ID_LIMIT + chat_id
        new = FakeChat(
            id=new_id,
            type="supergroup",
            title=old.title,
            username=old.username,
            members=dict(old.members),
            bot_status=old.bot_status,
            migrated_from=old.id,
        )
        self.world.add_chat(new)
        self.world.service_message(old, actor, {"migrate_to_chat_id": new_id})
        old.migrated_to = new_id
        self.world.service_message(new, actor, {"migrate_from_chat_id": old.id})
        self._bump()
        return new_id

    # --------------------------------------------------------- reading state

    def message(self, chat_id: int, message_id: int) -> FakeMessage:
        """Any message ever in the chat, deleted ones included (check ``.deleted``)."""
        for message in self.world.chat(chat_id).all_messages:
            if message.message_id == message_id:
                return message
        raise AssertionError(f"chat {chat_id} never had message {message_id}")

    def chat_messages(
        self, chat_id: int, *, include_user_messages: bool = False
    ) -> list[FakeMessage]:
        """Live messages in send order: the bot's only unless asked for users' too."""
        return [
            message
            for message in self.world.chat(chat_id).messages.values()
            if include_user_messages or (message.from_bot and not message.service)
        ]

    def last_message(
        self, chat_id: int, *, include_user_messages: bool = False
    ) -> FakeMessage | None:
        """The newest live message of the bot (or of anyone) in the chat."""
        messages = self.chat_messages(chat_id, include_user_messages=include_user_messages)
        return messages[-1] if messages else None

    def find_button(
        self,
        message: FakeMessage,
        *,
        text_contains: str | None = None,
        data_startswith: str | None = None,
    ) -> Button:
        """The first button matching both criteria, or AssertionError listing the buttons."""
        for button in message.buttons():
            if text_contains is not None and text_contains not in button.text:
                continue
            if data_startswith is not None and not (button.value or "").startswith(data_startswith):
                continue
            return button
        raise AssertionError(
            f"no button with text_contains={text_contains!r} data_startswith={data_startswith!r} "
            f"on {message!r}"
        )

    def sent_texts(self, chat_id: int) -> list[str]:
        """Every text the bot sent to the chat, in order, as first sent (edits and deletes ignored)."""
        return [
            message.history[0].text if message.history else message.text
            for message in self.world.chat(chat_id).all_messages
            if message.from_bot and not message.service
        ]

    def updates_pending(self) -> int:
        """Updates queued and not yet confirmed by the bot's next getUpdates."""
        return len(self.world.updates)

    def calls_to(self, method: str, chat_id: int | None = None) -> list[CallRecord]:
        """Recorded calls of one method (any letter case), optionally to one chat."""
        return [
            call
            for call in self.calls
            if call.method.lower() == method.lower()
            and (chat_id is None or call.chat_id == chat_id)
        ]

    def stats(self) -> CallStats:
        """Counts of the recorded calls per method, per chat, per chat and method."""
        by_chat_method: dict[int, Counter[str]] = defaultdict(Counter)
        errors_seen: Counter[tuple[str, int]] = Counter()
        for call in self.calls:
            if call.chat_id is not None:
                by_chat_method[call.chat_id][call.method] += 1
            if call.error is not None and call.fault is None:
                errors_seen[(call.method, call.error.error_code)] += 1
        return CallStats(
            by_method=Counter(call.method for call in self.calls),
            by_chat=Counter(call.chat_id for call in self.calls if call.chat_id is not None),
            by_chat_method=dict(by_chat_method),
            errors=errors_seen,
            faults=Counter(call.fault for call in self.calls if call.fault is not None),
            total=len(self.calls),
        )


def _rows(message: FakeMessage) -> list[list[dict[str, Any]]]:
    markup = message.inline_keyboard
    return markup["inline_keyboard"] if markup else []
