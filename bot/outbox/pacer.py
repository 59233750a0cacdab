"""Telegram's pace: per-chat and global limits, and the pauses a 429 imposes.

Telegram allows about 20 messages a minute in a group, one a second in a
private chat and about 30 a second in all; beyond that it answers 429 with a
``retry_after`` that stalls the chat (or, if several chats flood at once,
the whole bot). :class:`Pacing` keeps the sender under those limits and
honours the pauses; :class:`Pacer` is one token bucket of it.
"""

from __future__ import annotations

import asyncio
import math
from collections import deque
from collections.abc import Awaitable, Callable, Collection
from typing import Any


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

    def delay(self, now: float, spare: int = 0) -> float:
        """Seconds until one more call is allowed (0 if it is allowed now),
        leaving ``spare`` calls of the allowance for others (at most
        ``burst - 1``)."""
        self._refill(now)
        spare = min(spare, self.burst - 1, max(0, self.cap - 1))
        need = 1 + spare
        wait = 0.0 if self.tokens >= need else (need - self.tokens) / self.rate
        if self.window:
            while self.recent and self.recent[0] <= now - self.window:
                self.recent.popleft()
            if len(self.recent) + self.pending >= self.cap - spare:
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


class Pacing:
    """Every limit at once: a pacer per chat (groups and private chats differ),
    the global one, and the pauses 429 answers impose.

    A call is made in three steps: :meth:`acquire` waits until it would be
    allowed, :meth:`take` spends the allowance right before the call (no
    ``await`` in between, or another chat could take it meanwhile), and
    :meth:`settle` when the answer (or failure) came. A limit of 0 is off.
    """

    def __init__(
        self,
        group_per_minute: float,
        private_per_second: float,
        global_per_second: float,
        clock: Callable[[], float],
        sleep: Callable[[float], Awaitable[Any]],
        *,
        group_burst: int = 3,
    ) -> None:
        self._clock = clock
        self._sleep = sleep
        self._group_rate = group_per_minute / 60.0
        self._private_rate = private_per_second
        self._group_burst = group_burst
        self._global = (
            Pacer(global_per_second, burst=max(1, int(global_per_second)), window=1.0)
            if global_per_second > 0
            else None
        )
        self._pacers: dict[int, Pacer | None] = {}
        self._paused: dict[int, float] = {}
        self._global_paused = float("-inf")
        self._recent_floods: dict[int, float] = {}
        self._answered = asyncio.Event()  # set (and replaced) whenever a call settles

    def _pacer(self, chat_id: int) -> Pacer | None:
        if chat_id not in self._pacers:
            if chat_id < 0:
                rate = self._group_rate
                burst = min(self._group_burst, max(1, round(rate * 60)))
                pacer = Pacer(rate, burst=burst, window=60.0) if rate > 0 else None
            else:
                rate = self._private_rate
                pacer = Pacer(rate, burst=1) if rate > 0 else None
            self._pacers[chat_id] = pacer
        return self._pacers[chat_id]

    def wait_needed(self, chat_id: int, now: float, spare: int = 0) -> float:
        """Seconds until this chat, the global budget and any flood pause allow
        one call (leaving ``spare`` of the chat's allowance: see :meth:`acquire`)."""
        pacer = self._pacer(chat_id)
        return max(
            self._paused.get(chat_id, now) - now,
            self._global_paused - now,
            pacer.delay(now, spare) if pacer else 0.0,
            self._global.delay(now) if self._global else 0.0,
        )

    async def acquire(self, chat_id: int, *, deferrable: bool = False) -> bool:
        """Wait until one call is allowed (without using the allowance: see
        :meth:`take`); True if it had to wait.

        ``deferrable``: the call can wait (an edit that a later edit would
        replace anyway): in a group it goes only with the whole burst at
        hand, so a person's answer always finds an allowance ready."""
        waited = False
        spare = self._spare(chat_id, deferrable)
        while True:
            answered = self._answered
            wait = self.wait_needed(chat_id, self._clock(), spare)
            if wait <= 0:
                return waited
            waited = True
            if wait == math.inf:
                await answered.wait()
            else:
                await self._sleep(max(wait, 0.001))

    def _spare(self, chat_id: int, deferrable: bool) -> int:
        return self._group_burst - 1 if deferrable and chat_id < 0 else 0

    def take(self, chat_id: int, *, deferrable: bool = False) -> float | None:
        """Use one call's allowance now, if it is still there; returns the moment."""
        now = self._clock()
        if self.wait_needed(chat_id, now, self._spare(chat_id, deferrable)) > 0:
            return None
        pacer = self._pacer(chat_id)
        if pacer:
            pacer.take(now, pending=True)
        if self._global:
            self._global.take(now, pending=True)
        self._paused.pop(chat_id, None)
        return now

    def settle(self, chat_id: int) -> None:
        """The call :meth:`take` allowed is over (answered, failed or abandoned)."""
        self._answered.set()
        self._answered = asyncio.Event()
        now = self._clock()
        pacer = self._pacers.get(chat_id)
        if pacer is not None:
            pacer.settle(now, sequential=True)
        if self._global is not None:
            self._global.settle(now, sequential=False)

    def flood(self, chat_id: int, retry_after: float) -> None:
        """Pause the chat; if several chats hit 429 at once, the flood is global: pause all."""
        now = self._clock()
        self._paused[chat_id] = now + retry_after
        self._recent_floods = {c: t for c, t in self._recent_floods.items() if now - t < 1.0}
        self._recent_floods[chat_id] = now
        if len(self._recent_floods) >= 2:
            self._global_paused = max(self._global_paused, now + retry_after)

    def forget_idle(self, busy: Collection[int]) -> None:
        """Drop the state of chats with nothing left to remember (memory stays
        bounded by the chats written to recently); ``busy`` chats are kept."""
        now = self._clock()
        for chat_id, pacer in list(self._pacers.items()):
            if chat_id not in busy and (pacer is None or pacer.idle(now)):
                del self._pacers[chat_id]
        self._paused = {c: until for c, until in self._paused.items() if until > now}
