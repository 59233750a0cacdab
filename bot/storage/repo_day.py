"""Queries of «Сдача дня»: the groups that have it, the deal of a date, a
group's day, a person's play and its moves, the computer's decisions."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from bot.storage.db import Conn, Database, defer, statement, storable


@dataclass(frozen=True, slots=True)
class Deal:
    """The deal of a date: the same for every group of the bot."""

    date: str
    seed: int
    dealer: int
    seat: int  # the person's seat


@dataclass(frozen=True, slots=True)
class Day:
    day_id: int
    chat_id: int
    date: str
    key: str
    opens_at: float
    closes_at: float
    closed: bool


@dataclass(frozen=True, slots=True)
class Play:
    """A person's play of a date, started from the link of ``day_id``'s group."""

    date: str
    user_id: int
    day_id: int
    started_at: float
    finished_at: float | None
    bid: int | None
    tricks: int | None
    score: int | None


def _day(row: sqlite3.Row) -> Day:
    return Day(
        row["day_id"],
        row["chat_id"],
        row["date"],
        row["key"],
        row["opens_at"],
        row["closes_at"],
        bool(row["closed"]),
    )


def _play(row: sqlite3.Row) -> Play:
    return Play(
        row["date"],
        row["user_id"],
        row["day_id"],
        row["started_at"],
        row["finished_at"],
        row["bid"],
        row["tricks"],
        row["score"],
    )


# --------------------------------------------------------------- the groups
async def group(db: Database, chat_id: int) -> sqlite3.Row | None:
    return await db.fetchone("SELECT * FROM day_groups WHERE chat_id=?", (chat_id,))


async def set_group(
    conn: Conn,
    chat_id: int,
    *,
    enabled: bool,
    open_minute: int,
    title: str,
    lang: str,
    thread_id: int,
    next_at: float | None,
) -> None:
    await defer(
        conn,
        "INSERT INTO day_groups(chat_id, enabled, open_minute, title, lang, thread_id, next_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(chat_id) DO UPDATE SET"
        " enabled=excluded.enabled, open_minute=excluded.open_minute, title=excluded.title,"
        " lang=excluded.lang, thread_id=excluded.thread_id, next_at=excluded.next_at",
        (chat_id, int(enabled), open_minute, title, lang, thread_id, next_at),
    )


async def groups_due(db: Database, now: float, limit: int) -> list[sqlite3.Row]:
    """Groups whose next day opens by ``now``, the earliest first."""
    return await db.fetchall(
        "SELECT * FROM day_groups WHERE next_at IS NOT NULL AND next_at <= ?"
        " ORDER BY next_at LIMIT ?",
        (now, limit),
    )


async def next_opening(db: Database) -> float | None:
    row = await db.fetchone("SELECT min(next_at) FROM day_groups WHERE next_at IS NOT NULL")
    return None if row is None or row[0] is None else float(row[0])


async def set_next(conn: Conn, chat_id: int, next_at: float | None) -> None:
    await defer(conn, "UPDATE day_groups SET next_at=? WHERE chat_id=?", (next_at, chat_id))


async def first_creator(db: Database, chat_id: int) -> int | None:
    """Who opened the group's first table (0: an anonymous admin; None: no table yet)."""
    row = await db.fetchone(
        "SELECT creator_id FROM tables WHERE chat_id=? ORDER BY table_id LIMIT 1", (chat_id,)
    )
    return None if row is None else int(row[0])


# ----------------------------------------------------------------- the deals
async def deal(db: Database | Conn, date: str) -> Deal | None:
    row = await db.fetchone("SELECT * FROM day_deals WHERE date=?", (date,))
    return None if row is None else Deal(row["date"], row["seed"], row["dealer"], row["seat"])


async def add_deal(conn: Conn, d: Deal) -> None:
    """The date's deal, unless one is stored already (it is never replaced)."""
    await defer(
        conn,
        "INSERT OR IGNORE INTO day_deals(date, seed, dealer, seat) VALUES (?, ?, ?, ?)",
        (d.date, d.seed, d.dealer, d.seat),
    )


# ------------------------------------------------------------------ the days
async def open_day(
    conn: Conn, chat_id: int, date: str, key: str, opens_at: float, closes_at: float
) -> int | None:
    """A group's day of ``date``; None when it has one already."""
    row = await conn.fetchone("SELECT 1 FROM days WHERE chat_id=? AND date=?", (chat_id, date))
    if row is not None:
        return None
    day_id, _ = await statement(
        conn,
        "INSERT INTO days(chat_id, date, key, opens_at, closes_at) VALUES (?, ?, ?, ?, ?)",
        (chat_id, date, key, opens_at, closes_at),
    )
    return day_id


async def get_day(db: Database | Conn, day_id: int) -> Day | None:
    if not storable(day_id):
        return None
    row = await db.fetchone("SELECT * FROM days WHERE day_id=?", (day_id,))
    return None if row is None else _day(row)


async def running_day(db: Database, chat_id: int) -> Day | None:
    """The group's day that is open now (not yet closed), the newest."""
    row = await db.fetchone(
        "SELECT * FROM days WHERE chat_id=? AND closed=0 ORDER BY day_id DESC LIMIT 1",
        (chat_id,),
    )
    return None if row is None else _day(row)


async def days_to_close(db: Database, now: float, limit: int) -> list[Day]:
    rows = await db.fetchall(
        "SELECT * FROM days WHERE closed=0 AND closes_at <= ? ORDER BY closes_at LIMIT ?",
        (now, limit),
    )
    return [_day(r) for r in rows]


async def next_closing(db: Database) -> float | None:
    row = await db.fetchone("SELECT min(closes_at) FROM days WHERE closed=0")
    return None if row is None or row[0] is None else float(row[0])


async def close_day(conn: Conn, day_id: int) -> bool:
    """False when it was closed already (the close is done once)."""
    row = await conn.fetchone("SELECT closed FROM days WHERE day_id=?", (day_id,))
    if row is None or row[0]:
        return False
    await defer(conn, "UPDATE days SET closed=1 WHERE day_id=?", (day_id,))
    return True


# ----------------------------------------------------------------- the plays
async def get_play(db: Database | Conn, date: str, user_id: int) -> Play | None:
    row = await db.fetchone("SELECT * FROM day_plays WHERE date=? AND user_id=?", (date, user_id))
    return None if row is None else _play(row)


async def start_play(conn: Conn, date: str, user_id: int, day_id: int, now: float) -> None:
    await defer(
        conn,
        "INSERT INTO day_plays(date, user_id, day_id, started_at) VALUES (?, ?, ?, ?)",
        (date, user_id, day_id, now),
    )


async def finish_play(
    conn: Conn, date: str, user_id: int, bid: int, tricks: int, score: int, now: float
) -> None:
    await defer(
        conn,
        "UPDATE day_plays SET finished_at=?, bid=?, tricks=?, score=?"
        " WHERE date=? AND user_id=? AND finished_at IS NULL",
        (now, bid, tricks, score, date, user_id),
    )


async def plays_of_day(db: Database, day_id: int) -> list[Play]:
    rows = await db.fetchall(
        "SELECT * FROM day_plays WHERE day_id=? ORDER BY started_at, user_id", (day_id,)
    )
    return [_play(r) for r in rows]


async def scores_of_date(db: Database, date: str) -> list[int]:
    """Every finished play's score of the date, in every group."""
    rows = await db.fetchall(
        "SELECT score FROM day_plays WHERE date=? AND finished_at IS NOT NULL", (date,)
    )
    return [int(r[0]) for r in rows]


async def unfinished_plays(db: Database, since: str) -> list[Play]:
    """Plays of open days not yet finished (after a restart: whose computers move?)."""
    rows = await db.fetchall(
        "SELECT p.* FROM day_plays p JOIN days d ON d.day_id=p.day_id"
        " WHERE p.finished_at IS NULL AND d.closed=0 AND p.date >= ?",
        (since,),
    )
    return [_play(r) for r in rows]


async def plays_of_user(db: Database, user_id: int, limit: int) -> list[sqlite3.Row]:
    """The person's last plays with their group's day, the newest first."""
    return await db.fetchall(
        "SELECT p.*, d.closed, d.closes_at, d.chat_id FROM day_plays p"
        " JOIN days d ON d.day_id=p.day_id WHERE p.user_id=? ORDER BY p.date DESC LIMIT ?",
        (user_id, limit),
    )


# ----------------------------------------------------------------- the moves
async def moves(db: Database | Conn, date: str, user_id: int) -> list[int]:
    rows = await db.fetchall(
        "SELECT action FROM day_moves WHERE date=? AND user_id=? ORDER BY seq", (date, user_id)
    )
    return [int(r[0]) for r in rows]


async def add_move(conn: Conn, date: str, user_id: int, seq: int, action: int) -> bool:
    """One move; a second one with the same number (a double press) breaks the
    unique key. Only while the play is there: a computer's move decided while
    the person asked to be forgotten leaves no row naming them (False)."""
    _, added = await statement(
        conn,
        "INSERT INTO day_moves(date, user_id, seq, action) SELECT ?, ?, ?, ?"
        " WHERE EXISTS (SELECT 1 FROM day_plays WHERE date=? AND user_id=?)",
        (date, user_id, seq, action, date, user_id),
    )
    return added > 0


async def date_open_anywhere(db: Database, date: str) -> bool:
    """Some group's day of ``date`` is still open (its deal still to be played there)."""
    row = await db.fetchone("SELECT 1 FROM days WHERE date=? AND closed=0 LIMIT 1", (date,))
    return row is not None


# ------------------------------------------------------- the computer's moves
async def decision(db: Database, date: str, history: str) -> int | None:
    row = await db.fetchone(
        "SELECT action FROM day_decisions WHERE date=? AND history=?", (date, history)
    )
    return None if row is None else int(row[0])


async def add_decision(conn: Conn, date: str, history: str, action: int) -> None:
    """The first decision stored for a history stays (two people at the same point)."""
    await defer(
        conn,
        "INSERT OR IGNORE INTO day_decisions(date, history, action) VALUES (?, ?, ?)",
        (date, history, action),
    )


async def move_chat(conn: Conn, old: int, new: int) -> None:
    """A group became a supergroup: its day, its days and their plays go with it."""
    await defer(conn, "UPDATE OR IGNORE day_groups SET chat_id=? WHERE chat_id=?", (new, old))
    await defer(conn, "UPDATE OR IGNORE days SET chat_id=? WHERE chat_id=?", (new, old))
