"""Group commands: open, leave and cancel a table; score, rules, help."""

from __future__ import annotations

from aiogram import Bot, F, Router
from aiogram.filters import Command
from aiogram.types import Message
from aiogram_i18n import I18nContext

from bot.callbacks import CANCEL_NO, CANCEL_YES, TableCb
from bot.commands import GROUP, menu
from bot.handlers.common import anonymous_admin, answer, author, is_admin, place
from bot.services.errors import UserError
from bot.services.replies import Replies
from bot.services.seats import SeatService
from bot.services.tables import TableService
from bot.views.keyboard import button, keyboard


async def on_newgame(
    message: Message, i18n: I18nContext, tables: TableService, replies: Replies
) -> None:
    """A table in the command's topic. From an anonymous admin or a channel it
    opens without a creator: whoever sits down (or any admin) starts it."""
    who = author(message)
    await tables.new_table(place(message), message.chat.title or "", who)
    if who is None:
        await answer(message, replies, i18n.get("newgame-no-creator"), passing=True)


async def on_leave(
    message: Message, i18n: I18nContext, seats: SeatService, replies: Replies
) -> None:
    who = author(message)
    if who is None:
        raise UserError("err-write-as-yourself")
    outcome = await seats.leave(place(message), who)
    await answer(message, replies, i18n.get(outcome))


async def on_cancel(
    message: Message, bot: Bot, i18n: I18nContext, tables: TableService, replies: Replies
) -> None:
    who = author(message)
    if who is None and not anonymous_admin(message):
        raise UserError("err-write-as-yourself")
    admin = anonymous_admin(message) or (
        who is not None and await is_admin(bot, message.chat.id, who.user_id)
    )
    live = await tables.cancel(place(message), who.user_id if who else None, admin)
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
    router.message.register(on_newgame, Command("newgame"), flags=menu(GROUP))
    router.message.register(on_leave, Command("leave"), flags=menu(GROUP))
    router.message.register(on_cancel, Command("cancel"), flags=menu(GROUP))
    router.message.register(on_help, Command("help"), flags=menu(GROUP))
    return router
