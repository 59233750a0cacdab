"""Wall time as the bot sees it. The deadline loop and the services read time
only through a ``Clock``, so tests can move time forward by a day in a moment."""

from __future__ import annotations

import asyncio
import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Seconds since the epoch."""
        ...

    async def sleep_until(self, moment: float) -> None:
        """Until ``now() >= moment``. A moment, not a length: time that passes
        between reading the clock and going to sleep is not slept again."""
        ...


class SystemClock:
    def now(self) -> float:
        return time.time()

    async def sleep_until(self, moment: float) -> None:
        # asyncio sleeps on the monotonic clock; the wall clock may be set back meanwhile.
        while (left := moment - time.time()) > 0:
            await asyncio.sleep(left)


class FakeClock:
    """Time moves only when a test calls ``advance``; sleepers wake when their
    moment has come."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self._now = start
        self._changed = asyncio.Event()

    def now(self) -> float:
        return self._now

    async def sleep_until(self, moment: float) -> None:
        while self._now < moment:
            event = self._changed
            await event.wait()

    def advance(self, seconds: float) -> None:
        self._now += seconds
        self._changed.set()
        self._changed = asyncio.Event()
