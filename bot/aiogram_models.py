"""aiogram's answer models, made once and kept for the whole run.

A call through aiogram (``bot(method)``: the handlers' answerCallbackQuery,
long polling's getUpdates, the admin check's getChatMember, …) validates the
answer as ``Response[method.__returning__]``, a pydantic generic model that
pydantic caches only weakly. The garbage collector keeps dropping these
classes, and re-creating one costs ~10 ms of CPU: holding them makes every
lookup a cache hit. (The outbox does not go through aiogram's session at
all: see ``bot/outbox/transport.py``.)
"""

from __future__ import annotations

from typing import Any, cast

from aiogram.methods import (
    AnswerCallbackQuery,
    DeleteMessage,
    EditMessageText,
    GetChatMember,
    GetMe,
    GetUpdates,
    SendMessage,
    SetMyCommands,
    TelegramMethod,
)
from aiogram.methods.base import Response

# The methods the bot calls through aiogram again and again.
_METHODS: tuple[type[TelegramMethod[Any]], ...] = (
    AnswerCallbackQuery,
    GetUpdates,
    GetChatMember,
    SendMessage,
    EditMessageText,
    DeleteMessage,
    GetMe,
    SetMyCommands,
)
_held: list[type[Any]] = []


def hold_response_models() -> None:
    """Create the answer model of each of those methods (once) and keep it alive."""
    if not _held:
        generic = cast(Any, Response)  # subscripted with a value, which mypy cannot follow
        _held.extend(generic[method.__returning__] for method in _METHODS)
