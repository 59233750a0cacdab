"""Queueing messages: ``outbox`` rows written inside the caller's transaction,
so a move and its messages commit together (``enqueue_*``, :func:`forget_key`).

Row statuses: ``pending`` until sent; then ``sent``, ``superseded`` (a newer
put of the same key went out instead) or ``failed``. Only pending rows are
ever read by the sender (:mod:`.plans`); what an attempt leaves is
:mod:`.bookkeeping`'s, and finished rows are pruned (:mod:`.pruning`).
"""

from __future__ import annotations

import time

from bot.outbox.calls import DELETE, PUT, SEND, Markup, payload
from bot.storage.db import Conn, defer


async def _insert(
    conn: Conn,
    chat_id: int,
    op: str,
    key: str | None,
    data: str,
    not_before: float,
) -> None:
    await defer(
        conn,
        "INSERT INTO outbox(chat_id, op, key, payload, not_before, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (chat_id, op, key, data, not_before, time.time()),
    )


async def enqueue_put(
    conn: Conn,
    chat_id: int,
    key: str,
    text: str,
    reply_markup: Markup = None,
    parse_mode: str | None = "HTML",
    *,
    disable_notification: bool = False,
    not_before: float = 0.0,
    thread: int | None = None,
    reply_to: int | None = None,
) -> None:
    """Queue "the message under ``key`` shows ``text``" (edit if known, else send).

    Call inside ``db.tx()``; ``not_before`` is a ``time.time()`` instant before
    which the row is not sent (and it holds back this chat's later rows).
    ``thread`` and ``reply_to`` count when it is sent (see :func:`enqueue_send`).
    """
    data = payload(text, reply_markup, parse_mode, disable_notification, reply_to, None, thread)
    await _insert(conn, chat_id, PUT, key, data, not_before)


async def enqueue_send(
    conn: Conn,
    chat_id: int,
    text: str,
    reply_markup: Markup = None,
    key: str | None = None,
    parse_mode: str | None = "HTML",
    *,
    disable_notification: bool = False,
    not_before: float = 0.0,
    reply_to: int | None = None,
    photo: bytes | None = None,
    thread: int | None = None,
) -> None:
    """Queue a new message; with ``key`` its id is remembered so later puts edit it.

    ``reply_to``: the id of the message (in this chat) it answers; should that
    message be gone by then, it is sent as a plain message. ``photo``: PNG
    bytes; the message is that picture with ``text`` as its caption.
    ``thread``: the forum topic it goes to (None or 0: General, or no forum).
    """
    data = payload(text, reply_markup, parse_mode, disable_notification, reply_to, photo, thread)
    await _insert(conn, chat_id, SEND, key, data, not_before)


async def enqueue_delete(conn: Conn, chat_id: int, key: str, *, not_before: float = 0.0) -> None:
    """Queue deleting the message remembered under ``key`` (a no-op if none is)."""
    await _insert(conn, chat_id, DELETE, key, "{}", not_before)


async def forget_key(conn: Conn, key: str) -> None:
    """Forget the message under ``key``: the next put sends a fresh message."""
    await defer(conn, "DELETE FROM messages WHERE key = ?", (key,))


async def enqueue_repost(
    conn: Conn,
    chat_id: int,
    key: str,
    text: str,
    reply_markup: Markup = None,
    *,
    old_message_id: int | None = None,
    thread: int | None = None,
) -> None:
    """The message under ``key`` anew at the bottom of the chat, the old one
    deleted after it. Edits still queued for the old one are dropped; a new
    message (a send under the key, not a put after forgetting it) also stays
    right when an edit of the old one is on its way meanwhile: that edit's
    answer remembers the old id, and this send's answer then the new one."""
    await defer(
        conn,
        "UPDATE outbox SET status = 'superseded' WHERE key = ? AND op = 'put'"
        " AND status = 'pending'",
        (key,),
    )
    await enqueue_send(conn, chat_id, text, reply_markup, key=key, thread=thread)
    if old_message_id is not None:
        await enqueue_delete_message(conn, chat_id, old_message_id)


async def enqueue_answer(
    conn: Conn,
    chat_id: int,
    key: str,
    text: str,
    reply_markup: Markup = None,
    *,
    reply_to: int | None = None,
    thread: int | None = None,
) -> None:
    """The answer to a question asked again: a new message under ``key`` at
    the bottom of the chat. An earlier answer still queued is dropped (it is
    out of date, and a burst of the same question costs one message); one
    already shown is deleted once this one is sent (:func:`.bookkeeping._retire_replaced`)."""
    await defer(
        conn,
        "UPDATE outbox SET status = 'superseded' WHERE key = ? AND op != 'delete'"
        " AND status = 'pending'",
        (key,),
    )
    await enqueue_send(conn, chat_id, text, reply_markup, key=key, reply_to=reply_to, thread=thread)


async def enqueue_delete_message(conn: Conn, chat_id: int, message_id: int) -> None:
    """Queue deleting a message known only by its id (a one-off key, like an edit)."""
    await enqueue_delete(conn, chat_id, await _remember_one_off(conn, chat_id, message_id))


# Keys of one-off edits: the message is forgotten once the edit went out.
ONE_OFF = "edit:"
# Keys of answers to a person's command in a group: they go out before edits
# of messages already shown (see :func:`.plans.next_plan`).
ANSWER = "answer:"


def is_one_off(key: str | None) -> bool:
    """Whether ``key`` names a message known only by its id, forgotten once used."""
    return key is not None and key.startswith(ONE_OFF)


async def _remember_one_off(conn: Conn, chat_id: int, message_id: int) -> str:
    """A one-off key naming a message known only by its id (forgotten once used)."""
    key = f"{ONE_OFF}{chat_id}:{message_id}"
    await defer(
        conn,
        "INSERT INTO messages(key, chat_id, message_id) VALUES (?, ?, ?)"
        " ON CONFLICT(key) DO NOTHING",
        (key, chat_id, message_id),
    )
    return key


async def enqueue_edit(
    conn: Conn,
    chat_id: int,
    message_id: int,
    text: str,
    reply_markup: Markup = None,
    parse_mode: str | None = "HTML",
) -> None:
    """Queue an edit of a message known only by its id (the one a button was
    pressed on): it is remembered under a one-off key until the edit is made.
    (Nothing of it stays behind: after ``/forget_me`` the edit that says so is
    the last trace of the person, and it goes once sent.)"""
    key = await _remember_one_off(conn, chat_id, message_id)
    await enqueue_put(conn, chat_id, key, text, reply_markup, parse_mode)
