"""Queries of the ``seats`` table: who sits where and who left their seat to
the computer (away); a seat's missed moves in a row are :mod:`.repo_moves`'.

Reads take the ``Database``; writes take the ``conn`` of the caller's transaction.
"""

from __future__ import annotations

from bot.storage.db import Conn, Database, defer


async def resize_seats(conn: Conn, table_id: int, players: int) -> None:
    """Seat count follows the rules' player count; people beyond it stand up."""
    await defer(conn, "DELETE FROM seats WHERE table_id=? AND seat>=?", (table_id, players))
    for seat in range(players):
        await defer(
            conn,
            "INSERT OR IGNORE INTO seats(table_id, seat) VALUES (?, ?)",
            (table_id, seat),
        )


async def get_seats(db: Database, table_id: int) -> list[int | None]:
    rows = await db.fetchall(
        "SELECT seat, user_id FROM seats WHERE table_id=? ORDER BY seat", (table_id,)
    )
    return [r["user_id"] for r in rows]


async def get_away(db: Database, table_id: int) -> set[int]:
    rows = await db.fetchall("SELECT seat FROM seats WHERE table_id=? AND away=1", (table_id,))
    return {r["seat"] for r in rows}


async def set_away(conn: Conn, table_id: int, seat: int, away: bool) -> None:
    await defer(
        conn, "UPDATE seats SET away=? WHERE table_id=? AND seat=?", (int(away), table_id, seat)
    )


async def set_seat(conn: Conn, table_id: int, seat: int, user_id: int | None) -> None:
    await defer(
        conn, "UPDATE seats SET user_id=? WHERE table_id=? AND seat=?", (user_id, table_id, seat)
    )
