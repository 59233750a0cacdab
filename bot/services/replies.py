"""Answers to commands and presses that are messages: through the outbox too.

A reply sent straight from a handler skips the pacing every game message
keeps to (about 20 a minute in a group): a burst of commands then earns a
429 from Telegram, and a flood wait stalls every table of the bot. Queued
here, a reply waits its turn like any other message of that chat.
"""

from __future__ import annotations

from bot.outbox import Markup, enqueue_edit, enqueue_send
from bot.services.live import Registry


class Replies:
    def __init__(self, reg: Registry) -> None:
        self.ctx = reg.ctx

    async def reply(
        self, chat_id: int, to_message: int | None, text: str, markup: Markup = None
    ) -> None:
        """A new message in ``chat_id``, answering ``to_message`` (in a group,
        so it is clear whose command it answers)."""
        async with self.ctx.db.tx() as conn:
            await enqueue_send(conn, chat_id, text, markup, reply_to=to_message)
        self.ctx.outbox.wake()

    async def edit(self, chat_id: int, message_id: int, text: str, markup: Markup = None) -> None:
        """The message a button was pressed on now shows ``text``."""
        async with self.ctx.db.tx() as conn:
            await enqueue_edit(conn, chat_id, message_id, text, markup)
        self.ctx.outbox.wake()
