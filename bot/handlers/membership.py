"""The bot's own membership: removed from or added back to a group (removed,
nobody is called to it any more), the group upgraded to a supergroup, a
forum topic closed or reopened, a player blocking or unblocking the bot."""

from __future__ import annotations

from aiogram import F, Router
from aiogram.types import ChatMemberUpdated, Message

from bot.handlers.common import person, thread_of
from bot.services.calls import CallService
from bot.services.group_events import GroupEvents
from bot.services.play import PlayService
from bot.services.tables import TableService

GONE = {"left", "kicked"}
PRESENT = {"member", "administrator", "creator", "restricted"}


async def on_my_member(
    event: ChatMemberUpdated,
    tables: TableService,
    groups: GroupEvents,
    play: PlayService,
    calls: CallService,
) -> None:
    old, new = event.old_chat_member.status, event.new_chat_member.status
    gone, back = new in GONE and old not in GONE, new in PRESENT and old in GONE
    if event.chat.type == "private":
        # Told at once, not at the next failed send: it may be this player's turn.
        if gone:
            await play.on_forbidden(event.chat.id, "the user blocked the bot")
        elif back:
            await tables.remember(person(event.from_user), started=True)
            await play.user_returned(event.from_user.id)
    elif gone:
        # Nobody is called to a group the bot is not in (added back: asked anew).
        await calls.group_gone(event.chat.id)
        await groups.bot_removed(event.chat.id)
    elif back:
        await groups.bot_added(event.chat.id)


async def on_migrate(message: Message, groups: GroupEvents) -> None:
    assert message.migrate_to_chat_id is not None
    await groups.migrated(message.chat.id, message.migrate_to_chat_id)


async def on_topic_closed(message: Message, groups: GroupEvents) -> None:
    await groups.topic_gone(message.chat.id, thread_of(message), deleted=False)


async def on_topic_reopened(message: Message, groups: GroupEvents) -> None:
    await groups.topic_reopened(message.chat.id, thread_of(message))


def build() -> Router:
    """A fresh router: each App (and each test) gets its own."""
    router = Router(name="membership")
    router.my_chat_member.register(on_my_member)
    router.message.register(on_migrate, F.migrate_to_chat_id)
    router.message.register(on_topic_closed, F.forum_topic_closed)
    router.message.register(on_topic_reopened, F.forum_topic_reopened)
    return router
