"""Quick lookup commands, in a group (its table) or in private (all one's games)."""

from __future__ import annotations

from aiogram import Router
from aiogram.enums import ChatType
from aiogram.filters import Command, CommandObject
from aiogram.types import Message
from aiogram_i18n import I18nContext

from bot.commands import GROUP, PRIVATE, menu
from bot.handlers.common import answer, author, place, subject
from bot.services.errors import UserError
from bot.services.lookups import LookupService
from bot.services.play import PlayService
from bot.services.replies import Replies
from bot.views.chart import chart_keyboard


async def on_lookup(
    message: Message,
    command: CommandObject,
    i18n: I18nContext,
    lookups: LookupService,
    replies: Replies,
) -> None:
    assert message.from_user is not None
    kind = command.command.lower()
    private = message.chat.type == ChatType.PRIVATE
    where = place(message)
    if private:
        text = await lookups.in_private(kind, message.from_user.id, i18n.locale)
    else:
        text = await lookups.in_chat(kind, where, i18n.locale)
    markup = None
    if kind == "sheet":
        tables = await lookups.sheet_charts(where, message.from_user.id, private)
        markup = chart_keyboard(i18n.get, tables) if tables else None
    await answer(message, replies, text, markup, passing=True, once=kind)


async def on_history(
    message: Message, i18n: I18nContext, lookups: LookupService, replies: Replies
) -> None:
    if message.chat.type == ChatType.PRIVATE:
        await answer(message, replies, i18n.get("history-in-group"), passing=True)
        return
    text = await lookups.history(place(message), i18n.locale)
    await answer(message, replies, text, passing=True, once="history")


async def on_stats(
    message: Message, i18n: I18nContext, lookups: LookupService, replies: Replies
) -> None:
    """About the person asked of; asked by the group or a channel, about the group."""
    user = subject(message)
    if user is None:
        text = await lookups.history(place(message), i18n.locale)
    else:
        text = await lookups.stats(user.id, user.first_name or "", i18n.locale)
    about = user.id if user is not None else 0
    await answer(message, replies, text, passing=True, once=f"stats:{about}")


async def on_back(message: Message, i18n: I18nContext, play: PlayService, replies: Replies) -> None:
    who = author(message)
    if who is None:
        raise UserError("err-write-as-yourself")
    count = await play.come_back(who.user_id)
    await answer(message, replies, i18n.get("back-done" if count else "err-not-away"), passing=True)


async def on_rules(
    message: Message, i18n: I18nContext, lookups: LookupService, replies: Replies
) -> None:
    text = await lookups.rules_in_chat(place(message), i18n.locale)
    await answer(message, replies, text, passing=True, once="rules")


def build() -> Router:
    """A fresh router: each App (and each test) gets its own."""
    router = Router(name="lookups")
    router.message.register(
        on_lookup, Command("score", "turn", "table", "info", "sheet"), flags=menu(GROUP, PRIVATE)
    )
    router.message.register(on_history, Command("history"), flags=menu(GROUP))
    router.message.register(on_stats, Command("stats"), flags=menu(GROUP, PRIVATE))
    router.message.register(on_back, Command("back"), flags=menu(GROUP, PRIVATE))
    router.message.register(on_rules, Command("rules"), flags=menu(GROUP))
    return router
