"""The queue's SQL: the ``outbox`` rows and the ``messages`` they remember.

``enqueue_*`` and :func:`forget_key` are written inside the caller's
transaction (a move and its messages commit together). Most of the rest are
given to ``Database.run`` (reads from one snapshot) or ``run_tx`` (one short
transaction each) and issue their statements through the ``Statements`` they
get; a single read takes the ``Database``.

Row statuses: ``pending`` until sent; then ``sent``, ``superseded`` (a newer
put of the same key went out instead) or ``failed``. Only pending rows are
ever read by the sender; finished ones stay a short while for diagnosis and
are pruned (see ``Outbox.prune``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from bot.outbox.calls import DELETE, PUT, SEND, Markup, payload
from bot.storage.db import Args, Conn, Database, Statements, defer

# -- queueing (inside the caller's transaction) -------------------------------


async def _insert(
    conn: Conn,
    chat_id: int,
    op: str,
    key: str | None,
    data: str,
    not_before: float,
) -> None:
    await defer(
        conn,
        "INSERT INTO outbox(chat_id, op, key, payload, not_before, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (chat_id, op, key, data, not_before, time.time()),
    )


async def enqueue_put(
    conn: Conn,
    chat_id: int,
    key: str,
    text: str,
    reply_markup: Markup = None,
    parse_mode: str | None = "HTML",
    *,
    disable_notification: bool = False,
    not_before: float = 0.0,
    thread: int | None = None,
    reply_to: int | None = None,
) -> None:
    """Queue "the message under ``key`` shows ``text``" (edit if known, else send).

    Call inside ``db.tx()``; ``not_before`` is a ``time.time()`` instant before
    which the row is not sent (and it holds back this chat's later rows).
    ``thread`` and ``reply_to`` count when it is sent (see :func:`enqueue_send`).
    """
    data = payload(text, reply_markup, parse_mode, disable_notification, reply_to, None, thread)
    await _insert(conn, chat_id, PUT, key, data, not_before)


async def enqueue_send(
    conn: Conn,
    chat_id: int,
    text: str,
    reply_markup: Markup = None,
    key: str | None = None,
    parse_mode: str | None = "HTML",
    *,
    disable_notification: bool = False,
    not_before: float = 0.0,
    reply_to: int | None = None,
    photo: bytes | None = None,
    thread: int | None = None,
) -> None:
    """Queue a new message; with ``key`` its id is remembered so later puts edit it.

    ``reply_to``: the id of the message (in this chat) it answers; should that
    message be gone by then, it is sent as a plain message. ``photo``: PNG
    bytes; the message is that picture with ``text`` as its caption.
    ``thread``: the forum topic it goes to (None or 0: General, or no forum).
    """
    data = payload(text, reply_markup, parse_mode, disable_notification, reply_to, photo, thread)
    await _insert(conn, chat_id, SEND, key, data, not_before)


async def enqueue_delete(conn: Conn, chat_id: int, key: str, *, not_before: float = 0.0) -> None:
    """Queue deleting the message remembered under ``key`` (a no-op if none is)."""
    await _insert(conn, chat_id, DELETE, key, "{}", not_before)


async def forget_key(conn: Conn, key: str) -> None:
    """Forget the message under ``key``: the next put sends a fresh message."""
    await defer(conn, "DELETE FROM messages WHERE key = ?", (key,))


async def enqueue_repost(
    conn: Conn,
    chat_id: int,
    key: str,
    text: str,
    reply_markup: Markup = None,
    *,
    old_message_id: int | None = None,
    thread: int | None = None,
) -> None:
    """The message under ``key`` anew at the bottom of the chat, the old one
    deleted after it. Edits still queued for the old one are dropped; a new
    message (a send under the key, not a put after forgetting it) also stays
    right when an edit of the old one is on its way meanwhile: that edit's
    answer remembers the old id, and this send's answer then the new one."""
    await defer(
        conn,
        "UPDATE outbox SET status = 'superseded' WHERE key = ? AND op = 'put'"
        " AND status = 'pending'",
        (key,),
    )
    await enqueue_send(conn, chat_id, text, reply_markup, key=key, thread=thread)
    if old_message_id is not None:
        await enqueue_delete_message(conn, chat_id, old_message_id)


async def enqueue_answer(
    conn: Conn,
    chat_id: int,
    key: str,
    text: str,
    reply_markup: Markup = None,
    *,
    reply_to: int | None = None,
    thread: int | None = None,
) -> None:
    """The answer to a question asked again: a new message under ``key`` at
    the bottom of the chat. An earlier answer still queued is dropped (it is
    out of date, and a burst of the same question costs one message); one
    already shown is deleted once this one is sent (:func:`_retire_replaced`)."""
    await defer(
        conn,
        "UPDATE outbox SET status = 'superseded' WHERE key = ? AND op != 'delete'"
        " AND status = 'pending'",
        (key,),
    )
    await enqueue_send(conn, chat_id, text, reply_markup, key=key, reply_to=reply_to, thread=thread)


async def enqueue_delete_message(conn: Conn, chat_id: int, message_id: int) -> None:
    """Queue deleting a message known only by its id (a one-off key, like an edit)."""
    await enqueue_delete(conn, chat_id, await _remember_one_off(conn, chat_id, message_id))


# Keys of one-off edits: the message is forgotten once the edit went out.
ONE_OFF = "edit:"
# Keys of answers to a person's command in a group: they go out before edits
# of messages already shown (see :func:`next_plan`).
ANSWER = "answer:"


def _one_off(key: str | None) -> bool:
    return key is not None and key.startswith(ONE_OFF)


async def _remember_one_off(conn: Conn, chat_id: int, message_id: int) -> str:
    """A one-off key naming a message known only by its id (forgotten once used)."""
    key = f"{ONE_OFF}{chat_id}:{message_id}"
    await defer(
        conn,
        "INSERT INTO messages(key, chat_id, message_id) VALUES (?, ?, ?)"
        " ON CONFLICT(key) DO NOTHING",
        (key, chat_id, message_id),
    )
    return key


async def enqueue_edit(
    conn: Conn,
    chat_id: int,
    message_id: int,
    text: str,
    reply_markup: Markup = None,
    parse_mode: str | None = "HTML",
) -> None:
    """Queue an edit of a message known only by its id (the one a button was
    pressed on): it is remembered under a one-off key until the edit is made.
    (Nothing of it stays behind: after ``/forget_me`` the edit that says so is
    the last trace of the person, and it goes once sent.)"""
    key = await _remember_one_off(conn, chat_id, message_id)
    await enqueue_put(conn, chat_id, key, text, reply_markup, parse_mode)


# -- planning: what to send next for a chat ----------------------------------


@dataclass(slots=True)
class Row:
    id: int
    chat_id: int
    op: str
    key: str | None
    payload: str
    not_before: float


@dataclass(slots=True)
class Plan:
    target: Row  # the row whose content goes out
    superseded: list[int]  # older puts for the same key that target replaces
    message_id: int | None  # the remembered message for target.key in this chat
    head: Row | None = None  # the chat's first pending row, when not target

    @property
    def first(self) -> Row:
        return self.head or self.target


_ROW_COLS = "id, chat_id, op, key, payload, not_before"


async def plan_rows(st: Statements, head: Row, scan: int, now: float) -> Plan:
    """What to send for ``head``: the newest put of its key that may go now
    (looking at most ``scan`` rows ahead), and the message it edits."""
    message_id: int | None = None
    if head.key is not None and head.op in (PUT, DELETE):
        known = await st.fetchone(
            "SELECT chat_id, message_id FROM messages WHERE key = ?", (head.key,)
        )
        if known is not None and known[0] == head.chat_id:
            message_id = int(known[1])
    if head.op != PUT:
        return Plan(head, [], message_id)
    later = await st.fetchall(
        "SELECT id, op, key, not_before FROM outbox"
        " WHERE chat_id = ? AND status = 'pending' AND id > ? ORDER BY id LIMIT ?",
        (head.chat_id, head.id, scan),
    )
    superseded: list[int] = []
    target_id = head.id
    for row_id, op, key, not_before in later:
        if op == PUT and key == head.key and not_before <= now:
            superseded.append(target_id)
            target_id = row_id
        elif key == head.key or message_id is None:
            # Another op on this key, or (while the message does not exist
            # yet) any other message: moving past it would reorder the chat.
            break
    if target_id == head.id:
        return Plan(head, [], message_id)
    row = await st.fetchone(f"SELECT {_ROW_COLS} FROM outbox WHERE id = ?", (target_id,))
    if row is None:
        return Plan(head, [], message_id)
    return Plan(Row(*row), superseded, message_id, head)


def deferrable(plan: Plan) -> bool:
    """An edit of a message already shown (not an answer): it may wait for
    the pace, and a later edit of the same message replaces it meanwhile."""
    key = plan.target.key
    return (
        plan.target.op == PUT
        and plan.message_id is not None
        and not (key is not None and key.startswith(ANSWER))
    )


async def next_plan(st: Statements, chat_id: int, scan: int, now: float) -> Plan | None:
    """The chat's first pending row and what to send for it (None: nothing pending).

    A person waiting for an answer goes first: when the first rows only
    edit messages already shown (the table, redrawn move after move, each
    edit soon replaced by the next), an answer queued behind them is sent
    before them. Nothing new overtakes anything new, so the chat's order
    stays as queued."""
    row = await st.fetchone(
        f"SELECT {_ROW_COLS} FROM outbox WHERE chat_id = ? AND status = 'pending'"
        " ORDER BY id LIMIT 1",
        (chat_id,),
    )
    if row is None:
        return None
    head = Row(*row)
    if chat_id < 0 and head.op == PUT and not (head.key or "").startswith(ANSWER):
        head = await _answer_behind_edits(st, head, scan, now) or head
    return await plan_rows(st, head, scan, now)


async def _answer_behind_edits(st: Statements, head: Row, scan: int, now: float) -> Row | None:
    """The first answer that only edits of shown messages (``head`` first) stand before."""
    rows = await st.fetchall(
        "SELECT o.id, o.op, o.key, o.not_before, m.message_id FROM outbox o"
        " LEFT JOIN messages m ON m.key = o.key AND m.chat_id = o.chat_id"
        " WHERE o.chat_id = ? AND o.status = 'pending' AND o.id >= ? ORDER BY o.id LIMIT ?",
        (head.chat_id, head.id, scan),
    )
    for row_id, op, key, not_before, shown in rows:
        if key is not None and key.startswith(ANSWER):
            if row_id == head.id or not_before > now:
                return None
            answer = await st.fetchone(f"SELECT {_ROW_COLS} FROM outbox WHERE id = ?", (row_id,))
            return None if answer is None else Row(*answer)
        if op != PUT or shown is None:
            return None  # a new message, or a delete: nothing moves past it
    return None


async def pending_chats(db: Database) -> list[int]:
    """Every chat with a pending row (one read: no snapshot needed)."""
    rows = await db.fetchall("SELECT DISTINCT chat_id FROM outbox WHERE status = 'pending'")
    return [int(chat_id) for (chat_id,) in rows]


async def any_pending(db: Database) -> bool:
    return await db.fetchone("SELECT 1 FROM outbox WHERE status = 'pending' LIMIT 1") is not None


# -- finishing (each a short transaction) ------------------------------------


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
    writes: list[tuple[str, Args]] = []
    if _one_off(row.key):  # nothing of a one-off edit is kept
        writes.append(("DELETE FROM outbox WHERE id = ?", (row.id,)))
    else:
        writes.append(
            (
                "UPDATE outbox SET status = 'sent', attempts = attempts + 1, error = NULL"
                " WHERE id = ?",
                (row.id,),
            )
        )
    if (forget or _one_off(row.key)) and row.key is not None:
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


# -- pruning -------------------------------------------------------------------

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
