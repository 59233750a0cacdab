"""Queries of the ``tables`` table: a group's live table, a person's, opening one, its settings.

Reads take the ``Database``; writes take the ``conn`` of the caller's
transaction, so a table's change commits with the messages it causes.
"""

from __future__ import annotations

import secrets
import sqlite3
import time
from dataclasses import dataclass
from typing import Any

from bot.storage.db import Conn, Database, defer, statement, storable


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
    pace: int
    paused: int  # a Pause: why the game waits (0: it does not)
    hints: bool = False  # the table option «Подсказки»
    thread_id: int = 0  # the forum topic the table lives in (0: none, or General)
    ai_level: str = ""  # the computer's strength here ('': the bot's AI_LEVEL)
    join_key: str = ""  # the secret of its join links (JOIN_KEY_BYTES random bytes, hex)


#: Random bytes of a table's join key: 64 bits nobody guesses from a table number.
JOIN_KEY_BYTES = 8


def _table(row: sqlite3.Row) -> TableRow:
    return TableRow(
        row["table_id"],
        row["chat_id"],
        row["chat_title"],
        row["creator_id"],
        row["status"],
        row["rules_json"],
        row["players"],
        row["lang"],
        row["pace"],
        int(row["paused"]),
        bool(row["hints"]),
        int(row["thread_id"]),
        str(row["ai_level"]),
        str(row["join_key"]),
    )


async def live_table(db: Database, chat_id: int, thread_id: int = 0) -> TableRow | None:
    """The open or running table of a group's topic (0: the group itself, or General)."""
    row = await db.fetchone(
        "SELECT * FROM tables WHERE chat_id=? AND thread_id=? AND status IN ('open','playing')",
        (chat_id, thread_id),
    )
    return _table(row) if row else None


async def live_tables_in_chat(db: Database, chat_id: int) -> list[TableRow]:
    """Every open or running table of a group, whichever its topic."""
    rows = await db.fetchall(
        "SELECT * FROM tables WHERE chat_id=? AND status IN ('open','playing') ORDER BY table_id",
        (chat_id,),
    )
    return [_table(r) for r in rows]


async def get_table(db: Database, table_id: int) -> TableRow | None:
    if not storable(table_id):
        return None
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
    conn: Conn,
    chat_id: int,
    title: str,
    creator_id: int,
    rules_json: str,
    players: int,
    lang: str,
    thread_id: int = 0,
) -> int:
    now = time.time()
    table_id, _ = await statement(
        conn,
        "INSERT INTO tables(chat_id, thread_id, chat_title, creator_id, status, rules_json,"
        " players, lang, created_at, updated_at, join_key)"
        " VALUES (?, ?, ?, ?, 'open', ?, ?, ?, ?, ?, ?)",
        (
            chat_id,
            thread_id,
            title,
            creator_id,
            rules_json,
            players,
            lang,
            now,
            now,
            secrets.token_hex(JOIN_KEY_BYTES),
        ),
    )
    for seat in range(players):
        await defer(conn, "INSERT INTO seats(table_id, seat) VALUES (?, ?)", (table_id, seat))
    return table_id


async def update_table(conn: Conn, table_id: int, **fields: Any) -> None:
    cols = ", ".join(f"{k}=?" for k in fields)
    await defer(
        conn,
        f"UPDATE tables SET {cols}, updated_at=? WHERE table_id=?",
        (*fields.values(), time.time(), table_id),
    )


async def move_tables_to_chat(conn: Conn, old: int, new: int) -> None:
    """A group became a supergroup: its tables (live and finished) follow it.

    OR IGNORE: should the new chat already have a live table, both stay intact.
    """
    await defer(
        conn,
        "UPDATE OR IGNORE tables SET chat_id=?, updated_at=? WHERE chat_id=?",
        (new, time.time(), old),
    )


async def latest_table(db: Database, chat_id: int, thread_id: int = 0) -> TableRow | None:
    """The live table of a group's topic, else its most recent one (finished
    games stay readable)."""
    row = await db.fetchone(
        "SELECT * FROM tables WHERE chat_id=? AND thread_id=?"
        " AND status IN ('open','playing','finished')"
        " ORDER BY (status IN ('open','playing')) DESC, table_id DESC LIMIT 1",
        (chat_id, thread_id),
    )
    return _table(row) if row else None
