"""What a queued row asks of Telegram: its payload going in, a Bot API call coming out."""

from __future__ import annotations

import base64
import json
from typing import Any

from aiogram.methods import DeleteMessage, EditMessageText, SendMessage, SendPhoto, TelegramMethod
from aiogram.types import BufferedInputFile, ReplyParameters

PUT, SEND, DELETE = "put", "send", "delete"

#: A message's ``reply_markup`` as the Bot API's JSON (``bot.views.keyboard``
#: builds it), stored in the row's payload as it is.
Markup = dict[str, Any] | None


def _markup_json(reply_markup: Markup) -> dict[str, Any] | None:
    if reply_markup is None or isinstance(reply_markup, dict):
        return reply_markup
    raise TypeError(f"reply_markup must be the Bot API's JSON (a dict), not {type(reply_markup)}")


def _message_id(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def thread_of(raw_payload: str) -> int:
    """The forum topic a row's new message goes to (0: none, or General)."""
    try:
        data = json.loads(raw_payload)
    except ValueError:
        return 0
    thread = data.get("thread") if isinstance(data, dict) else None
    return thread if isinstance(thread, int) and _message_id(thread) else 0


def payload(
    text: str,
    reply_markup: Markup,
    parse_mode: str | None,
    disable_notification: bool,
    reply_to: int | None = None,
    photo: bytes | None = None,
    thread: int | None = None,
) -> str:
    """The row's ``payload`` column; wrong types fail here, in the caller's transaction.

    With ``photo`` (PNG bytes, kept in the row as base64 until sent) the
    message is that picture and ``text`` its caption. ``thread``: the forum
    topic a new message goes to (given explicitly, so an answer whose command
    was deleted still lands in its topic, not in General).
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text)}")
    data: dict[str, Any] = {"text": text, "parse_mode": parse_mode}
    if photo is not None:
        if not isinstance(photo, bytes) or not photo:
            raise TypeError("photo must be the picture's bytes")
        data["photo"] = base64.b64encode(photo).decode("ascii")
    markup = _markup_json(reply_markup)
    if markup is not None:
        data["reply_markup"] = markup
    if disable_notification:
        data["disable_notification"] = True
    if reply_to is not None:
        if not _message_id(reply_to):
            raise TypeError(f"reply_to must be a message id, not {type(reply_to)}")
        data["reply_to"] = reply_to
    if thread:
        if not _message_id(thread):
            raise TypeError(f"thread must be a topic's id, not {type(thread)}")
        data["thread"] = thread
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


#: One Bot API call, as aiogram's method object (``bot(call)`` makes it):
#: ``SendMessage``, ``EditMessageText``, ``SendPhoto`` or ``DeleteMessage``.
Call = TelegramMethod[Any]


def delete_call(chat_id: int, message_id: int) -> Call:
    return DeleteMessage(chat_id=chat_id, message_id=message_id)


def text_call(chat_id: int, op: str, raw_payload: str, message_id: int | None) -> Call:
    """``editMessageText`` for a put of a known message, else ``sendMessage``
    (``sendPhoto`` for a picture).

    Raises ``ValueError`` (pydantic's ``ValidationError`` among them),
    ``TypeError`` or ``KeyError`` for a payload that cannot be a message (the
    row then fails without a call).
    """
    data = json.loads(raw_payload)
    if not isinstance(data, dict):
        raise TypeError("payload must be a JSON object")
    text = data["text"]
    if not isinstance(text, str):
        raise TypeError("text must be a string")
    # Given even when None: a row without a parse mode is plain text, not
    # the bot's default (HTML).
    common: dict[str, Any] = {"chat_id": chat_id, "parse_mode": data.get("parse_mode") or None}
    if data.get("reply_markup"):
        common["reply_markup"] = data["reply_markup"]
    if op == PUT and message_id is not None:
        if "photo" in data:
            raise ValueError("a picture is sent, never edited into a text")
        return EditMessageText(text=text, message_id=message_id, **common)
    if data.get("disable_notification"):
        common["disable_notification"] = True
    thread = data.get("thread")
    if thread is not None:
        if not _message_id(thread):
            raise TypeError("thread must be a topic's id")
        common["message_thread_id"] = thread
    reply_to = data.get("reply_to")
    if reply_to is not None:
        if not _message_id(reply_to):
            raise TypeError("reply_to must be a message id")
        common["reply_parameters"] = ReplyParameters(
            message_id=reply_to, allow_sending_without_reply=True
        )
    if "photo" in data:
        picture = base64.b64decode(data["photo"], validate=True)
        return SendPhoto(photo=BufferedInputFile(picture, "chart.png"), caption=text, **common)
    return SendMessage(text=text, **common)
