"""Inline buttons: table set-up, moves, and anything stale or forged."""

from __future__ import annotations

from aiogram import Router
from aiogram.types import CallbackQuery
from aiogram_i18n import I18nContext

from bot.callbacks import (
    AI,
    CANCEL_NO,
    CANCEL_YES,
    CLOSE_OPTIONS,
    OPTION,
    OPTIONS,
    PACE,
    PRESET,
    SIT,
    STAND,
    START,
    BackCb,
    ChartCb,
    HandCb,
    LookCb,
    LookupCb,
    MoveCb,
    TableCb,
    WhyCb,
)
from bot.handlers.common import in_own_chat, person, pressed_in
from bot.i18n import popup
from bot.services.charts import ChartService
from bot.services.errors import UserError
from bot.services.lookups import LookupService
from bot.services.play import PlayService
from bot.services.replies import Replies
from bot.services.seats import SeatService
from bot.services.tables import TableService
from bot.views.lookups import lookup_text, sent_privately


async def on_move(cb: CallbackQuery, callback_data: MoveCb, play: PlayService) -> None:
    await play.human_move(callback_data.t, cb.from_user.id, callback_data.s, callback_data.a)
    await cb.answer()


async def on_look(cb: CallbackQuery, callback_data: LookCb, play: PlayService) -> None:
    await play.look(callback_data.t, cb.from_user.id)
    await cb.answer()


async def on_hand(cb: CallbackQuery, callback_data: HandCb, play: PlayService) -> None:
    await play.show_hand(callback_data.t, cb.from_user.id)
    await cb.answer()


async def on_why(cb: CallbackQuery, callback_data: WhyCb, play: PlayService) -> None:
    key = await play.why(callback_data.t, cb.from_user.id, callback_data.s, callback_data.a)
    raise UserError(key)


async def on_table(
    cb: CallbackQuery,
    callback_data: TableCb,
    i18n: I18nContext,
    tables: TableService,
    seats: SeatService,
    replies: Replies,
) -> None:
    who = person(cb.from_user)
    t, op, v = callback_data.t, callback_data.op, callback_data.v
    chat_id = pressed_in(cb)
    if op == SIT:
        link = await seats.sit(t, who, v, chat_id)
        if link is not None:
            await cb.answer(url=link)
            return
    elif op == STAND:
        await seats.stand(t, who, chat_id)
    elif op == PRESET:
        await tables.set_preset(t, who, chat_id, "club" if v == 1 else "classic")
    elif op == OPTIONS:
        await tables.show_options(t, who, chat_id, True)
    elif op == CLOSE_OPTIONS:
        await tables.show_options(t, who, chat_id, False)
    elif op == OPTION:
        await tables.cycle_option(t, who, chat_id, v)
    elif op == PACE:
        await tables.cycle_pace(t, who, chat_id)
    elif op == AI:
        await tables.cycle_ai_level(t, who, chat_id)
    elif op == START:
        await tables.start(t, who, chat_id)
    elif op in (CANCEL_YES, CANCEL_NO):
        # Either answer is the creator's or an admin's of the table's group:
        # nobody else may close the question.
        await tables.confirm_cancel(t, who, chat_id, cancel=op == CANCEL_YES)
        text = i18n.get("cancel-done" if op == CANCEL_YES else "cancel-kept")
        if cb.message is not None:
            await replies.edit(cb.message.chat.id, cb.message.message_id, text)
    else:
        raise UserError("err-stale")
    await cb.answer()


async def on_back(cb: CallbackQuery, callback_data: BackCb, play: PlayService) -> None:
    if not await play.come_back(cb.from_user.id, callback_data.t):
        raise UserError("err-not-away")
    await cb.answer()


async def on_lookup(
    cb: CallbackQuery, callback_data: LookupCb, i18n: I18nContext, lookups: LookupService
) -> None:
    """Answered in a pop-up, or in the private chat when too long: never in the group."""
    chat_id = pressed_in(cb)
    found = await lookups.pressed(callback_data.t, callback_data.k, cb.from_user.id, chat_id)
    if found is None:
        await cb.answer(popup(i18n.get("err-stale")), show_alert=True)
    elif found.kind != "sheet":
        await cb.answer(popup(lookup_text(i18n.get, found)), show_alert=True)
    else:
        await lookups.send_private(cb.from_user.id, sent_privately(i18n.get, found))
        await cb.answer(popup(i18n.get("lookup-sent-private")))


async def on_chart(
    cb: CallbackQuery, callback_data: ChartCb, i18n: I18nContext, charts: ChartService
) -> None:
    """Drawing takes a moment: the press is answered at once, the chart follows."""
    chat_id = pressed_in(cb)
    key = await charts.for_person(callback_data.t, cb.from_user.id, chat_id, i18n.locale)
    await cb.answer(popup(i18n.get(key)))


async def on_unknown(cb: CallbackQuery) -> None:
    """Data we never produced, or from an older version: refuse, change nothing."""
    raise UserError("err-stale")


def build() -> Router:
    """A fresh router: each App (and each test) gets its own."""
    router = Router(name="buttons")
    router.callback_query.register(on_move, MoveCb.filter(), in_own_chat)
    router.callback_query.register(on_look, LookCb.filter(), in_own_chat)
    router.callback_query.register(on_why, WhyCb.filter(), in_own_chat)
    router.callback_query.register(on_hand, HandCb.filter(), in_own_chat)
    router.callback_query.register(on_table, TableCb.filter())
    router.callback_query.register(on_back, BackCb.filter(), in_own_chat)
    router.callback_query.register(on_lookup, LookupCb.filter())
    router.callback_query.register(on_chart, ChartCb.filter())
    router.callback_query.register(on_unknown)
    return router
