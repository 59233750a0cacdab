"""Per-user throttling of button presses: mashing one button costs that user a
short toast and the bot nothing; other players are not slowed at all."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware
from aiogram.types import CallbackQuery, TelegramObject
from aiogram_i18n import I18nContext


class ThrottlePresses(BaseMiddleware):
    """At most ``limit`` presses per ``window`` seconds per user."""

    def __init__(
        self, limit: int = 6, window: float = 3.0, clock: Callable[[], float] = time.monotonic
    ):
        self.limit = limit
        self.window = window
        self.clock = clock
        self._presses: dict[int, deque[float]] = {}

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        if not isinstance(event, CallbackQuery):
            return await handler(event, data)
        now = self.clock()
        q = self._presses.setdefault(event.from_user.id, deque())
        while q and now - q[0] > self.window:
            q.popleft()
        if len(q) >= self.limit:
            i18n: I18nContext | None = data.get("i18n")
            await event.answer(i18n.get("err-too-fast") if i18n else None)
            return None
        q.append(now)
        if len(self._presses) > 10_000:
            self._forget_idle(now)
        return await handler(event, data)

    def _forget_idle(self, now: float) -> None:
        for uid in [u for u, q in self._presses.items() if not q or now - q[-1] > self.window]:
            del self._presses[uid]
