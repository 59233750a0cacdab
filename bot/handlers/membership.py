"""The bot's own membership in groups: removed, added back, group upgraded."""

from __future__ import annotations

from aiogram import F, Router
from aiogram.types import ChatMemberUpdated, Message

from bot.services.tables import TableService

GONE = {"left", "kicked"}
PRESENT = {"member", "administrator", "creator", "restricted"}


async def on_my_member(event: ChatMemberUpdated, tables: TableService) -> None:
    if event.chat.type not in ("group", "supergroup"):
        return
    old, new = event.old_chat_member.status, event.new_chat_member.status
    if new in GONE and old not in GONE:
        await tables.bot_removed(event.chat.id)
    elif new in PRESENT and old in GONE:
        await tables.bot_added(event.chat.id)


async def on_migrate(message: Message, tables: TableService) -> None:
    assert message.migrate_to_chat_id is not None
    await tables.migrated(message.chat.id, message.migrate_to_chat_id)


def build() -> Router:
    """A fresh router: each App (and each test) gets its own."""
    router = Router(name="membership")
    router.my_chat_member.register(on_my_member)
    router.message.register(on_migrate, F.migrate_to_chat_id)
    return router
