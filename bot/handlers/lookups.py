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
from bot.views.lookups import history_text, lookup_text, rules_text, stats_text


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
    found = await lookups.asked(kind, place(message), message.from_user.id, private)
    markup = chart_keyboard(i18n.get, found.charts) if found.charts else None
    text = lookup_text(i18n.get, found)
    await answer(message, replies, text, markup, passing=True, once=kind)


async def on_history(
    message: Message, i18n: I18nContext, lookups: LookupService, replies: Replies
) -> None:
    if message.chat.type == ChatType.PRIVATE:
        await answer(message, replies, i18n.get("history-in-group"), passing=True)
        return
    text = history_text(i18n.get, await lookups.history(place(message)))
    await answer(message, replies, text, passing=True, once="history")


async def on_stats(
    message: Message, i18n: I18nContext, lookups: LookupService, replies: Replies
) -> None:
    """About the person asked of; asked by the group or a channel, about the group."""
    user = subject(message)
    if user is None:
        text = history_text(i18n.get, await lookups.history(place(message)))
    else:
        text = stats_text(i18n.get, user.first_name or "", await lookups.stats(user.id))
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
    rules, hints = await lookups.rules_in_chat(place(message))
    text = rules_text(i18n.get, rules, hints)
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
