"""The score charts still to send: a job row per finished game."""

from __future__ import annotations

import time

from bot.storage.db import Conn, Database, defer


async def add_chart_job(conn: Conn, game_id: int, chat_id: int) -> None:
    await defer(
        conn,
        "INSERT OR IGNORE INTO chart_jobs(game_id, chat_id, created_at) VALUES (?, ?, ?)",
        (game_id, chat_id, time.time()),
    )


async def chart_jobs(db: Database) -> list[tuple[int, int]]:
    rows = await db.fetchall("SELECT game_id, chat_id FROM chart_jobs ORDER BY created_at")
    return [(int(r[0]), int(r[1])) for r in rows]


async def drop_chart_job(conn: Conn, game_id: int) -> None:
    await defer(conn, "DELETE FROM chart_jobs WHERE game_id=?", (game_id,))
