"""What an attempt leaves in the tables: the row sent (and the puts it
replaced), its message remembered or forgotten, a row or a chat failed, a
chat moved. Each is given to ``Database.run_tx``: a short transaction of its own.
"""

from __future__ import annotations

import time

from bot.outbox.calls import DELETE, SEND
from bot.outbox.enqueue import ONE_OFF, is_one_off
from bot.outbox.plans import Plan, next_plan
from bot.storage.db import Args, Statements


async def _mark_superseded(st: Statements, ids: list[int]) -> int:
    if not ids:
        return 0
    marks = ",".join("?" * len(ids))
    return await st.execute(
        f"UPDATE outbox SET status = 'superseded' WHERE status = 'pending' AND id IN ({marks})",
        ids,
    )


async def finish_rows(
    st: Statements, plan: Plan, message_id: int | None, forget: bool, scan: int
) -> tuple[int, Plan | None]:
    """The plan went out: mark it sent, remember (or, with ``forget``, drop) its
    message. Returns how many rows it superseded and the chat's next plan,
    read in the same transaction."""
    row = plan.target
    coalesced = await _mark_superseded(st, plan.superseded)
    if is_one_off(row.key):  # nothing of a one-off edit is kept
        kept = await st.execute("DELETE FROM outbox WHERE id = ?", (row.id,))
    else:
        kept = await st.execute(
            "UPDATE outbox SET status = 'sent', attempts = attempts + 1, error = NULL WHERE id = ?",
            (row.id,),
        )
    if not kept:
        # /forget_me erased the row while it was on its way: its message
        # (in the person's chat) must not be remembered again.
        return coalesced, await next_plan(st, row.chat_id, scan, time.time())
    writes: list[tuple[str, Args]] = []
    if (forget or is_one_off(row.key)) and row.key is not None:
        writes.append(
            ("DELETE FROM messages WHERE key = ? AND chat_id = ?", (row.key, row.chat_id))
        )
    elif row.key is not None and message_id is not None:
        if row.op == SEND:
            writes += await _retire_replaced(st, row.key, row.chat_id, message_id)
        writes.append(
            (
                "INSERT INTO messages(key, chat_id, message_id) VALUES (?, ?, ?)"
                " ON CONFLICT(key) DO UPDATE SET chat_id = excluded.chat_id,"
                " message_id = excluded.message_id",
                (row.key, row.chat_id, message_id),
            )
        )
    if row.chat_id < 0 and message_id is not None and not forget:
        # The newest message in a group: how deep the table message is buried.
        writes.append(
            (
                "INSERT INTO group_tail(chat_id, message_id) VALUES (?, ?) ON CONFLICT(chat_id)"
                " DO UPDATE SET message_id = MAX(message_id, excluded.message_id)",
                (row.chat_id, message_id),
            )
        )
    for sql, args in writes:
        await st.execute(sql, args)
    return coalesced, await next_plan(st, row.chat_id, scan, time.time())


async def _retire_replaced(
    st: Statements, key: str, chat_id: int, message_id: int
) -> list[tuple[str, Args]]:
    """A key names one live message: a new message sent under a key whose
    earlier message in this chat is still remembered replaces it, and the
    earlier one is deleted (queued after the send). Two sends of one key can
    cross (a repost queued while the first send was on its way): this keeps
    a table from ever showing two messages with live buttons. The writes
    that do it, to be made before the key's message is remembered anew."""
    known = await st.fetchone("SELECT chat_id, message_id FROM messages WHERE key = ?", (key,))
    if known is None or known[0] != chat_id or known[1] == message_id:
        return []
    one_off = f"{ONE_OFF}{chat_id}:{known[1]}"
    return [
        (
            "INSERT INTO messages(key, chat_id, message_id) VALUES (?, ?, ?)"
            " ON CONFLICT(key) DO NOTHING",
            (one_off, chat_id, known[1]),
        ),
        (
            "INSERT INTO outbox(chat_id, op, key, payload, not_before, created_at)"
            " VALUES (?, ?, ?, '{}', 0, ?)",
            (chat_id, DELETE, one_off, time.time()),
        ),
    ]


async def fail_rows(st: Statements, plan: Plan, description: str) -> None:
    """The plan's row failed for good (and the puts it replaced with it)."""
    await _mark_superseded(st, plan.superseded)
    await st.execute(
        "UPDATE outbox SET status = 'failed', attempts = attempts + 1, error = ? WHERE id = ?",
        (description[:500], plan.target.id),
    )


async def fail_chat(st: Statements, chat_id: int, description: str, before: float) -> int:
    """Every pending row of a chat that could not be written to at ``before``
    (a ``time.time()``) fails; returns how many."""
    return await st.execute(
        "UPDATE outbox SET status = 'failed', attempts = attempts + 1, error = ?"
        " WHERE chat_id = ? AND status = 'pending' AND created_at <= ?",
        (description[:500], chat_id, before),
    )


async def fail_topic(
    st: Statements, chat_id: int, thread: int, description: str, before: float
) -> int:
    """Every pending row for a forum topic that refused messages at ``before``
    fails (edits of its messages included: the topic is closed or gone)."""
    return await st.execute(
        "UPDATE outbox SET status = 'failed', attempts = attempts + 1, error = ?"
        " WHERE chat_id = ? AND status = 'pending' AND created_at <= ?"
        " AND json_extract(payload, '$.thread') = ?",
        (description[:500], chat_id, before, thread),
    )


async def note_error(st: Statements, row_id: int, description: str) -> None:
    """A failed attempt that will be retried."""
    await st.execute(
        "UPDATE outbox SET attempts = attempts + 1, error = ? WHERE id = ?",
        (description[:500], row_id),
    )


async def forget_lost(st: Statements, key: str | None, message_id: int) -> None:
    """The remembered message is gone: the key's next put sends a new one."""
    await st.execute("DELETE FROM messages WHERE key = ? AND message_id = ?", (key, message_id))


async def move_chat(st: Statements, old: int, new: int) -> None:
    """A group became a supergroup: its pending rows go along; the messages it
    remembers in the old chat are forgotten (they cannot be edited through the
    new id), so the next put of a key sends its message in the new chat, once.
    Told twice of one move (the refusal, then the service message), the second
    finds nothing of the old chat left."""
    await st.execute(
        "UPDATE outbox SET chat_id = ? WHERE chat_id = ? AND status = 'pending'", (new, old)
    )
    await st.execute("DELETE FROM messages WHERE chat_id = ?", (old,))
