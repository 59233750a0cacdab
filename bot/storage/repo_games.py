"""Queries of the ``games`` table (a game begun, where it stands, its end)
and the finished games' ``results``; the moves of a running game are
:mod:`.repo_moves`'.

Reads take the ``Database``; writes take the ``conn`` of the caller's
transaction, so a game's end and its messages commit together.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass

from bot.storage.db import Conn, Database, Statements, defer, statement, storable


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
    game_id, _ = await statement(
        conn,
        "INSERT INTO games(table_id, seed, rules_json, first_dealer, status, started_at)"
        " VALUES (?, ?, ?, ?, 'playing', ?)",
        (table_id, seed, rules_json, first_dealer, time.time()),
    )
    return game_id


async def last_game(db: Database, table_id: int) -> GameRow | None:
    row = await db.fetchone(
        "SELECT * FROM games WHERE table_id=? ORDER BY game_id DESC LIMIT 1", (table_id,)
    )
    return game_row(row) if row else None


async def end_game(
    conn: Conn,
    game_id: int,
    status: str,
    winner: int | None,
    totals_json: str | None = None,
) -> None:
    await defer(
        conn,
        "UPDATE games SET status=?, winner=?, finished_at=?, totals_json=? WHERE game_id=?",
        (status, winner, time.time(), totals_json, game_id),
    )
    await defer(conn, "DELETE FROM deadlines WHERE game_id=?", (game_id,))


async def game_table(db: Database, game_id: int) -> int | None:
    if not storable(game_id):
        return None
    row = await db.fetchone("SELECT table_id FROM games WHERE game_id=?", (game_id,))
    return row["table_id"] if row else None


# --------------------------------------------------------------- results
async def save_results(
    conn: Conn,
    game_id: int,
    rows: Sequence[tuple[int, int | None, bool, int, int, int, int, int]],
) -> None:
    """Per seat: (seat, user, won, hands, contracts bid, made, nils bid, made)."""
    for seat, user_id, won, hands, cb, cm, nb, nm in rows:
        await defer(
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


async def user_stats(db: Database | Statements, user_id: int) -> sqlite3.Row | None:
    return await db.fetchone(
        "SELECT COUNT(*) AS games, COALESCE(SUM(won),0) AS wins, COALESCE(SUM(hands),0) AS hands,"
        " COALESCE(SUM(contracts_bid),0) AS contracts_bid,"
        " COALESCE(SUM(contracts_made),0) AS contracts_made,"
        " COALESCE(SUM(nils_bid),0) AS nils_bid, COALESCE(SUM(nils_made),0) AS nils_made"
        " FROM results WHERE user_id=?",
        (user_id,),
    )
