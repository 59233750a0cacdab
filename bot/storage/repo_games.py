"""Queries of the ``games`` table and the event log of its moves (``actions``),
the cards looked at (``looks``) and the finished games' ``results``.

Reads take the ``Database``; writes take the ``conn`` of the caller's
transaction, so a move and its messages commit together.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass

from bot.storage.db import Conn, Database
from bot.storage.sql import execute, insert, storable


@dataclass(slots=True)
class GameRow:
    game_id: int
    table_id: int
    seed: int
    rules_json: str
    first_dealer: int
    status: str
    winner: int | None


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


async def game_table(db: Database, game_id: int) -> int | None:
    if not storable(game_id):
        return None
    row = await db.fetchone("SELECT table_id FROM games WHERE game_id=?", (game_id,))
    return row["table_id"] if row else None


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
