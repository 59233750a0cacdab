"""«Call me to the next game» (``/call_me`` and its buttons) and «Ещё партию»."""

from __future__ import annotations

from aiogram import F, Router
from aiogram.filters import Command
from aiogram.types import CallbackQuery, Message
from aiogram_i18n import I18nContext

from bot.callbacks import CALL_OFF, CALL_SIT, CALL_TOGGLE, CallCb, RematchCb
from bot.handlers.common import answer, author, in_own_chat, person
from bot.i18n import esc, popup
from bot.services.calls import CallService
from bot.services.errors import UserError
from bot.services.live import Registry
from bot.services.rematch import RematchService
from bot.services.replies import Replies
from bot.views.social import call_off_keyboard, call_toggled


async def on_call_me(
    message: Message, i18n: I18nContext, calls: CallService, registry: Registry, replies: Replies
) -> None:
    """``/call_me`` in a group: the calls on, or off again. Only a person can
    be called: an anonymous admin or a channel is asked to write as themselves."""
    who = author(message)
    if who is None:
        raise UserError("err-write-as-yourself")
    on, reachable = await calls.toggle(message.chat.id, who)
    bot = registry.ctx.bot_username
    text = call_toggled(i18n.get, on, reachable, message.chat.title or "", bot)
    await answer(message, replies, text, passing=True)


async def on_call_me_private(message: Message, i18n: I18nContext, replies: Replies) -> None:
    await answer(message, replies, i18n.get("call-in-group"))


async def on_member_left(message: Message, calls: CallService) -> None:
    """Someone left the group (or was removed): no more calls to its tables."""
    gone = message.left_chat_member
    if gone is not None and not gone.is_bot:
        await calls.turn_off(message.chat.id, gone.id)


async def on_call_press(
    cb: CallbackQuery,
    callback_data: CallCb,
    i18n: I18nContext,
    calls: CallService,
    registry: Registry,
    replies: Replies,
) -> None:
    """The button under a final result (in the group), or a call's own buttons
    (in the presser's private chat only)."""
    if cb.message is None:
        raise UserError("err-stale")
    chat = cb.message.chat
    who = person(cb.from_user)
    op, chat_id = callback_data.op, callback_data.c
    if op == CALL_TOGGLE:
        if chat.id != chat_id or chat.type not in ("group", "supergroup"):
            raise UserError("err-stale")
        on, reachable = await calls.toggle(chat_id, who)
        bot = registry.ctx.bot_username
        text = call_toggled(i18n.get, on, reachable, chat.title or "", bot)
        await cb.answer(popup(text), show_alert=True)
        return
    if not in_own_chat(cb):
        raise UserError("err-stale")
    if op == CALL_OFF:
        await calls.turn_off(chat_id, who.user_id)
        await replies.edit(chat.id, cb.message.message_id, i18n.get("call-off-private"))
        await cb.answer()
    elif op == CALL_SIT:
        seated = await calls.sit(chat_id, callback_data.t, who)
        if isinstance(seated, str):  # the bot must be started first
            await cb.answer(url=seated)
            return
        text = i18n.get("call-sat", group=esc(seated.chat_title))
        keyboard = call_off_keyboard(i18n.get, chat_id)
        await replies.edit(chat.id, cb.message.message_id, text, keyboard)
        await cb.answer(popup(text))
    else:
        raise UserError("err-stale")


async def on_rematch(
    cb: CallbackQuery, callback_data: RematchCb, i18n: I18nContext, rematch: RematchService
) -> None:
    """Under a final result in the group: the same table again."""
    if cb.message is None or cb.message.chat.type not in ("group", "supergroup"):
        raise UserError("err-stale")
    await rematch.rematch(callback_data.t, cb.message.chat.id, person(cb.from_user))
    await cb.answer(popup(i18n.get("rematch-opened")))


def build() -> Router:
    """A fresh router: each App (and each test) gets its own."""
    router = Router(name="social")
    router.message.register(
        on_call_me, Command("call_me"), F.chat.type.in_({"group", "supergroup"})
    )
    router.message.register(on_call_me_private, Command("call_me"), F.chat.type == "private")
    router.message.register(on_member_left, F.left_chat_member)
    router.callback_query.register(on_call_press, CallCb.filter())
    router.callback_query.register(on_rematch, RematchCb.filter())
    return router
