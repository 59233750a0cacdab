"""The club: profile, partners, Authority, the afterword, forgetting oneself."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command
from aiogram.types import CallbackQuery, Message
from aiogram_i18n import I18nContext

from bot.callbacks import ForgetCb, GestureCb
from bot.commands import GROUP, PRIVATE, menu
from bot.handlers.common import answer, author, in_own_chat, subject
from bot.i18n import popup
from bot.services.afterword import AfterwordService
from bot.services.club import PERMANENT_AFTER, ClubService
from bot.services.errors import UserError
from bot.services.replies import Replies
from bot.views.club import authority_text, partners_text, profile_text
from bot.views.keyboard import button, keyboard


async def on_profile(
    message: Message, i18n: I18nContext, club: ClubService, replies: Replies
) -> None:
    """About the person asked of; asked by the group or a channel, about the group."""
    user = subject(message)
    if user is None:
        text = authority_text(i18n.get, await club.authority_list(message.chat.id))
    else:
        text = profile_text(i18n.get, user.first_name or "", await club.profile(user.id))
    about = user.id if user is not None else 0
    await answer(message, replies, text, passing=True, once=f"profile:{about}")


async def on_partners(
    message: Message, i18n: I18nContext, club: ClubService, replies: Replies
) -> None:
    who = author(message)
    if who is None:
        text = authority_text(i18n.get, await club.authority_list(message.chat.id))
    else:
        text = partners_text(i18n.get, await club.partners(who.user_id), PERMANENT_AFTER)
    await answer(message, replies, text, passing=True, once="partners")


async def on_authority(
    message: Message, i18n: I18nContext, club: ClubService, replies: Replies
) -> None:
    if message.chat.type == "private":
        await answer(message, replies, i18n.get("authority-in-group"), passing=True)
        return
    text = authority_text(i18n.get, await club.authority_list(message.chat.id))
    await answer(message, replies, text, passing=True, once="authority")


async def on_forget(message: Message, i18n: I18nContext, replies: Replies) -> None:
    if author(message) is None:
        raise UserError("err-write-as-yourself")
    confirm = keyboard(
        [
            [
                button(i18n.get("btn-forget-yes"), ForgetCb.packed(yes=1)),
                button(i18n.get("btn-forget-no"), ForgetCb.packed(yes=0)),
            ]
        ]
    )
    await answer(message, replies, i18n.get("forget-confirm"), confirm)


async def on_forget_press(
    cb: CallbackQuery,
    callback_data: ForgetCb,
    i18n: I18nContext,
    club: ClubService,
    replies: Replies,
) -> None:
    if callback_data.yes:
        await club.forget(cb.from_user.id, cb.from_user.first_name or "", cb.from_user.username)
        text = i18n.get("forget-done")
    else:
        text = i18n.get("forget-kept")
    await cb.answer()
    if cb.message is not None:
        await replies.edit(cb.message.chat.id, cb.message.message_id, text)


async def on_gesture(
    cb: CallbackQuery, callback_data: GestureCb, i18n: I18nContext, afterword: AfterwordService
) -> None:
    key = await afterword.pick(callback_data.g, cb.from_user.id, callback_data.s, callback_data.k)
    await cb.answer(popup(i18n.get(key)) if key else None)


def build() -> Router:
    """A fresh router: each App (and each test) gets its own."""
    router = Router(name="club")
    router.message.register(on_profile, Command("profile"), flags=menu(GROUP, PRIVATE))
    router.message.register(on_partners, Command("partners"), flags=menu(GROUP, PRIVATE))
    router.message.register(on_authority, Command("authority"), flags=menu(GROUP))
    router.message.register(on_forget, Command("forget_me"), flags=menu(PRIVATE))
    router.callback_query.register(on_forget_press, ForgetCb.filter(), in_own_chat)
    router.callback_query.register(on_gesture, GestureCb.filter(), in_own_chat)
    return router
