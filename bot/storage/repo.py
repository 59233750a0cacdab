"""Queries for users, tables, seats, games and actions.

Reads take the ``Database``; writes take the ``conn`` of the caller's
transaction so a move, its table update and its outgoing messages commit
together.
"""

from __future__ import annotations

import secrets
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

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


@dataclass(slots=True)
class GameRow:
    game_id: int
    table_id: int
    seed: int
    rules_json: str
    first_dealer: int
    status: str
    winner: int | None


# SQLite integers are 64-bit; an id from a button or command beyond that range
# cannot name a row (and would make sqlite3 raise OverflowError).
_MIN_ID, _MAX_ID = -(2**63), 2**63 - 1


def storable(n: int) -> bool:
    """Whether ``n`` fits an SQLite INTEGER, i.e. could be the id of a row."""
    return _MIN_ID <= n <= _MAX_ID


async def execute(conn: Conn, sql: str, args: Any = ()) -> None:
    """One write of the caller's transaction whose outcome it does not read."""
    await defer(conn, sql, args)


async def insert(conn: Conn, sql: str, args: Any = ()) -> int:
    """An insert whose new row id the caller needs."""
    return (await statement(conn, sql, args))[0]


# ----------------------------------------------------------------- users
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
    await execute(
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
    await execute(
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


# ---------------------------------------------------------------- tables
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
    table_id = await insert(
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
        await execute(conn, "INSERT INTO seats(table_id, seat) VALUES (?, ?)", (table_id, seat))
    return table_id


async def update_table(conn: Conn, table_id: int, **fields: Any) -> None:
    cols = ", ".join(f"{k}=?" for k in fields)
    await execute(
        conn,
        f"UPDATE tables SET {cols}, updated_at=? WHERE table_id=?",
        (*fields.values(), time.time(), table_id),
    )


async def move_tables_to_chat(conn: Conn, old: int, new: int) -> None:
    """A group became a supergroup: its tables (live and finished) follow it.

    OR IGNORE: should the new chat already have a live table, both stay intact.
    """
    await execute(
        conn,
        "UPDATE OR IGNORE tables SET chat_id=?, updated_at=? WHERE chat_id=?",
        (new, time.time(), old),
    )


async def resize_seats(conn: Conn, table_id: int, players: int) -> None:
    """Seat count follows the rules' player count; people beyond it stand up."""
    await execute(conn, "DELETE FROM seats WHERE table_id=? AND seat>=?", (table_id, players))
    for seat in range(players):
        await execute(
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
    await execute(
        conn, "UPDATE seats SET away=? WHERE table_id=? AND seat=?", (int(away), table_id, seat)
    )


async def get_timeouts(db: Database, table_id: int) -> dict[int, int]:
    rows = await db.fetchall(
        "SELECT seat, timeouts FROM seats WHERE table_id=? AND timeouts>0", (table_id,)
    )
    return {r["seat"]: r["timeouts"] for r in rows}


async def set_timeouts(conn: Conn, table_id: int, seat: int, n: int) -> None:
    await execute(
        conn, "UPDATE seats SET timeouts=? WHERE table_id=? AND seat=?", (n, table_id, seat)
    )


async def set_seat(conn: Conn, table_id: int, seat: int, user_id: int | None) -> None:
    await execute(
        conn, "UPDATE seats SET user_id=? WHERE table_id=? AND seat=?", (user_id, table_id, seat)
    )


# ----------------------------------------------------------------- games
def game_row(row: sqlite3.Row) -> GameRow:
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
    conn: Conn, table_id: int, seed: int, rules_json: str, first_dealer: int
) -> int:
    return await insert(
        conn,
        "INSERT INTO games(table_id, seed, rules_json, first_dealer, status, started_at)"
        " VALUES (?, ?, ?, ?, 'playing', ?)",
        (table_id, seed, rules_json, first_dealer, time.time()),
    )


async def last_game(db: Database, table_id: int) -> GameRow | None:
    row = await db.fetchone(
        "SELECT * FROM games WHERE table_id=? ORDER BY game_id DESC LIMIT 1", (table_id,)
    )
    return game_row(row) if row else None


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
    await execute(
        conn,
        "INSERT INTO actions(game_id, seq, seat, action, by_user, at) VALUES (?, ?, ?, ?, ?, ?)",
        (game_id, seq, seat, action, by_user, time.time()),
    )
    await execute(conn, "UPDATE games SET seq=? WHERE game_id=?", (seq + 1, game_id))


async def end_game(
    conn: Conn,
    game_id: int,
    status: str,
    winner: int | None,
    totals_json: str | None = None,
) -> None:
    await execute(
        conn,
        "UPDATE games SET status=?, winner=?, finished_at=?, totals_json=? WHERE game_id=?",
        (status, winner, time.time(), totals_json, game_id),
    )
    await execute(conn, "DELETE FROM deadlines WHERE game_id=?", (game_id,))


# ----------------------------------------------------------------- looks
async def looked_seats(db: Database, game_id: int, hand_no: int) -> set[int]:
    """Seats that opened their cards this hand: they can no longer bid blind nil."""
    rows = await db.fetchall(
        "SELECT seat FROM looks WHERE game_id=? AND hand_no=?", (game_id, hand_no)
    )
    return {r["seat"] for r in rows}


async def add_look(conn: Conn, game_id: int, hand_no: int, seat: int) -> None:
    await execute(
        conn,
        "INSERT OR IGNORE INTO looks(game_id, hand_no, seat) VALUES (?, ?, ?)",
        (game_id, hand_no, seat),
    )


# ------------------------------------------------------------- deadlines
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


# --------------------------------------------------------------- results
async def save_results(
    conn: Conn,
    game_id: int,
    rows: Sequence[tuple[int, int | None, bool, int, int, int, int, int]],
) -> None:
    """Per seat: (seat, user, won, hands, contracts bid, made, nils bid, made)."""
    for seat, user_id, won, hands, cb, cm, nb, nm in rows:
        await execute(
            conn,
            "INSERT OR REPLACE INTO results(game_id, seat, user_id, won, hands, contracts_bid,"
            " contracts_made, nils_bid, nils_made) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (game_id, seat, user_id, int(won), hands, cb, cm, nb, nm),
        )


async def finished_games(
    db: Database, chat_id: int, thread_id: int = 0, limit: int = 5
) -> list[sqlite3.Row]:
    """The last games finished at the tables of a group's topic."""
    return await db.fetchall(
        "SELECT g.game_id, g.table_id, g.winner, g.totals_json, g.finished_at, g.rules_json"
        " FROM games g JOIN tables t ON t.table_id=g.table_id"
        " WHERE t.chat_id=? AND t.thread_id=? AND g.status='finished'"
        " ORDER BY g.game_id DESC LIMIT ?",
        (chat_id, thread_id, limit),
    )


async def user_stats(db: Database, user_id: int) -> sqlite3.Row | None:
    return await db.fetchone(
        "SELECT COUNT(*) AS games, COALESCE(SUM(won),0) AS wins, COALESCE(SUM(hands),0) AS hands,"
        " COALESCE(SUM(contracts_bid),0) AS contracts_bid,"
        " COALESCE(SUM(contracts_made),0) AS contracts_made,"
        " COALESCE(SUM(nils_bid),0) AS nils_bid, COALESCE(SUM(nils_made),0) AS nils_made"
        " FROM results WHERE user_id=?",
        (user_id,),
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


async def game_table(db: Database, game_id: int) -> int | None:
    if not storable(game_id):
        return None
    row = await db.fetchone("SELECT table_id FROM games WHERE game_id=?", (game_id,))
    return row["table_id"] if row else None
