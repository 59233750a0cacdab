"""What every part of the fake shares: the bot's identity and settings, the
world, the record of the bot's calls, and the signal that wakes waiters.

Each part (``routes``, ``delivery``, ``faults``, ``limits``, ``driving``,
``memberships``, ``topics``, ``queries``) is a mixin over :class:`ServerState`;
those that keep state of their own set it up in their own ``__init__``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable

from .api import BotApi
from .models import CallRecord, FakeChat, FakeUser, RateLimits
from .world import World


class ServerState:
    """The bot's identity, the settings tests may change, the world and the call log.

    Activity (``_in_flight``, ``_last_activity``) is what ``wait_idle`` reads;
    ``_notify`` wakes every ``wait_for`` and long poll to re-check.
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
        self._changed = asyncio.Event()
        self._closing = asyncio.Event()
        self._in_flight = 0
        self._last_activity = 0.0

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

    # ------------------------------------------------------- change and activity

    def _notify(self) -> None:
        """Wake every waiter; each re-checks its own condition."""
        self._changed.set()
        self._changed = asyncio.Event()

    async def _wait_change(self, timeout: float) -> None:
        event = self._changed
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(event.wait(), timeout)

    def _bump(self) -> None:
        """A test acted as a user: the bot is not idle until it has had ``quiet`` time."""
        self._last_activity = asyncio.get_running_loop().time()
