"""Sorting Telegram's answers: a failed call becomes one of a few exceptions.

The sender reacts to *kinds* of failure (wait, move to another chat, give up
on the chat, give up on the row, try again later), so this module maps the
HTTP status, the ``parameters`` and, for 400s, the description onto them.
It mirrors what Telegram documents and what aiogram's session does with the
same answers, without depending on aiogram's internals.
"""

from __future__ import annotations

import json
from http import HTTPStatus
from typing import Any


class ApiError(Exception):
    """A Bot API call that did not succeed; ``description`` never holds message text."""

    def __init__(self, description: str) -> None:
        super().__init__(description)
        self.description = description


class Transient(ApiError):
    """Worth trying again after a pause: 5xx, a network error or timeout, an
    answer that is not Telegram's (a proxy's HTML page), any status we do not know."""


class FloodWait(ApiError):
    """429 with ``retry_after``: nothing may go to this chat (or anywhere) for a while."""

    def __init__(self, description: str, retry_after: float) -> None:
        super().__init__(description)
        self.retry_after = retry_after


class ChatMigrated(ApiError):
    """The group became a supergroup with a new id; the call must go there."""

    def __init__(self, description: str, new_chat_id: int) -> None:
        super().__init__(description)
        self.new_chat_id = new_chat_id


class Forbidden(ApiError):
    """403: the bot may not write to this chat (blocked, kicked, never started)."""


class BadRequest(ApiError):
    """400: this call is wrong as it stands; see the ``is_*`` helpers for which wrong."""


class TooLarge(ApiError):
    """413: the request is too big to ever go through."""


class Unauthorized(ApiError):
    """401: the token is refused; nothing goes out until someone fixes it."""


def read_answer(status: int, content: str) -> Any:
    """The ``result`` of a successful answer; otherwise raise the matching :class:`ApiError`."""
    try:
        answer = json.loads(content)
    except ValueError:
        raise Transient(f"HTTP {status}: the answer is not JSON") from None
    if not isinstance(answer, dict):
        raise Transient(f"HTTP {status}: the answer is not a JSON object")
    if HTTPStatus.OK <= status <= HTTPStatus.IM_USED and answer.get("ok") is True:
        return answer.get("result")
    raise error_for(status, answer)


def error_for(status: int, answer: dict[str, Any]) -> ApiError:
    """The exception for a decoded answer that is not a success."""
    description = answer.get("description")
    if not isinstance(description, str) or not description:
        description = f"HTTP {status}"
    parameters = answer.get("parameters")
    if isinstance(parameters, dict):
        retry_after = parameters.get("retry_after")
        if (
            isinstance(retry_after, int | float)
            and not isinstance(retry_after, bool)
            and retry_after > 0
        ):
            return FloodWait(description, float(retry_after))
        new_chat = parameters.get("migrate_to_chat_id")
        if isinstance(new_chat, int) and not isinstance(new_chat, bool) and new_chat != 0:
            return ChatMigrated(description, new_chat)
    if status == HTTPStatus.BAD_REQUEST:
        return BadRequest(description)
    if status == HTTPStatus.FORBIDDEN:
        return Forbidden(description)
    if status == HTTPStatus.UNAUTHORIZED:
        return Unauthorized(description)
    if status == HTTPStatus.REQUEST_ENTITY_TOO_LARGE:
        return TooLarge(description)
    # 5xx, 404 (a wrong API URL), 409, a 429 without retry_after, "ok": false with 200…
    return Transient(description)


# Telegram's descriptions are the only way to tell these 400s apart.
_NOT_MODIFIED = ("message is not modified",)
_EDIT_TARGET_GONE = (
    "message to edit not found",
    "message can't be edited",
    "message_id_invalid",
    "message not found",
)
_DELETE_TARGET_GONE = (
    "message to delete not found",
    "message can't be deleted",
    "message_id_invalid",
    "message not found",
)
# 400s that mean "this chat cannot be written to": treated like a 403.
_UNREACHABLE = (
    "chat not found",
    "not enough rights",
    "have no rights to send",
    "need administrator rights",
    "bot is not a member",
    "bot was kicked",
    "user is deactivated",
    "peer_id_invalid",
)


# 400s of a forum topic that takes no new messages (the rest of the chat does).
_TOPIC_CLOSED = ("topic_closed",)
_TOPIC_DELETED = ("message thread not found", "topic_deleted", "topic_id_invalid")


def _matches(description: str, needles: tuple[str, ...]) -> bool:
    text = description.lower()
    return any(needle in text for needle in needles)


def is_not_modified(description: str) -> bool:
    """An edit to the text the message already shows: the edit is done."""
    return _matches(description, _NOT_MODIFIED)


def is_edit_target_gone(description: str) -> bool:
    """The message to edit no longer exists (or is no longer ours to edit)."""
    return _matches(description, _EDIT_TARGET_GONE)


def is_delete_target_gone(description: str) -> bool:
    """The message to delete is already gone (or can no longer be deleted)."""
    return _matches(description, _DELETE_TARGET_GONE)


def is_unreachable(description: str) -> bool:
    """A 400 that means the chat cannot be written to at all, like a 403."""
    return _matches(description, _UNREACHABLE)


def is_topic_gone(description: str) -> bool:
    """A forum topic was closed or deleted: only its messages are refused."""
    return _matches(description, _TOPIC_CLOSED + _TOPIC_DELETED)


def is_topic_deleted(description: str) -> bool:
    """The forum topic is gone for good (deleted), not only closed."""
    return _matches(description, _TOPIC_DELETED)
