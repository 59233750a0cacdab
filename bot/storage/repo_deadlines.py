"""Queries of the ``deadlines`` table (a move's due time and reminders) and the
``meta`` values (the deadline loop's heartbeat).

Reads take the ``Database``; writes take the ``conn`` of the caller's transaction.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from bot.storage.db import Conn, Database
from bot.storage.sql import execute


@dataclass(slots=True)
class Deadline:
    game_id: int
    seq: int
    seat: int
    due_at: float
    remind_at: float | None
    reminders: int


async def set_deadline(
    conn: Conn,
    game_id: int,
    seq: int,
    seat: int,
    due_at: float,
    remind_at: float | None,
) -> None:
    await execute(
        conn,
        "INSERT INTO deadlines(game_id, seq, seat, due_at, remind_at, reminders)"
        " VALUES (?, ?, ?, ?, ?, 0) ON CONFLICT(game_id) DO UPDATE SET seq=excluded.seq,"
        " seat=excluded.seat, due_at=excluded.due_at, remind_at=excluded.remind_at, reminders=0",
        (game_id, seq, seat, due_at, remind_at),
    )


async def clear_deadline(conn: Conn, game_id: int) -> None:
    await execute(conn, "DELETE FROM deadlines WHERE game_id=?", (game_id,))


async def get_deadline(db: Database, game_id: int) -> Deadline | None:
    row = await db.fetchone("SELECT * FROM deadlines WHERE game_id=?", (game_id,))
    return _deadline(row) if row else None


def _deadline(row: sqlite3.Row) -> Deadline:
    return Deadline(
        row["game_id"], row["seq"], row["seat"], row["due_at"], row["remind_at"], row["reminders"]
    )


async def next_deadline(db: Database) -> Deadline | None:
    """The deadline or reminder that comes first."""
    row = await db.fetchone(
        "SELECT * FROM deadlines ORDER BY MIN(due_at, COALESCE(remind_at, due_at)) LIMIT 1"
    )
    return _deadline(row) if row else None


async def reminder_sent(conn: Conn, game_id: int, reminders: int, remind_at: float | None) -> None:
    await execute(
        conn,
        "UPDATE deadlines SET reminders=?, remind_at=? WHERE game_id=?",
        (reminders, remind_at, game_id),
    )


async def shift_deadlines(conn: Conn, seconds: float) -> None:
    """Downtime of the bot is not the players' time: every deadline moves."""
    await execute(
        conn,
        "UPDATE deadlines SET due_at=due_at+?, remind_at=remind_at+? ",
        (seconds, seconds),
    )


async def get_meta(db: Database, key: str) -> str | None:
    row = await db.fetchone("SELECT value FROM meta WHERE key=?", (key,))
    return row["value"] if row else None


async def set_meta(conn: Conn, key: str, value: str) -> None:
    await execute(
        conn,
        "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
        (key, value),
    )
