"""What tests read and wait for: the messages the bot left, the calls it
made, and waiting for a condition or for the bot to fall idle."""

from __future__ import annotations

import asyncio
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Literal, TypeAlias, TypeVar

from .models import Button, CallRecord, CallStats, FakeMessage
from .state import ServerState

T = TypeVar("T")

#: The longest ``wait_for`` goes without looking at its condition again.
RECHECK = 0.05

#: Which messages of a forum to read: a topic's thread id, "general" for
#: those outside every topic, or None for the whole chat.
Thread: TypeAlias = int | Literal["general"] | None


def in_thread(message: FakeMessage, thread: Thread) -> bool:
    if thread is None:
        return True
    if thread == "general":
        return message.thread_id is None
    return message.thread_id == thread


class Queries(ServerState):
    """Reading the fake's state, and synchronising with the bot without sleeping."""

    # ----------------------------------------------------------------- waiting

    async def wait_for(
        self,
        predicate: Callable[[], T],
        timeout: float = 5.0,
        *,
        message: str | None = None,
    ) -> T:
        """Wait until ``predicate()`` is truthy and return its value.

        The predicate is re-checked whenever the bot calls the API or the
        fake's state changes, and every :data:`RECHECK` seconds besides: a
        condition on something the fake does not see (the bot's database, a
        process) is then noticed at once, not at the bot's next call (which
        can be a long poll away). On timeout an AssertionError shows the
        recent calls, which is usually all one needs to see why.
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
            await self._wait_change(min(remaining, RECHECK))

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

        call = await self.wait_for(found, timeout, message=f"a {method} call")
        assert call is not None  # wait_for returns only a truthy value
        return call

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

    # --------------------------------------------------------- reading state

    def message(self, chat_id: int, message_id: int) -> FakeMessage:
        """Any message ever in the chat, deleted ones included (check ``.deleted``)."""
        for message in self.world.chat(chat_id).all_messages:
            if message.message_id == message_id:
                return message
        raise AssertionError(f"chat {chat_id} never had message {message_id}")

    def chat_messages(
        self, chat_id: int, *, include_user_messages: bool = False, thread: Thread = None
    ) -> list[FakeMessage]:
        """Live messages in send order: the bot's only unless asked for users' too.

        In a forum ``thread`` keeps those of one topic (its thread id) or of
        General (``"general"``).
        """
        return [
            message
            for message in self.world.chat(chat_id).messages.values()
            if (include_user_messages or (message.from_bot and not message.service))
            and in_thread(message, thread)
        ]

    def last_message(
        self, chat_id: int, *, include_user_messages: bool = False, thread: Thread = None
    ) -> FakeMessage | None:
        """The newest live message of the bot (or of anyone) in the chat, or in one topic."""
        messages = self.chat_messages(
            chat_id, include_user_messages=include_user_messages, thread=thread
        )
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

    def sent_texts(self, chat_id: int, *, thread: Thread = None) -> list[str]:
        """Every text the bot sent to the chat (or one topic, or ``"general"``), in
        order, as first sent (edits and deletes ignored)."""
        return [
            message.history[0].text if message.history else message.text
            for message in self.world.chat(chat_id).all_messages
            if message.from_bot and not message.service and in_thread(message, thread)
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
