"""Queries of teaching: hints used, and the decisions a review looks at."""

from __future__ import annotations

from dataclasses import dataclass

from bot.storage.db import Conn, Database
from bot.storage.repo_games import GameRow, game_row


async def add_hint_use(conn: Conn, game_id: int, seat: int, seq: int) -> bool:
    """Count a hint shown to ``seat`` at move ``seq``; False when that one was
    counted already (the same 💡 pressed again)."""
    added = await conn.execute(
        "INSERT OR IGNORE INTO hint_uses(game_id, seat, seq) VALUES (?, ?, ?)",
        (game_id, seat, seq),
    )
    return added == 1


async def hint_counts(db: Database, game_id: int) -> dict[int, int]:
    """Hints shown per seat in a game."""
    rows = await db.fetchall(
        "SELECT seat, COUNT(*) AS n FROM hint_uses WHERE game_id=? GROUP BY seat", (game_id,)
    )
    return {r["seat"]: r["n"] for r in rows}


@dataclass(slots=True)
class ReviewCandidate:
    """A game at a table where the user sits, newest activity first."""

    game: GameRow
    seat: int


async def review_candidates(db: Database, user_id: int, limit: int = 3) -> list[ReviewCandidate]:
    """Games at the tables the user sits at (finished ones keep their seats),
    the most recently moved in first."""
    rows = await db.fetchall(
        "SELECT g.*, s.seat AS my_seat,"
        " (SELECT MAX(at) FROM actions a WHERE a.game_id=g.game_id) AS last_at"
        " FROM seats s JOIN games g ON g.table_id=s.table_id"
        " WHERE s.user_id=? ORDER BY last_at IS NULL, last_at DESC, g.game_id DESC LIMIT ?",
        (user_id, limit),
    )
    return [ReviewCandidate(game_row(r), int(r["my_seat"])) for r in rows]


@dataclass(slots=True)
class ActionRow:
    seat: int
    action: int
    by_user: int | None
    at: float


async def game_action_rows(db: Database, game_id: int) -> list[ActionRow]:
    """The whole action log of a game, with who made each move and when."""
    rows = await db.fetchall(
        "SELECT seat, action, by_user, at FROM actions WHERE game_id=? ORDER BY seq", (game_id,)
    )
    return [ActionRow(r["seat"], r["action"], r["by_user"], r["at"]) for r in rows]
