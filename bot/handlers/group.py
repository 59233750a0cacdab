"""Group commands: open, leave and cancel a table; score, rules, help."""

from __future__ import annotations

from aiogram import Bot, F, Router
from aiogram.filters import Command
from aiogram.types import Message
from aiogram_i18n import I18nContext

from bot.callbacks import CANCEL_NO, CANCEL_YES, TableCb
from bot.handlers.common import answer, is_admin, person
from bot.services.replies import Replies
from bot.services.tables import TableService
from bot.views.keyboard import button, keyboard


async def on_newgame(message: Message, tables: TableService) -> None:
    assert message.from_user is not None
    await tables.new_table(message.chat.id, message.chat.title or "", person(message.from_user))


async def on_leave(
    message: Message, i18n: I18nContext, tables: TableService, replies: Replies
) -> None:
    assert message.from_user is not None
    outcome = await tables.leave(message.chat.id, person(message.from_user))
    await answer(message, replies, i18n.get(outcome))


async def on_cancel(
    message: Message, bot: Bot, i18n: I18nContext, tables: TableService, replies: Replies
) -> None:
    assert message.from_user is not None
    admin = await is_admin(bot, message.chat.id, message.from_user.id)
    live = await tables.cancel(message.chat.id, person(message.from_user), admin)
    confirm = keyboard(
        [
            [
                button(i18n.get("btn-cancel-yes"), TableCb.packed(t=live.table_id, op=CANCEL_YES)),
                button(i18n.get("btn-cancel-no"), TableCb.packed(t=live.table_id, op=CANCEL_NO)),
            ]
        ]
    )
    await answer(message, replies, i18n.get("cancel-confirm"), confirm)


async def on_help(message: Message, i18n: I18nContext, replies: Replies) -> None:
    await answer(message, replies, i18n.get("help"))


def build() -> Router:
    """A fresh router: each App (and each test) gets its own."""
    router = Router(name="group")
    router.message.filter(F.chat.type.in_({"group", "supergroup"}))
    router.message.register(on_newgame, Command("newgame"))
    router.message.register(on_leave, Command("leave"))
    router.message.register(on_cancel, Command("cancel"))
    router.message.register(on_help, Command("help"))
    return router
