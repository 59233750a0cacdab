"""The private chat: Start (also the deep link that seats a player), help."""

from __future__ import annotations

import re

from aiogram import F, Router
from aiogram.filters import Command, CommandObject, CommandStart
from aiogram.types import Message
from aiogram_i18n import I18nContext

from bot.commands import PRIVATE, menu
from bot.handlers.common import answer, person
from bot.i18n import esc
from bot.services.errors import UserError
from bot.services.play import PlayService
from bot.services.replies import Replies
from bot.services.seats import UNAVAILABLE, SeatService
from bot.services.tables import TableService

#: ``join_<table>_<seat>_<key>``: the table's secret key (bot/storage/repo_tables.py)
#: makes the link; an older link without it, or anything else, is refused.
JOIN = re.compile(r"^join_(\d{1,12})_(\d)_([0-9a-f]{16})$")


async def on_start(
    message: Message,
    command: CommandObject,
    i18n: I18nContext,
    tables: TableService,
    seats: SeatService,
    play: PlayService,
    replies: Replies,
) -> None:
    assert message.from_user is not None
    who = person(message.from_user)
    await tables.remember(who, started=True)
    await play.user_returned(who.user_id)
    args = command.args or ""
    if args.startswith("join_"):
        match = JOIN.match(args)
        if match is None:
            raise UserError(UNAVAILABLE)
        live = await seats.join_from_link(int(match[1]), int(match[2]), match[3], who)
        await answer(message, replies, i18n.get("joined", group=esc(live.chat_title)))
        return
    await answer(message, replies, i18n.get("welcome", name=esc(who.first_name)))


async def on_quiet(
    message: Message, i18n: I18nContext, tables: TableService, replies: Replies
) -> None:
    assert message.from_user is not None
    await tables.remember(person(message.from_user), started=True)
    quiet = await tables.toggle_quiet(message.from_user.id)
    await answer(message, replies, i18n.get("quiet-on" if quiet else "quiet-off"))


async def on_help(message: Message, i18n: I18nContext, replies: Replies) -> None:
    await answer(message, replies, i18n.get("help"))


async def on_newgame_private(message: Message, i18n: I18nContext, replies: Replies) -> None:
    await answer(message, replies, i18n.get("newgame-in-group"))


def build() -> Router:
    """A fresh router: each App (and each test) gets its own."""
    router = Router(name="private")
    router.message.filter(F.chat.type == "private")
    router.message.register(on_start, CommandStart(), flags=menu(PRIVATE))
    router.message.register(on_quiet, Command("quiet"), flags=menu(PRIVATE))
    router.message.register(on_help, Command("help"), flags=menu(PRIVATE))
    router.message.register(on_newgame_private, Command("newgame"))
    return router
