"""The group's tail and expiring replies: which bot message is newest in a chat,
which message a key names, and the passing replies to delete later."""

from __future__ import annotations

from bot.storage.db import Conn, Database, defer


async def group_tail(db: Database, chat_id: int) -> int | None:
    """The newest message the bot sent in this group, as far as it knows."""
    row = await db.fetchone("SELECT message_id FROM group_tail WHERE chat_id=?", (chat_id,))
    return int(row[0]) if row else None


async def message_of(db: Database, key: str) -> int | None:
    """The message id remembered under an outbox key."""
    row = await db.fetchone("SELECT message_id FROM messages WHERE key=?", (key,))
    return int(row[0]) if row else None


async def add_expiring(conn: Conn, key: str, chat_id: int, delete_at: float) -> None:
    await defer(
        conn,
        "INSERT OR REPLACE INTO expiring(key, chat_id, delete_at) VALUES (?, ?, ?)",
        (key, chat_id, delete_at),
    )


async def due_expiring(db: Database, now: float, limit: int = 100) -> list[tuple[str, int]]:
    rows = await db.fetchall(
        "SELECT key, chat_id FROM expiring WHERE delete_at <= ? ORDER BY delete_at LIMIT ?",
        (now, limit),
    )
    return [(str(r[0]), int(r[1])) for r in rows]


async def next_expiring(db: Database) -> float | None:
    row = await db.fetchone("SELECT MIN(delete_at) FROM expiring")
    return float(row[0]) if row and row[0] is not None else None


async def drop_expiring(conn: Conn, keys: list[str]) -> None:
    for key in keys:
        await defer(conn, "DELETE FROM expiring WHERE key=?", (key,))
