"""Answers to commands and presses that are messages: through the outbox too.

A reply sent straight from a handler skips the pacing every game message
keeps to (about 20 a minute in a group): a burst of commands then earns a
429 from Telegram, and a flood wait stalls every table of the bot. Queued
here, a reply waits its turn like any other message of that chat.
"""

from __future__ import annotations

import secrets

from bot.outbox import ANSWER, Markup, enqueue_answer, enqueue_delete, enqueue_edit, enqueue_send
from bot.services.live import Registry
from bot.storage import repo_tail

# A lookup answered in a group is deleted after this long: read by then, and
# the table message stays near the bottom of the chat.
GROUP_LOOKUP_SECONDS = 120.0


class Replies:
    def __init__(self, reg: Registry) -> None:
        self.ctx = reg.ctx

    async def reply(
        self,
        chat_id: int,
        to_message: int | None,
        text: str,
        markup: Markup = None,
        *,
        passing: bool = False,
        thread: int = 0,
        once: str | None = None,
    ) -> None:
        """A new message in ``chat_id`` (in its forum topic ``thread``),
        answering ``to_message`` (in a group, so it is clear whose command it
        answers). ``passing``: an answer nobody needs for long (a lookup, a
        refusal); in a group it is deleted after :data:`GROUP_LOOKUP_SECONDS`
        (see :meth:`expire_due`). ``once``: names the question (asker and
        kind); asked again, the new answer replaces the earlier one (dropped
        while queued, deleted once the new one is shown), so a burst of the
        same question costs one message and the chat keeps one answer to it."""
        group = chat_id < 0
        if group and once is not None:
            key = f"{ANSWER}{chat_id}:{thread}:{once}"
        elif group:
            key = f"{ANSWER}{chat_id}:{secrets.token_hex(8)}"
        else:
            key = None
        async with self.ctx.db.tx() as conn:
            if passing and key is not None:
                deadline = self.ctx.clock.now() + GROUP_LOOKUP_SECONDS
                await repo_tail.add_expiring(conn, key, chat_id, deadline)
            if once is not None and key is not None:
                await enqueue_answer(
                    conn, chat_id, key, text, markup, reply_to=to_message, thread=thread
                )
            else:
                await enqueue_send(
                    conn, chat_id, text, markup, key=key, reply_to=to_message, thread=thread
                )
        self.ctx.outbox.wake()
        if passing and key is not None:
            self.ctx.deadlines.set()  # the deadline loop deletes passing answers when due

    async def expire_due(self, now: float) -> float | None:
        """Delete the passing answers whose time is up; the next such moment."""
        while due := await repo_tail.due_expiring(self.ctx.db, now):
            async with self.ctx.db.tx() as conn:
                for key, chat_id in due:
                    await enqueue_delete(conn, chat_id, key)
                await repo_tail.drop_expiring(conn, [key for key, _ in due])
            self.ctx.outbox.wake()
        return await repo_tail.next_expiring(self.ctx.db)

    async def edit(self, chat_id: int, message_id: int, text: str, markup: Markup = None) -> None:
        """The message a button was pressed on now shows ``text``."""
        async with self.ctx.db.tx() as conn:
            await enqueue_edit(conn, chat_id, message_id, text, markup)
        self.ctx.outbox.wake()
