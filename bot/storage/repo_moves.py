"""Queries of a running game's moves, the ones a press makes: the event log
(``actions``), the cards looked at (``looks``), whose move is due when
(``deadlines``, and the deadline loop's heartbeat in ``meta``, which moves
them past the bot's downtime) and a seat's missed moves in a row
(``seats.timeouts``). A move writes its action, the next deadline and,
when a person moved, their seat's timeouts here, in one transaction.

Reads take the ``Database``; writes take the ``conn`` of the caller's
transaction, so a move and its messages commit together.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass

from bot.storage.db import Conn, Database, defer


# --------------------------------------------------------------- actions
async def game_actions(db: Database, game_id: int) -> list[int]:
    rows = await db.fetchall("SELECT action FROM actions WHERE game_id=? ORDER BY seq", (game_id,))
    return [r["action"] for r in rows]


async def action_at(db: Database, game_id: int, seq: int) -> tuple[int, int, int | None] | None:
    """(seat, action, by_user) of move ``seq`` of a game, if it was made."""
    row = await db.fetchone(
        "SELECT seat, action, by_user FROM actions WHERE game_id=? AND seq=?", (game_id, seq)
    )
    return None if row is None else (row["seat"], row["action"], row["by_user"])


async def append_action(
    conn: Conn,
    game_id: int,
    seq: int,
    seat: int,
    action: int,
    by_user: int | None,
) -> None:
    """The event log is the truth: (game_id, seq) is the primary key, so a
    second writer of the same move number fails instead of forking the game."""
    await defer(
        conn,
        "INSERT INTO actions(game_id, seq, seat, action, by_user, at) VALUES (?, ?, ?, ?, ?, ?)",
        (game_id, seq, seat, action, by_user, time.time()),
    )
    await defer(conn, "UPDATE games SET seq=? WHERE game_id=?", (seq + 1, game_id))


# ----------------------------------------------------------------- looks
async def looked_seats(db: Database, game_id: int, hand_no: int) -> set[int]:
    """Seats that opened their cards this hand: they can no longer bid blind nil."""
    rows = await db.fetchall(
        "SELECT seat FROM looks WHERE game_id=? AND hand_no=?", (game_id, hand_no)
    )
    return {r["seat"] for r in rows}


async def add_look(conn: Conn, game_id: int, hand_no: int, seat: int) -> None:
    await defer(
        conn,
        "INSERT OR IGNORE INTO looks(game_id, hand_no, seat) VALUES (?, ?, ?)",
        (game_id, hand_no, seat),
    )


# ------------------------------------------------------------ deadlines
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
    await defer(
        conn,
        "INSERT INTO deadlines(game_id, seq, seat, due_at, remind_at, reminders)"
        " VALUES (?, ?, ?, ?, ?, 0) ON CONFLICT(game_id) DO UPDATE SET seq=excluded.seq,"
        " seat=excluded.seat, due_at=excluded.due_at, remind_at=excluded.remind_at, reminders=0",
        (game_id, seq, seat, due_at, remind_at),
    )


async def clear_deadline(conn: Conn, game_id: int) -> None:
    await defer(conn, "DELETE FROM deadlines WHERE game_id=?", (game_id,))


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
    await defer(
        conn,
        "UPDATE deadlines SET reminders=?, remind_at=? WHERE game_id=?",
        (reminders, remind_at, game_id),
    )


async def shift_deadlines(conn: Conn, seconds: float) -> None:
    """Downtime of the bot is not the players' time: every deadline moves."""
    await defer(
        conn,
        "UPDATE deadlines SET due_at=due_at+?, remind_at=remind_at+? ",
        (seconds, seconds),
    )


async def get_meta(db: Database, key: str) -> str | None:
    row = await db.fetchone("SELECT value FROM meta WHERE key=?", (key,))
    return row["value"] if row else None


async def set_meta(conn: Conn, key: str, value: str) -> None:
    await defer(
        conn,
        "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
        (key, value),
    )


# -------------------------------------------------------------- timeouts
async def get_timeouts(db: Database, table_id: int) -> dict[int, int]:
    rows = await db.fetchall(
        "SELECT seat, timeouts FROM seats WHERE table_id=? AND timeouts>0", (table_id,)
    )
    return {r["seat"]: r["timeouts"] for r in rows}


async def set_timeouts(conn: Conn, table_id: int, seat: int, n: int) -> None:
    await defer(
        conn, "UPDATE seats SET timeouts=? WHERE table_id=? AND seat=?", (n, table_id, seat)
    )
