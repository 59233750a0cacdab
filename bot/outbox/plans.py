"""Planning: what to send next for a chat, read from its pending ``outbox`` rows.

Given to ``Database.run`` (reads from one snapshot) with the ``Statements``
they issue their reads through; a single read takes the ``Database``.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.outbox.calls import DELETE, PUT
from bot.outbox.enqueue import ANSWER
from bot.storage.db import Database, Statements


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
