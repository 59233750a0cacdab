"""Pruning: the finished ``outbox`` rows deleted, a bounded chunk per
transaction, so the table holds the last few seconds of traffic however long
the bot runs (``Outbox.prune`` says how old a row must be, and how often)."""

from __future__ import annotations

import time

from bot.outbox.stats import OutboxStats
from bot.storage.db import Database, Statements

#: Where a prune pass goes on from: the (created_at, id) of the last row it looked at.
Mark = tuple[float, int]
START: Mark = (float("-inf"), 0)


async def prune_step(
    st: Statements, after: Mark, before: float, failed_before: float, limit: int
) -> tuple[int, Mark | None]:
    """Look at the next ``limit`` rows queued after ``after`` and before
    ``before``, oldest first, and delete the finished ones: sent and
    superseded rows, failed ones queued before ``failed_before``.

    Returns how many went and where to go on (None: the range is done). The
    work is bounded by ``limit`` whatever the rows are: rows that stay
    (pending, failed and younger) are passed over, not looked at again and
    again by every step.
    """
    rows = await st.fetchall(
        "SELECT id, created_at, status FROM outbox"
        " WHERE (created_at, id) > (?, ?) AND created_at < ? ORDER BY created_at, id LIMIT ?",
        (*after, before, limit),
    )
    ids = [
        row_id
        for row_id, created_at, status in rows
        if status in ("sent", "superseded") or (status == "failed" and created_at < failed_before)
    ]
    if ids:
        marks = ",".join("?" * len(ids))
        await st.execute(f"DELETE FROM outbox WHERE id IN ({marks})", ids)
    if len(rows) < limit:
        return len(ids), None
    last_id, last_created, _ = rows[-1]
    return len(ids), (float(last_created), int(last_id))


class Pruner:
    """Prunes in chunks and remembers where to go on from: after the row the
    last prune ended at, less an overlap (a row is stamped a moment before its
    transaction commits), and from the oldest row once a ``full_sweep``."""

    def __init__(self, db: Database, stats: OutboxStats) -> None:
        self._db = db
        self._stats = stats
        self._pruned_to: Mark = START  # rows before it were pruned
        self._swept_at = float("-inf")  # time.time() of the last prune from the oldest row

    async def prune(
        self, *, keep_sent: float, keep_failed: float, chunk: int, overlap: float, full_sweep: float
    ) -> int:
        """Delete the finished rows queued more than ``keep_sent`` seconds ago
        (``keep_failed`` for failed ones), ``chunk`` rows looked at per
        transaction; how many went. A cancelled prune goes on where it stopped."""
        now = time.time()
        if now - self._swept_at >= full_sweep:
            self._pruned_to = START
            self._swept_at = now
        cutoff = now - keep_sent
        removed = 0
        mark: Mark | None = self._pruned_to
        while mark is not None:
            n, mark = await self._db.run_tx(prune_step, mark, cutoff, now - keep_failed, chunk)
            removed += n
            self._stats.pruned += n
            if mark is not None:
                self._pruned_to = mark
        self._pruned_to = (cutoff - overlap, 0)
        return removed
