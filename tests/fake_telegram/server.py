"""The fake Bot API server whole: its two sides put together (the map of
the parts is the package's docstring, fake_telegram/__init__.py)."""

from __future__ import annotations

from .driving import Driving
from .routes import HttpRoutes


class FakeTelegram(HttpRoutes, Driving):
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
        super().__init__(bot_username, bot_id, bot_first_name=bot_first_name)
