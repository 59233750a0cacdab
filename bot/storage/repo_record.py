"""Hand records: which were sent to whom (a second press sends nothing), and
which table a group's ``/hand`` is about."""

from __future__ import annotations

from bot.storage.db import Conn, Database, defer, storable


async def sent_at(conn: Conn, user_id: int, table_id: int, hand_no: int) -> float | None:
    """When this record last went to this person (read in the transaction
    that sends it again: two presses at once cannot both find none)."""
    row = await conn.fetchone(
        "SELECT sent_at FROM record_requests WHERE user_id=? AND table_id=? AND hand_no=?",
        (user_id, table_id, hand_no),
    )
    return float(row[0]) if row else None


async def mark_sent(conn: Conn, user_id: int, table_id: int, hand_no: int, now: float) -> None:
    await defer(
        conn,
        "INSERT INTO record_requests(user_id, table_id, hand_no, sent_at) VALUES (?, ?, ?, ?)"
        " ON CONFLICT(user_id, table_id, hand_no) DO UPDATE SET sent_at=excluded.sent_at",
        (user_id, table_id, hand_no, now),
    )


async def game_table_in(db: Database, chat_id: int, thread_id: int = 0) -> int | None:
    """The group topic's running game's table, else the last one that had a
    game, finished or cancelled (a table just opened, or cancelled before
    its game began, is passed over)."""
    if not storable(chat_id):
        return None
    row = await db.fetchone(
        "SELECT table_id FROM tables AS t WHERE chat_id=? AND thread_id=?"
        " AND (status IN ('playing','finished') OR (status='cancelled'"
        " AND EXISTS (SELECT 1 FROM games AS g WHERE g.table_id=t.table_id)))"
        " ORDER BY (status='playing') DESC, table_id DESC LIMIT 1",
        (chat_id, thread_id),
    )
    return int(row[0]) if row else None
