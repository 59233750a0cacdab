"""Telling Telegram's 400 answers apart: what the sender does with a
``TelegramBadRequest`` depends on which wrong it names.

aiogram sorts a failed call by its status and parameters into its
exceptions (``TelegramRetryAfter``, ``TelegramMigrateToChat``,
``TelegramForbiddenError``, ``TelegramBadRequest``, …); within a 400 only
Telegram's description tells a message already showing this text from one
that is gone or a chat the bot may not write to.
"""

from __future__ import annotations

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
