"""A fake Telegram Bot API server: the only thing mocked in the bot's end-to-end tests.

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
    "MessageVersion",
    "RateLimits",
    "parse_html",
    "utf16_len",
]
