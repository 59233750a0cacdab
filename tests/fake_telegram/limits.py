"""Telegram's flood limits: answering 429 when they are enforced, and
checking after the fact whether the bot kept to them."""

from __future__ import annotations

import math
from collections import defaultdict, deque
from typing import Any

from .errors import flood_wait
from .models import CallRecord, RateLimits
from .state import ServerState


def is_message_method(method: str) -> bool:
    """Methods that put or change a message in a chat: what flood limits count."""
    lowered = method.lower()
    return (lowered.startswith("send") and lowered != "sendchataction") or lowered.startswith(
        "editmessage"
    )


class RateLimiting(ServerState):
    """``_check_limits`` for each call (with ``enforce_limits``), and
    ``message_times`` / ``limit_violations`` for tests."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._limit_log: dict[int, deque[float]] = defaultdict(deque)
        self._buckets: dict[int, tuple[float, float]] = {}
        self._global_log: deque[float] = deque()

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
        if chat is not None and is_message_method(record.method):
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
            if call.chat_id == chat_id and call.ok and is_message_method(call.method)
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
