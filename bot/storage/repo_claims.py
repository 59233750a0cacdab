"""Queries of claims of the rest of a hand («Остальные мои») and their votes."""

from __future__ import annotations

import json
from dataclasses import dataclass

from bot.storage.db import Conn, Database
from bot.storage.repo import execute

VOTE, PROVED, ACCEPTED, REFUSED, EXPIRED = "vote", "proved", "accepted", "refused", "expired"


@dataclass(slots=True)
class ClaimRow:
    game_id: int
    seq: int
    hand_no: int
    seat: int
    voters: list[int]  # the seats asked (the other side's people)
    status: str
    accepted: set[int]  # the voters who accepted so far


async def add(
    conn: Conn, game_id: int, seq: int, hand_no: int, seat: int, voters: list[int], status: str
) -> None:
    """One claim; (game, seq) is its key, so a second claim of the same move fails."""
    await execute(
        conn,
        "INSERT INTO claims(game_id, seq, hand_no, seat, voters, status) VALUES (?, ?, ?, ?, ?, ?)",
        (game_id, seq, hand_no, seat, json.dumps(voters), status),
    )


async def set_status(conn: Conn, game_id: int, seq: int, status: str) -> None:
    await execute(
        conn, "UPDATE claims SET status=? WHERE game_id=? AND seq=?", (status, game_id, seq)
    )


async def add_vote(conn: Conn, game_id: int, seq: int, seat: int) -> None:
    """An acceptance; the key makes a second one of the same seat fail."""
    await execute(
        conn,
        "INSERT INTO claim_votes(game_id, seq, seat) VALUES (?, ?, ?)",
        (game_id, seq, seat),
    )


async def get(db: Database, game_id: int, seq: int) -> ClaimRow | None:
    row = await db.fetchone("SELECT * FROM claims WHERE game_id=? AND seq=?", (game_id, seq))
    if row is None:
        return None
    votes = await db.fetchall(
        "SELECT seat FROM claim_votes WHERE game_id=? AND seq=?", (game_id, seq)
    )
    return ClaimRow(
        row["game_id"],
        row["seq"],
        row["hand_no"],
        row["seat"],
        [int(s) for s in json.loads(row["voters"])],
        row["status"],
        {r["seat"] for r in votes},
    )


async def load(db: Database, game_id: int) -> tuple[dict[tuple[int, int], int], int | None]:
    """A game's claims per (hand, seat), and the move number of the claim being
    voted on (None: none)."""
    rows = await db.fetchall(
        "SELECT hand_no, seat, seq, status FROM claims WHERE game_id=?", (game_id,)
    )
    counts: dict[tuple[int, int], int] = {}
    voting: int | None = None
    for r in rows:
        key = (r["hand_no"], r["seat"])
        counts[key] = counts.get(key, 0) + 1
        if r["status"] == VOTE:
            voting = r["seq"]
    return counts, voting
