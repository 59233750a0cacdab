"""The inbox: updates taken from Telegram, kept until they are handled.

Long polling confirms updates by asking for the next ones (``offset``), and
every update below the offset is gone from Telegram for good. So an update
is written here, in one transaction per ``getUpdates`` answer, *before* the
next call confirms it; it is marked done once the dispatcher has handled it.
After a crash the updates not marked done are handled at the start, and a
copy Telegram sends again (confirmed too late) is recognised by its id.

Each function is given to ``Database.run_tx`` (or ``run``, the reads) and
issues its statements through the ``Statements`` it gets.
"""

from __future__ import annotations

import time

from bot.storage.db import Conn, Statements

# Handled updates are remembered this long: enough to recognise a copy sent
# again after a crash (Telegram resends only what was not yet confirmed).
KEEP_DONE = 600.0


async def kept_ids(st: Statements) -> list[int]:
    """Every update id kept (handled or not): a copy of one of them is not new."""
    return [int(r[0]) for r in await st.fetchall("SELECT update_id FROM inbox")]


async def store(st: Statements, updates: list[tuple[int, str]]) -> None:
    """Keep these ``(update_id, json)``; one kept already stays as it is."""
    now = time.time()
    await st.executemany(
        "INSERT OR IGNORE INTO inbox(update_id, body, received_at) VALUES (?, ?, ?)",
        [(update_id, body, now) for update_id, body in updates],
    )


async def done(st: Statements, update_ids: list[int]) -> None:
    """These were handled: never handle them again; the text is not needed."""
    now = time.time()
    await st.executemany(
        "UPDATE inbox SET done_at = ?, body = '' WHERE update_id = ?",
        [(now, u) for u in update_ids],
    )


async def done_with_effect(conn: Conn, update_id: int) -> None:
    """Mark an update handled inside the transaction that writes its effect.

    For a change that handled twice undoes itself (``/call_me`` turns the
    calls on, then off): a crash between its commit and the poller's own mark
    would handle it again after the restart. The row may not be kept yet (an
    update is handled while its ``getUpdates`` answer is being written), so it
    is written here if missing; :func:`store` then leaves it as it is.
    """
    now = time.time()
    await conn.execute(
        "INSERT INTO inbox(update_id, body, received_at, done_at) VALUES (?, '', ?, ?)"
        " ON CONFLICT(update_id) DO UPDATE SET done_at = excluded.done_at",
        (update_id, now, now),
    )


async def unhandled(st: Statements) -> list[tuple[int, str]]:
    """What a crash (or a stop that ran out of time) left unhandled, in order."""
    return [
        (int(r[0]), str(r[1]))
        for r in await st.fetchall(
            "SELECT update_id, body FROM inbox WHERE done_at IS NULL ORDER BY update_id"
        )
    ]


# Rows a pruning transaction deletes at most: the moves of every table share
# the connection and wait for it (all at once, under load, stalled every
# press for about a second: docs/benchmarks-history.md).
PRUNE_CHUNK = 500


async def prune(st: Statements, now: float | None = None, limit: int = PRUNE_CHUNK) -> int:
    """Forget up to ``limit`` handled updates older than :data:`KEEP_DONE`
    (the oldest first); a result of ``limit`` means there may be more."""
    before = (time.time() if now is None else now) - KEEP_DONE
    return await st.execute(
        "DELETE FROM inbox WHERE update_id IN"
        " (SELECT update_id FROM inbox WHERE done_at < ? ORDER BY done_at LIMIT ?)",
        (before, limit),
    )
