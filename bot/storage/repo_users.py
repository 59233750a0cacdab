"""Queries of the ``users`` table: names, languages, Start pressed, blocked, /quiet.

Reads take the ``Database``; writes take the ``conn`` of the caller's transaction.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass

from bot.storage.db import Conn, Database, defer, statement


@dataclass(slots=True)
class UserRow:
    user_id: int
    first_name: str
    username: str | None
    lang: str | None
    started: bool
    blocked: bool
    quiet: bool = False  # no "your turn" pings (/quiet)


async def upsert_user(
    conn: Conn,
    user_id: int,
    first_name: str,
    username: str | None,
    lang: str | None,
    started: bool = False,
) -> None:
    """Remember a user's name; ``started`` marks that they wrote to the bot
    privately (pressed Start), which also ends a block."""
    now = time.time()
    await defer(
        conn,
        "INSERT INTO users(user_id, first_name, username, lang, started, blocked, started_at,"
        " updated_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?)"
        " ON CONFLICT(user_id) DO UPDATE SET first_name=excluded.first_name,"
        " username=excluded.username, lang=COALESCE(excluded.lang, users.lang),"
        " started=MAX(users.started, excluded.started),"
        " blocked=CASE WHEN excluded.started THEN 0 ELSE users.blocked END,"
        " started_at=CASE WHEN excluded.started THEN excluded.started_at ELSE users.started_at END,"
        " updated_at=excluded.updated_at",
        (user_id, first_name or "", username, lang, int(started), now if started else 0.0, now),
    )


async def set_blocked(conn: Conn, user_id: int, sent_at: float | None = None) -> bool:
    """Telegram refused a message to the user sent at ``sent_at`` (None: now).
    False, and nothing changes, when they pressed Start since it was sent."""
    now = time.time()
    changed = await statement(
        conn,
        "UPDATE users SET blocked=1, started=0, updated_at=? WHERE user_id=? AND started_at <= ?",
        (now, user_id, now if sent_at is None else sent_at),
    )
    return changed[1] > 0


def _user(row: sqlite3.Row) -> UserRow:
    return UserRow(
        row["user_id"],
        row["first_name"],
        row["username"],
        row["lang"],
        bool(row["started"]),
        bool(row["blocked"]),
        bool(row["quiet"]),
    )


async def set_quiet(conn: Conn, user_id: int, quiet: bool) -> None:
    await defer(
        conn,
        "UPDATE users SET quiet=?, updated_at=? WHERE user_id=?",
        (int(quiet), time.time(), user_id),
    )


async def get_user(db: Database, user_id: int) -> UserRow | None:
    row = await db.fetchone("SELECT * FROM users WHERE user_id=?", (user_id,))
    return _user(row) if row else None


async def get_users(db: Database, ids: list[int]) -> dict[int, UserRow]:
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    rows = await db.fetchall(f"SELECT * FROM users WHERE user_id IN ({marks})", ids)
    return {r["user_id"]: _user(r) for r in rows}
