"""The inbox: updates taken from Telegram, kept until they are handled.

Long polling confirms updates by asking for the next ones (``offset``), and
every update below the offset is gone from Telegram for good. So an update
is written here, in one transaction per ``getUpdates`` answer, *before* the
next call confirms it; it is marked done once the dispatcher has handled it.
After a crash the updates not marked done are handled at the start, and a
copy Telegram sends again (confirmed too late) is recognised by its id.

Each function runs on the database thread (``Database.run_tx`` / ``run``).
"""

from __future__ import annotations

import sqlite3
import time

# Handled updates are remembered this long: enough to recognise a copy sent
# again after a crash (Telegram resends only what was not yet confirmed).
KEEP_DONE = 600.0


def kept_ids(raw: sqlite3.Connection) -> list[int]:
    """Every update id kept (handled or not): a copy of one of them is not new."""
    return [int(r[0]) for r in raw.execute("SELECT update_id FROM inbox")]


def store(raw: sqlite3.Connection, updates: list[tuple[int, str]]) -> None:
    """Keep these ``(update_id, json)``; one kept already stays as it is."""
    now = time.time()
    raw.executemany(
        "INSERT OR IGNORE INTO inbox(update_id, body, received_at) VALUES (?, ?, ?)",
        [(update_id, body, now) for update_id, body in updates],
    )


def done(raw: sqlite3.Connection, update_ids: list[int]) -> None:
    """These were handled: never handle them again; the text is not needed."""
    now = time.time()
    raw.executemany(
        "UPDATE inbox SET done_at = ?, body = '' WHERE update_id = ?",
        [(now, u) for u in update_ids],
    )


def unhandled(raw: sqlite3.Connection) -> list[tuple[int, str]]:
    """What a crash (or a stop that ran out of time) left unhandled, in order."""
    return [
        (int(r[0]), str(r[1]))
        for r in raw.execute(
            "SELECT update_id, body FROM inbox WHERE done_at IS NULL ORDER BY update_id"
        )
    ]


# Rows a pruning transaction deletes at most: the moves of every table share
# the writing connection and wait for it (all at once, under load, stalled
# every press for about a second: docs/benchmarks.md, History).
PRUNE_CHUNK = 500


def prune(raw: sqlite3.Connection, now: float | None = None, limit: int = PRUNE_CHUNK) -> int:
    """Forget up to ``limit`` handled updates older than :data:`KEEP_DONE`
    (the oldest first); a result of ``limit`` means there may be more."""
    before = (time.time() if now is None else now) - KEEP_DONE
    return raw.execute(
        "DELETE FROM inbox WHERE update_id IN"
        " (SELECT update_id FROM inbox WHERE done_at < ? ORDER BY done_at LIMIT ?)",
        (before, limit),
    ).rowcount
