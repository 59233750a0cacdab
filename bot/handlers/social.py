"""«Call me to the next game» (``/call_me`` and its buttons) and «Ещё партию»."""

from __future__ import annotations

from aiogram import F, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, Message, Update
from aiogram_i18n import I18nContext

from bot.callbacks import CALL_OFF, CALL_SIT, CALL_TOGGLE, CallCb, CallOffCb, RematchCb
from bot.commands import GROUP, menu
from bot.handlers.common import answer, author, in_own_chat, person
from bot.i18n import esc, popup
from bot.services.calls import CallService
from bot.services.errors import UserError
from bot.services.live import Registry
from bot.services.membership import Members
from bot.services.rematch import RematchService
from bot.services.replies import Replies
from bot.services.seats import SeatService
from bot.views.keyboard import Keyboard, button, keyboard
from bot.views.social import call_off_keyboard, call_toggled, call_word

GROUPS = ("group", "supergroup")


def off_button(text: str, chat_id: int, user_id: int) -> Keyboard:
    """🔕 under the answer to ``/call_me``: for the person who asked alone."""
    return keyboard([[button(text, CallOffCb.packed(c=chat_id, u=user_id))]])


async def on_call_me(
    message: Message,
    command: CommandObject,
    event_update: Update,
    i18n: I18nContext,
    calls: CallService,
    registry: Registry,
    replies: Replies,
) -> None:
    """``/call_me`` in a group: the calls on, or off again (``/call_me off``:
    off, ``/call_me on``: on, whatever they were). Only a person can be
    called: an anonymous admin or a channel is asked to write as themselves."""
    who = author(message)
    if who is None:
        raise UserError("err-write-as-yourself")
    word = (command.args or "").strip().lower()
    asked = call_word(registry.ctx.texts, word) if word else None
    if word and asked is None:
        raise UserError("err-call-args")
    chat = message.chat
    if asked is False:
        await calls.turn_off(chat.id, who.user_id)
        on, reachable = False, True
    elif asked:
        _, reachable = await calls.subscribe(chat.id, who)
        on = True
    else:
        on, reachable = await calls.toggle(chat.id, who, event_update.update_id)
    bot = registry.ctx.bot_username
    text = call_toggled(i18n.get, on, reachable, chat.title or "", bot)
    markup = off_button(i18n.get("btn-call-off"), chat.id, who.user_id) if on else None
    await answer(message, replies, text, markup, passing=True)


async def on_call_me_private(message: Message, i18n: I18nContext, replies: Replies) -> None:
    await answer(message, replies, i18n.get("call-in-group"))


async def on_member_left(message: Message, calls: CallService, members: Members) -> None:
    """Someone left the group (or was removed): no more calls to its tables,
    and what Telegram said of them there lately is no longer trusted."""
    gone = message.left_chat_member
    if gone is not None and not gone.is_bot:
        members.forget(message.chat.id, gone.id)
        await calls.turn_off(message.chat.id, gone.id)


async def on_member_joined(message: Message, members: Members) -> None:
    """Someone joined the group (or was added): a "not a member" Telegram
    said of them a moment ago would keep them from a seat; it is forgotten."""
    for joined in message.new_chat_members or ():
        if not joined.is_bot:
            members.forget(message.chat.id, joined.id)


async def on_call_press(
    cb: CallbackQuery,
    callback_data: CallCb,
    i18n: I18nContext,
    calls: CallService,
    seats: SeatService,
    registry: Registry,
    replies: Replies,
) -> None:
    """The 🔔 under a final result (in the group: the calls on, and pressed
    again they stay on), or a call's own buttons (in the presser's private
    chat only)."""
    if cb.message is None:
        raise UserError("err-stale")
    chat = cb.message.chat
    who = person(cb.from_user)
    op, chat_id = callback_data.op, callback_data.c
    if op == CALL_TOGGLE:
        if chat.id != chat_id or chat.type not in GROUPS:
            raise UserError("err-stale")
        added, reachable = await calls.subscribe(chat_id, who)
        bot = registry.ctx.bot_username
        if added:
            text = call_toggled(i18n.get, True, reachable, chat.title or "", bot)
        else:
            text = i18n.get("call-already", group=esc(chat.title or ""))
        await cb.answer(popup(text), show_alert=True)
        return
    if not in_own_chat(cb):
        raise UserError("err-stale")
    if op == CALL_OFF:
        await calls.turn_off(chat_id, who.user_id)
        await replies.edit(chat.id, cb.message.message_id, i18n.get("call-off-private"))
        await cb.answer()
    elif op == CALL_SIT:
        seated = await seats.join_from_call(chat_id, callback_data.t, who)
        if isinstance(seated, str):  # the bot must be started first
            await cb.answer(url=seated)
            return
        text = i18n.get("call-sat", group=esc(seated.chat_title))
        keyboard = call_off_keyboard(i18n.get, chat_id)
        await replies.edit(chat.id, cb.message.message_id, text, keyboard)
        await cb.answer(popup(text))
    else:
        raise UserError("err-stale")


async def on_call_off_press(
    cb: CallbackQuery,
    callback_data: CallOffCb,
    i18n: I18nContext,
    calls: CallService,
    replies: Replies,
) -> None:
    """🔕 under the answer to ``/call_me``: the calls of the person it
    answered off, pressed by that person in that group; anyone else is refused."""
    message = cb.message
    if message is None or message.chat.id != callback_data.c or message.chat.type not in GROUPS:
        raise UserError("err-stale")
    if cb.from_user.id != callback_data.u:
        raise UserError("err-call-not-yours")
    await calls.turn_off(callback_data.c, callback_data.u)
    text = call_toggled(i18n.get, False, True, message.chat.title or "", "")
    await replies.edit(message.chat.id, message.message_id, text)
    await cb.answer(popup(text))


async def on_rematch(
    cb: CallbackQuery, callback_data: RematchCb, i18n: I18nContext, rematch: RematchService
) -> None:
    """Under a final result, in the group or a player's own chat: the same
    table again (in its group either way)."""
    if cb.message is None:
        raise UserError("err-stale")
    if cb.message.chat.type == "private" and in_own_chat(cb):
        await rematch.rematch_from_private(callback_data.t, person(cb.from_user))
    elif cb.message.chat.type in GROUPS:
        await rematch.rematch(callback_data.t, cb.message.chat.id, person(cb.from_user))
    else:
        raise UserError("err-stale")
    await cb.answer(popup(i18n.get("rematch-opened")))


def build() -> Router:
    """A fresh router: each App (and each test) gets its own."""
    router = Router(name="social")
    router.message.register(
        on_call_me, Command("call_me"), F.chat.type.in_(set(GROUPS)), flags=menu(GROUP)
    )
    router.message.register(on_call_me_private, Command("call_me"), F.chat.type == "private")
    router.message.register(on_member_left, F.left_chat_member)
    router.message.register(on_member_joined, F.new_chat_members)
    router.callback_query.register(on_call_press, CallCb.filter())
    router.callback_query.register(on_call_off_press, CallOffCb.filter())
    router.callback_query.register(on_rematch, RematchCb.filter())
    return router
