"""The hand record: the «📜» under a hand's result, and ``/hand N`` in a group."""

from __future__ import annotations

from aiogram import Router
from aiogram.enums import ChatType
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, Message
from aiogram_i18n import I18nContext

from bot.callbacks import RecordCb
from bot.commands import GROUP, menu
from bot.handlers.common import answer, author, place, pressed_in
from bot.i18n import popup
from bot.services.errors import UserError
from bot.services.record import RecordService
from bot.services.replies import Replies


async def on_record_button(
    cb: CallbackQuery, callback_data: RecordCb, i18n: I18nContext, records: RecordService
) -> None:
    """The record goes to the presser's private chat; the group sees nothing."""
    chat_id = pressed_in(cb)
    key = await records.button(
        callback_data.t, callback_data.n, cb.from_user.id, chat_id, i18n.locale
    )
    await cb.answer(popup(i18n.get(key)))


async def on_hand(
    message: Message,
    command: CommandObject,
    i18n: I18nContext,
    records: RecordService,
    replies: Replies,
) -> None:
    if message.chat.type == ChatType.PRIVATE:
        await answer(message, replies, i18n.get("record-in-group"), passing=True)
        return
    who = author(message)
    if who is None:
        raise UserError("err-write-as-yourself")
    key = await records.command(place(message), command.args, who.user_id, i18n.locale)
    await answer(message, replies, i18n.get(key), passing=True)


def build() -> Router:
    """A fresh router: each App (and each test) gets its own."""
    router = Router(name="record")
    router.callback_query.register(on_record_button, RecordCb.filter())
    router.message.register(on_hand, Command("hand"), flags=menu(GROUP))
    return router
