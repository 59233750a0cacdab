"""A fake Telegram Bot API server: the only thing mocked in the bot's end-to-end tests.

The bot under test runs unchanged (a real aiogram ``Bot`` and ``Dispatcher``
talking HTTP) against :class:`FakeTelegram`, an aiohttp server on 127.0.0.1.
Tests play the users (``send_text``, ``press``, ``block_bot``…), read what
the bot left in the chats (``chat_messages``, ``last_message``) and wait for
the bot with ``wait_for`` / ``wait_idle`` instead of sleeping. The fake
mimics Telegram where a difference could hide a bug: the wire format aiogram
expects, error codes and their words, "message is not modified", privacy
mode in groups, the 15-second life of a callback query, flood limits; it
injects faults (flood waits, 5xx, dropped or hung connections, even *after*
the action was applied) for the hardening tests and bench/.

Imported as ``fake_telegram`` by the tests and bench/ alike (the project's
install maps ``tests/fake_telegram`` to that name; pytest's pythonpath too).

The parts, one module each. ``FakeTelegram`` (server.py) is two sides, each
a class made of mixins; every mixin is a slice of methods over one
``ServerState`` (state.py: the bot's identity, the settings tests change,
the world, the log of calls, the signal that wakes waiters)::

    FakeTelegram                 server.py
    ├── HttpRoutes               routes.py       the Bot API side: /bot{token}/{method}
    │   ├── FaultInjection       faults.py         failing chosen calls
    │   ├── RateLimiting         limits.py         Telegram's flood limits
    │   └── UpdateDelivery       delivery.py       getUpdates, or POSTs to a webhook
    └── Driving                  driving.py      the tests' side: users, groups, presses
        ├── Memberships          memberships.py    blocking, joining, leaving, migration
        ├── Topics               topics.py         forum topics
        ├── Inline               inline.py         inline queries, their answers
        │                                          (answerInlineQuery), a result chosen
        └── Queries              queries.py        reading the chats, waiting

Below them, plain objects: ``World`` (world.py: users, chats, messages, the
update queue, and the rules of who may act where, written once for both
sides); ``BotApi`` (api.py: what the methods check alike) with the methods
themselves in methods.py; the dataclasses in models.py; Telegram's error
words in errors.py; HTML parse mode and entities in markup.py; the Mini
App's signed ``initData`` in webapp.py.

Typical use::

    async with FakeTelegram(bot_username="piki_test_bot") as fake:
        bot = Bot(fake.token, session=AiohttpSession(
            api=TelegramAPIServer.from_base(fake.base_url)))
        ...  # start the real Dispatcher polling, then act as users:
        alice = fake.add_user(1001, "Алиса")
        await fake.start_bot(alice)
        reply = await fake.wait_for(lambda: fake.last_message(alice.id))
"""

from .driving import CallbackPress
from .errors import ApiError
from .faults import FAULT_KINDS
from .inline import InlineAsk
from .markup import parse_html, utf16_len
from .models import (
    Button,
    CallRecord,
    CallStats,
    FakeChat,
    FakeMessage,
    FakeTopic,
    FakeUser,
    Fault,
    MessageVersion,
    RateLimits,
)
from .server import FakeTelegram

__all__ = [
    "FAULT_KINDS",
    "ApiError",
    "Button",
    "CallRecord",
    "CallStats",
    "CallbackPress",
    "FakeChat",
    "FakeMessage",
    "FakeTelegram",
    "FakeTopic",
    "FakeUser",
    "Fault",
    "InlineAsk",
    "MessageVersion",
    "RateLimits",
    "parse_html",
    "utf16_len",
]
