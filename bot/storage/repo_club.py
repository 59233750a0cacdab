"""Queries of the club: permanent partners, the afterword, gestures and Authority."""

from __future__ import annotations

import sqlite3

from bot.storage.db import Conn, Database, Statements, defer, storable


def pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


async def add_partner_game(conn: Conn, a: int, b: int, won: bool, now: float) -> bool:
    """Count a finished game together; True when this one made them permanent."""
    x, y = pair(a, b)
    await defer(
        conn,
        "INSERT INTO partners(a, b, games, wins) VALUES (?, ?, 1, ?)"
        " ON CONFLICT(a, b) DO UPDATE SET games=games+1, wins=wins+excluded.wins",
        (x, y, int(won)),
    )
    row = await conn.fetchone(
        "SELECT games, permanent_since FROM partners WHERE a=? AND b=?", (x, y)
    )
    if row is not None and row[0] >= 3 and row[1] is None:
        await defer(conn, "UPDATE partners SET permanent_since=? WHERE a=? AND b=?", (now, x, y))
        return True
    return False


async def permanent_partners(db: Database, user_id: int) -> list[sqlite3.Row]:
    return await db.fetchall(
        "SELECT CASE WHEN a=? THEN b ELSE a END AS partner, games, wins, permanent_since"
        " FROM partners WHERE (a=? OR b=?) AND permanent_since IS NOT NULL"
        " ORDER BY games DESC",
        (user_id, user_id, user_id),
    )


async def open_afterword(
    conn: Conn, game_id: int, table_id: int, chat_id: int, closes_at: float
) -> None:
    await defer(
        conn,
        "INSERT OR IGNORE INTO afterwords(game_id, table_id, chat_id, closes_at)"
        " VALUES (?, ?, ?, ?)",
        (game_id, table_id, chat_id, closes_at),
    )


async def get_afterword(db: Database, game_id: int) -> sqlite3.Row | None:
    if not storable(game_id):
        return None
    return await db.fetchone("SELECT * FROM afterwords WHERE game_id=?", (game_id,))


async def open_afterwords_of(db: Database, user_id: int) -> list[tuple[int, int]]:
    """(game, table) of the open afterwords at tables where the user sits."""
    rows = await db.fetchall(
        "SELECT a.game_id, a.table_id FROM afterwords a JOIN seats s ON s.table_id=a.table_id"
        " WHERE a.closed=0 AND s.user_id=?",
        (user_id,),
    )
    return [(r[0], r[1]) for r in rows]


async def next_afterword_close(db: Database) -> sqlite3.Row | None:
    return await db.fetchone("SELECT * FROM afterwords WHERE closed=0 ORDER BY closes_at LIMIT 1")


async def close_afterword(conn: Conn, game_id: int) -> None:
    await defer(conn, "UPDATE afterwords SET closed=1 WHERE game_id=?", (game_id,))


async def add_gesture(
    conn: Conn, game_id: int, from_user: int, to_user: int, kind: str, at: float
) -> bool:
    """False when this gesture was already sent (once per game, per pair, per kind)."""
    added = await conn.execute(
        "INSERT OR IGNORE INTO gestures(game_id, from_user, to_user, kind, at)"
        " VALUES (?, ?, ?, ?, ?)",
        (game_id, from_user, to_user, kind, at),
    )
    return added == 1


async def gestures_of_game(db: Database, game_id: int) -> list[sqlite3.Row]:
    return await db.fetchall(
        "SELECT from_user, to_user, kind FROM gestures WHERE game_id=? ORDER BY id", (game_id,)
    )


async def authority(db: Database | Statements, user_ids: list[int]) -> dict[int, int]:
    """Gestures received: a warm afterword is the only way Authority grows."""
    if not user_ids:
        return {}
    marks = ",".join("?" * len(user_ids))
    rows = await db.fetchall(
        f"SELECT to_user, COUNT(*) AS n FROM gestures WHERE to_user IN ({marks}) GROUP BY to_user",
        user_ids,
    )
    return {r["to_user"]: r["n"] for r in rows}


async def chat_members_by_authority(
    db: Database, chat_id: int, limit: int = 20
) -> list[sqlite3.Row]:
    """Everyone who has sat at a table of this group, by Authority."""
    return await db.fetchall(
        "SELECT u.user_id, u.first_name,"
        " (SELECT COUNT(*) FROM gestures g WHERE g.to_user=u.user_id) AS authority"
        " FROM users u WHERE u.user_id IN ("
        "  SELECT s.user_id FROM seats s JOIN tables t ON t.table_id=s.table_id"
        "  WHERE t.chat_id=? AND s.user_id IS NOT NULL)"
        " ORDER BY authority DESC, u.first_name LIMIT ?",
        (chat_id, limit),
    )
