"""Queue what people should see after a change, inside the change's transaction.

A service makes its change, says what changed (a
:class:`~bot.views.outcome.Change`) and calls :func:`publish` in the same
transaction: the render pass (:func:`bot.views.messages.messages`) turns the
table and that change into its messages once, and they are queued in the
outbox, so a change and its messages commit together or not at all.
"""

from __future__ import annotations

from bot.model import LiveTable
from bot.outbox import enqueue_delete, enqueue_put, enqueue_repost, enqueue_send
from bot.services.live import Registry
from bot.storage import repo_tail
from bot.storage.db import Conn
from bot.views.keyboard import Keyboard
from bot.views.messages import messages, table_key
from bot.views.outcome import Change, Delete, PostAnew, Put, Repost, Send

__all__ = ["BURIED_UNDER", "buried", "group_note", "publish", "table_key", "table_message"]


async def publish(conn: Conn, reg: Registry, live: LiveTable, change: Change) -> None:
    """Render ``change`` at ``live`` once and queue every message it causes."""
    for m in messages(change, live, reg.scene, reg.ctx.clock.now()):
        match m:
            case Send():
                await enqueue_send(
                    conn,
                    m.chat,
                    m.text,
                    m.markup,
                    key=m.key,
                    disable_notification=m.quiet,
                    thread=m.thread,
                )
            case Put():
                await enqueue_put(conn, m.chat, m.key, m.text, m.markup, thread=m.thread)
            case Delete():
                await enqueue_delete(conn, m.chat, m.key)
            case PostAnew():
                await enqueue_repost(
                    conn, m.chat, m.key, m.text, m.markup, old_message_id=m.old, thread=m.thread
                )


async def table_message(
    conn: Conn,
    reg: Registry,
    live: LiveTable,
    options: bool = False,
    *,
    repost: Repost | None = None,
) -> None:
    """Only the group's table message as it stands (``options``: an open
    table's settings screen; ``repost``: anew at the bottom of the chat)."""
    await publish(conn, reg, live, Change(table=True, options=options, repost=repost))


async def group_note(
    conn: Conn, live: LiveTable, text: str, markup: Keyboard | None = None
) -> None:
    """A new line in the table's group, in its topic, without a sound: for a
    service whose line is not a table's change (its text from its own view)."""
    await enqueue_send(
        conn, live.chat_id, text, markup, disable_notification=True, thread=live.thread_id
    )


# The table message stays among the newest messages of the group: with this
# many of the bot's messages already under it, a new hand posts it anew.
BURIED_UNDER = 2


async def buried(reg: Registry, live: LiveTable) -> Repost | None:
    """Whether the table message has sunk out of view (read before a change's
    transaction: a read, which the transaction need not hold the connection for)."""
    old = await repo_tail.message_of(reg.ctx.db, table_key(live.table_id))
    tail = await repo_tail.group_tail(reg.ctx.db, live.chat_id)
    if old is None or tail is None or tail - old < BURIED_UNDER:
        return None
    return Repost(old)
