"""Queries of «call me to the next game» and of rematches.

Reads take the ``Database``; writes take the ``conn`` of the caller's
transaction, so a call is recorded together with the message it queues.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.storage.db import Conn, Database, defer, statement, storable


@dataclass(frozen=True, slots=True)
class Callee:
    """A subscriber who may be called now: the bot can write to them."""

    user_id: int
    lang: str | None


async def is_subscribed(db: Database, chat_id: int, user_id: int) -> bool:
    row = await db.fetchone(
        "SELECT 1 FROM call_me WHERE chat_id=? AND user_id=?", (chat_id, user_id)
    )
    return row is not None


async def subscribe(conn: Conn, chat_id: int, user_id: int) -> bool:
    """True when the person was not subscribed yet (a second time changes nothing)."""
    _, changed = await statement(
        conn,
        "INSERT OR IGNORE INTO call_me(chat_id, user_id) VALUES (?, ?)",
        (chat_id, user_id),
    )
    return changed > 0


async def unsubscribe(conn: Conn, chat_id: int, user_id: int) -> bool:
    """True when there was a subscription to end."""
    _, changed = await statement(
        conn, "DELETE FROM call_me WHERE chat_id=? AND user_id=?", (chat_id, user_id)
    )
    return changed > 0


async def drop_chat(conn: Conn, chat_id: int) -> None:
    """The bot is no longer in the group: nobody is called to it any more."""
    await defer(conn, "DELETE FROM call_me WHERE chat_id=?", (chat_id,))


async def next_callee(conn: Conn, chat_id: int, called_before: float, after: int) -> Callee | None:
    """The group's next subscriber (by id, after ``after``) not called since
    ``called_before``, who has pressed Start and not blocked the bot (anyone
    else cannot be written to). One at a time: the caller's transaction
    reads through its own connection, row by row."""
    row = await conn.fetchone(
        "SELECT c.user_id, u.lang FROM call_me c JOIN users u ON u.user_id=c.user_id"
        " WHERE c.chat_id=? AND c.user_id>? AND u.started=1 AND u.blocked=0"
        " AND (c.last_called_at IS NULL OR c.last_called_at<=?) ORDER BY c.user_id LIMIT 1",
        (chat_id, after, called_before),
    )
    return None if row is None else Callee(row["user_id"], row["lang"])


async def mark_called(conn: Conn, chat_id: int, user_id: int, now: float) -> None:
    await defer(
        conn,
        "UPDATE call_me SET last_called_at=? WHERE chat_id=? AND user_id=?",
        (now, chat_id, user_id),
    )


async def move_chat(conn: Conn, old: int, new: int) -> None:
    """A group became a supergroup: its subscribers follow it."""
    await defer(conn, "UPDATE OR IGNORE call_me SET chat_id=? WHERE chat_id=?", (new, old))
    await defer(conn, "DELETE FROM call_me WHERE chat_id=?", (old,))


async def rematch_of(db: Database, table_id: int) -> int | None:
    """The table opened as the rematch of ``table_id``, if there is one."""
    if not storable(table_id):
        return None
    row = await db.fetchone("SELECT table_id FROM tables WHERE rematch_of=?", (table_id,))
    return None if row is None else int(row["table_id"])
