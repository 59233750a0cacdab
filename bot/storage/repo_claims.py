"""Queries of claims of the rest of a hand («Остальные мои») and their votes.

A claim is named by its game, hand, claimer's seat and its number among
that seat's claims of the hand (``n``, from 1): a second claim of the same
move after a refusal is another claim, a double press the same one."""

from __future__ import annotations

import json
from dataclasses import dataclass

from bot.storage.db import Conn, Database, defer

VOTE, PROVED, ACCEPTED, REFUSED, EXPIRED = "vote", "proved", "accepted", "refused", "expired"


@dataclass(slots=True)
class ClaimRow:
    game_id: int
    hand_no: int
    seat: int
    n: int
    seq: int  # the move it was made at
    voters: list[int]  # the seats asked (the other side's people)
    status: str
    accepted: set[int]  # the voters who accepted so far
    # The claimer's time left on the move when the vote opened (None: no
    # deadline was running), given back when play goes on.
    time_left: float | None = None


async def add(conn: Conn, row: ClaimRow) -> None:
    """One claim; its key makes a second write of the same claim fail."""
    await defer(
        conn,
        "INSERT INTO claims(game_id, hand_no, seat, n, seq, voters, status, time_left)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            row.game_id,
            row.hand_no,
            row.seat,
            row.n,
            row.seq,
            json.dumps(row.voters),
            row.status,
            row.time_left,
        ),
    )


async def set_status(conn: Conn, row: ClaimRow, status: str) -> None:
    await defer(
        conn,
        "UPDATE claims SET status=? WHERE game_id=? AND hand_no=? AND seat=? AND n=?",
        (status, row.game_id, row.hand_no, row.seat, row.n),
    )


async def add_vote(conn: Conn, row: ClaimRow, voter: int) -> None:
    """An acceptance; the key makes a second one of the same voter fail."""
    await defer(
        conn,
        "INSERT INTO claim_votes(game_id, hand_no, seat, n, voter) VALUES (?, ?, ?, ?, ?)",
        (row.game_id, row.hand_no, row.seat, row.n, voter),
    )


async def open_claim(db: Database, game_id: int) -> ClaimRow | None:
    """The claim of the game being voted on, with its acceptances so far."""
    row = await db.fetchone(
        "SELECT * FROM claims WHERE game_id=? AND status=? ORDER BY seq DESC, n DESC LIMIT 1",
        (game_id, VOTE),
    )
    if row is None:
        return None
    claim = ClaimRow(
        row["game_id"],
        row["hand_no"],
        row["seat"],
        row["n"],
        row["seq"],
        [int(s) for s in json.loads(row["voters"])],
        row["status"],
        set(),
        row["time_left"],
    )
    votes = await db.fetchall(
        "SELECT voter FROM claim_votes WHERE game_id=? AND hand_no=? AND seat=? AND n=?",
        (claim.game_id, claim.hand_no, claim.seat, claim.n),
    )
    claim.accepted = {r["voter"] for r in votes}
    return claim


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
