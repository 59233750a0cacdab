"""Queries for users, tables, seats, games and actions.

Reads take the ``Database``; writes take the ``conn`` of the caller's
transaction so a move, its table update and its outgoing messages commit
together.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import aiosqlite

from bot.storage.db import Database


@dataclass(slots=True)
class UserRow:
    user_id: int
    first_name: str
    username: str | None
    lang: str | None
    started: bool
    blocked: bool


@dataclass(slots=True)
class TableRow:
    table_id: int
    chat_id: int
    chat_title: str
    creator_id: int
    status: str
    rules_json: str
    players: int
    lang: str


@dataclass(slots=True)
class GameRow:
    game_id: int
    table_id: int
    seed: int
    rules_json: str
    first_dealer: int
    status: str
    winner: int | None


async def _exec(conn: aiosqlite.Connection, sql: str, args: Any = ()) -> int:
    async with conn.execute(sql, args) as cur:
        return cur.lastrowid or 0


# ----------------------------------------------------------------- users
async def upsert_user(
    conn: aiosqlite.Connection,
    user_id: int,
    first_name: str,
    username: str | None,
    lang: str | None,
    started: bool = False,
) -> None:
    """Remember a user's name; ``started`` marks that they wrote to the bot privately."""
    await _exec(
        conn,
        "INSERT INTO users(user_id, first_name, username, lang, started, blocked, updated_at)"
        " VALUES (?, ?, ?, ?, ?, 0, ?)"
        " ON CONFLICT(user_id) DO UPDATE SET first_name=excluded.first_name,"
        " username=excluded.username, lang=COALESCE(excluded.lang, users.lang),"
        " started=MAX(users.started, excluded.started),"
        " blocked=CASE WHEN excluded.started THEN 0 ELSE users.blocked END,"
        " updated_at=excluded.updated_at",
        (user_id, first_name or "", username, lang, int(started), time.time()),
    )


async def set_blocked(conn: aiosqlite.Connection, user_id: int) -> None:
    await _exec(
        conn,
        "UPDATE users SET blocked=1, started=0, updated_at=? WHERE user_id=?",
        (time.time(), user_id),
    )


def _user(row: aiosqlite.Row) -> UserRow:
    return UserRow(
        row["user_id"],
        row["first_name"],
        row["username"],
        row["lang"],
        bool(row["started"]),
        bool(row["blocked"]),
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


# ---------------------------------------------------------------- tables
def _table(row: aiosqlite.Row) -> TableRow:
    return TableRow(
        row["table_id"],
        row["chat_id"],
        row["chat_title"],
        row["creator_id"],
        row["status"],
        row["rules_json"],
        row["players"],
        row["lang"],
    )


async def live_table(db: Database, chat_id: int) -> TableRow | None:
    row = await db.fetchone(
        "SELECT * FROM tables WHERE chat_id=? AND status IN ('open','playing')", (chat_id,)
    )
    return _table(row) if row else None


async def get_table(db: Database, table_id: int) -> TableRow | None:
    row = await db.fetchone("SELECT * FROM tables WHERE table_id=?", (table_id,))
    return _table(row) if row else None


async def tables_with_status(db: Database, status: str) -> list[TableRow]:
    rows = await db.fetchall("SELECT * FROM tables WHERE status=? ORDER BY table_id", (status,))
    return [_table(r) for r in rows]


async def live_tables_of_user(db: Database, user_id: int) -> list[TableRow]:
    rows = await db.fetchall(
        "SELECT t.* FROM tables t JOIN seats s ON s.table_id=t.table_id"
        " WHERE s.user_id=? AND t.status IN ('open','playing') ORDER BY t.table_id",
        (user_id,),
    )
    return [_table(r) for r in rows]


async def create_table(
    conn: aiosqlite.Connection,
    chat_id: int,
    title: str,
    creator_id: int,
    rules_json: str,
    players: int,
    lang: str,
) -> int:
    now = time.time()
    table_id = await _exec(
        conn,
        "INSERT INTO tables(chat_id, chat_title, creator_id, status, rules_json, players, lang,"
        " created_at, updated_at) VALUES (?, ?, ?, 'open', ?, ?, ?, ?, ?)",
        (chat_id, title, creator_id, rules_json, players, lang, now, now),
    )
    for seat in range(players):
        await _exec(conn, "INSERT INTO seats(table_id, seat) VALUES (?, ?)", (table_id, seat))
    return table_id


async def update_table(conn: aiosqlite.Connection, table_id: int, **fields: Any) -> None:
    cols = ", ".join(f"{k}=?" for k in fields)
    await _exec(
        conn,
        f"UPDATE tables SET {cols}, updated_at=? WHERE table_id=?",
        (*fields.values(), time.time(), table_id),
    )


async def resize_seats(conn: aiosqlite.Connection, table_id: int, players: int) -> None:
    """Seat count follows the rules' player count; people beyond it stand up."""
    await _exec(conn, "DELETE FROM seats WHERE table_id=? AND seat>=?", (table_id, players))
    for seat in range(players):
        await _exec(
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


async def set_away(conn: aiosqlite.Connection, table_id: int, seat: int, away: bool) -> None:
    await _exec(
        conn, "UPDATE seats SET away=? WHERE table_id=? AND seat=?", (int(away), table_id, seat)
    )


async def set_seat(
    conn: aiosqlite.Connection, table_id: int, seat: int, user_id: int | None
) -> None:
    await _exec(
        conn, "UPDATE seats SET user_id=? WHERE table_id=? AND seat=?", (user_id, table_id, seat)
    )


# ----------------------------------------------------------------- games
def _game(row: aiosqlite.Row) -> GameRow:
    return GameRow(
        row["game_id"],
        row["table_id"],
        row["seed"],
        row["rules_json"],
        row["first_dealer"],
        row["status"],
        row["winner"],
    )


async def create_game(
    conn: aiosqlite.Connection, table_id: int, seed: int, rules_json: str, first_dealer: int
) -> int:
    return await _exec(
        conn,
        "INSERT INTO games(table_id, seed, rules_json, first_dealer, status, started_at)"
        " VALUES (?, ?, ?, ?, 'playing', ?)",
        (table_id, seed, rules_json, first_dealer, time.time()),
    )


async def last_game(db: Database, table_id: int) -> GameRow | None:
    row = await db.fetchone(
        "SELECT * FROM games WHERE table_id=? ORDER BY game_id DESC LIMIT 1", (table_id,)
    )
    return _game(row) if row else None


async def game_actions(db: Database, game_id: int) -> list[int]:
    rows = await db.fetchall("SELECT action FROM actions WHERE game_id=? ORDER BY seq", (game_id,))
    return [r["action"] for r in rows]


async def append_action(
    conn: aiosqlite.Connection,
    game_id: int,
    seq: int,
    seat: int,
    action: int,
    by_user: int | None,
) -> None:
    """The event log is the truth: (game_id, seq) is the primary key, so a
    second writer of the same move number fails instead of forking the game."""
    await _exec(
        conn,
        "INSERT INTO actions(game_id, seq, seat, action, by_user, at) VALUES (?, ?, ?, ?, ?, ?)",
        (game_id, seq, seat, action, by_user, time.time()),
    )
    await _exec(conn, "UPDATE games SET seq=? WHERE game_id=?", (seq + 1, game_id))


async def end_game(
    conn: aiosqlite.Connection, game_id: int, status: str, winner: int | None
) -> None:
    await _exec(
        conn,
        "UPDATE games SET status=?, winner=?, finished_at=? WHERE game_id=?",
        (status, winner, time.time(), game_id),
    )


# ----------------------------------------------------------------- looks
async def looked_seats(db: Database, game_id: int, hand_no: int) -> set[int]:
    """Seats that opened their cards this hand: they can no longer bid blind nil."""
    rows = await db.fetchall(
        "SELECT seat FROM looks WHERE game_id=? AND hand_no=?", (game_id, hand_no)
    )
    return {r["seat"] for r in rows}


async def add_look(conn: aiosqlite.Connection, game_id: int, hand_no: int, seat: int) -> None:
    await _exec(
        conn,
        "INSERT OR IGNORE INTO looks(game_id, hand_no, seat) VALUES (?, ?, ?)",
        (game_id, hand_no, seat),
    )
