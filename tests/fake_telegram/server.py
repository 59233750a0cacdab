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

:class:`FakeTelegram` is composed of its parts, one module each: ``state``
(what they share), ``routes`` (the HTTP server), ``delivery`` (long polling
and webhooks), ``faults``, ``limits``, ``driving``, ``memberships`` and
``topics`` (tests acting as users) and ``queries`` (reading and waiting).
"""

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
