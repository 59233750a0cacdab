"""The Mini App API's rate per person: a flood is refused before it costs
anything (read nothing, asked Telegram nothing)."""

from __future__ import annotations

import time
from collections import deque


class Rate:
    """At most ``limit`` calls per ``window`` seconds per person (0: no
    limit); a call beyond it is refused (the server answers 429) and not
    counted."""

    def __init__(self, limit: int, window: float) -> None:
        self.limit = limit
        self.window = window
        self._calls: dict[int, deque[float]] = {}

    def take(self, user_id: int) -> bool:
        """Counts a call by ``user_id``; False (not counted) when over the limit."""
        if self.limit <= 0:
            return True
        now = time.monotonic()
        calls = self._calls.setdefault(user_id, deque())
        while calls and now - calls[0] > self.window:
            calls.popleft()
        if len(calls) >= self.limit:
            return False
        calls.append(now)
        if len(self._calls) > 10_000:  # forget the quiet ones
            self._calls = {u: c for u, c in self._calls.items() if c and now - c[-1] <= self.window}
        return True
