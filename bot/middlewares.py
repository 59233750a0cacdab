"""Dispatcher middlewares: a press counts only for a button the bot put on that
very message; per-user throttling of button presses (mashing one button costs
that user a short toast and the bot nothing; other players are not slowed at
all); inline queries paced per person; and the count of updates being
handled that a stop waits for."""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware
from aiogram.types import (
    CallbackQuery,
    InaccessibleMessage,
    InlineQuery,
    Message,
    TelegramObject,
)
from aiogram_i18n import I18nContext

from bot.clock import Clock
from bot.handlers.common import answer
from bot.i18n import popup
from bot.services.replies import Replies
from bot.tasks import cancel_and_wait


def on_its_message(cb: CallbackQuery) -> bool:
    """Whether the pressed data is one of the buttons of the message it came with.

    Callback data can be forged by anyone and sent with any message they can
    see (``f:1`` on a group's table message, say). Telegram sends the message
    as it is now, so a button we removed or never put there does not match.
    A message Telegram no longer shows us (deleted, too old) cannot be
    checked: the handlers' own checks of who may do what decide then.
    """
    message = cb.message
    if isinstance(message, InaccessibleMessage):
        return True
    if not isinstance(message, Message) or message.reply_markup is None:
        return False
    return any(
        button.callback_data == cb.data
        for row in message.reply_markup.inline_keyboard
        for button in row
    )


class OwnButtons(BaseMiddleware):
    """Refuses, with the stale-button toast, a press whose data is not on its message."""

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        if isinstance(event, CallbackQuery) and not on_its_message(event):
            i18n: I18nContext | None = data.get("i18n")
            await event.answer(popup(i18n.get("err-stale")) if i18n else None)
            return None
        return await handler(event, data)


class Window:
    """At most ``limit`` events per ``length`` seconds per key, sliding: who
    is over the limit, and when a place frees. Keys idle for a window are
    forgotten once many are held, so forged ids cannot grow it for long."""

    HELD = 10_000

    def __init__(self, limit: int, length: float) -> None:
        self.limit = limit
        self.length = length
        self._recent: dict[int, deque[float]] = {}

    def admit(self, key: int, now: float) -> bool:
        """Count an event of ``key`` at ``now`` if the window has room for it."""
        q = self._recent.setdefault(key, deque())
        while q and now - q[0] >= self.length:
            q.popleft()
        if len(q) >= self.limit:
            return False
        q.append(now)
        if len(self._recent) > self.HELD:
            for k in [k for k, q in self._recent.items() if not q or now - q[-1] >= self.length]:
                del self._recent[k]
        return True

    def frees_at(self, key: int) -> float:
        """When ``key``'s oldest counted event leaves the window (after a refusal)."""
        return self._recent[key][0] + self.length


class Throttle(BaseMiddleware):
    """At most ``limit`` button presses, or commands, per ``window`` seconds
    per user; what is over costs the bot nothing and other people nothing.

    A press over the limit gets a toast (pop-ups are free of any pacing). A
    command over it is dropped; the first one dropped in a window gets one
    short reply (through the outbox, like every message), so a flood of
    commands cannot become a flood of messages.
    """

    def __init__(
        self,
        limit: int,
        window: float,
        kind: type[CallbackQuery] | type[Message],
        replies: Replies | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.window = window
        self.kind = kind
        self.replies = replies
        self.clock = clock
        self._presses = Window(limit, window)
        self._told: dict[int, float] = {}  # user -> when the last "too fast" went out

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        user = getattr(event, "from_user", None)
        if not isinstance(event, self.kind) or user is None:
            return await handler(event, data)
        # Every anonymous admin (and every channel) writes as one shared bot
        # account: they are counted by the group or channel they write as.
        sender = event.sender_chat if isinstance(event, Message) else None
        who = sender.id if sender is not None else user.id
        now = self.clock()
        if self._presses.admit(who, now):
            return await handler(event, data)
        i18n: I18nContext | None = data.get("i18n")
        text = i18n.get("err-too-fast") if i18n else ""
        if isinstance(event, CallbackQuery):
            await event.answer(popup(text) or None)
        elif (
            isinstance(event, Message)
            and self.replies is not None
            and text
            and now - self._told.get(who, -math.inf) > self.window
        ):
            if len(self._told) > Window.HELD:
                self._told = {u: t for u, t in self._told.items() if now - t <= self.window}
            self._told[who] = now
            await answer(event, self.replies, text, passing=True)
        return None


class InlinePace(BaseMiddleware):
    """At most ``limit`` inline queries per ``window`` seconds per person are
    answered as they come. Beyond that only the person's newest query waits
    for the window to let it through: one a newer query overtook is never
    answered (Telegram shows the answer to the newest query only), nor one
    that would wait past ``deadline`` seconds (Telegram refuses an answer
    after about ten). So a flood of key presses costs a person's share of
    answers and nobody else anything; what it is answered with comes from
    the inline service's memory.
    """

    def __init__(
        self,
        limit: int,
        window: float,
        clock: Clock,
        deadline: float = 8.0,
    ) -> None:
        self.deadline = deadline
        self.clock = clock
        self._queries = Window(limit, window)
        self._newest: dict[int, str] = {}  # person -> the query that may still wait

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        if not isinstance(event, InlineQuery):
            return await handler(event, data)
        who = event.from_user.id
        arrived = self.clock.now()
        self._newest[who] = event.id
        while True:
            now = self.clock.now()
            if self._queries.admit(who, now):
                if self._newest.get(who) == event.id:
                    del self._newest[who]
                return await handler(event, data)
            frees = self._queries.frees_at(who)
            if frees - arrived > self.deadline:
                if self._newest.get(who) == event.id:
                    del self._newest[who]
                return None
            await self.clock.sleep_until(frees)
            if self._newest.get(who) != event.id:
                return None  # a newer query of the person's came meanwhile


class InFlight(BaseMiddleware):
    """Tracks the updates being handled, so that a stop lets them finish before
    the database closes: Telegram has been told they arrived, and a press cut
    off half-way would be lost."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self._idle = asyncio.Event()
        self._idle.set()

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self._idle.clear()
        try:
            return await handler(event, data)
        finally:
            self._tasks.discard(task)
            if not self._tasks:
                self._idle.set()

    async def drain(self, timeout: float) -> int:
        """Wait at most ``timeout`` seconds for them to finish, then cancel the
        rest (nothing they need will be there); how many were cancelled."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await self._idle.wait()
        left = list(self._tasks)
        await cancel_and_wait(left, timeout=1.0)
        return len(left)
