"""«Сдача дня»: ``/day`` in a group (its state; ``on``, ``off``, the hour) and
in private (one's own days), the link that starts the hand, its presses, and
the best line's record under the close."""

from __future__ import annotations

import re

from aiogram import F, Router
from aiogram.filters import Command, CommandObject, CommandStart
from aiogram.types import CallbackQuery, Message
from aiogram_i18n import I18nContext

from bot.callbacks import DayMoveCb, DayRecordCb, DayWhyCb
from bot.commands import GROUP, PRIVATE, menu
from bot.handlers.common import anonymous_admin, answer, author, in_own_chat, person, pressed_in
from bot.i18n import popup
from bot.services.day import DayService
from bot.services.day_play import UNAVAILABLE
from bot.services.errors import UserError
from bot.services.play import PlayService
from bot.services.replies import Replies
from bot.services.tables import TableService

#: ``day_<day>_<key>``: the day's own secret makes the link.
LINK = re.compile(r"^day_(\d{1,12})_([0-9a-f]{16})$")


async def on_day(
    message: Message,
    command: CommandObject,
    i18n: I18nContext,
    day: DayService,
    replies: Replies,
) -> None:
    if message.chat.type == "private":
        assert message.from_user is not None
        text = await day.own(message.from_user.id, i18n.locale)
        await answer(message, replies, text)
        return
    arg = (command.args or "").strip()
    if not arg:
        text = await day.group_state(message.chat.id, i18n.locale)
        await answer(message, replies, text, passing=True, once="day")
        return
    who = author(message)
    setting = await day.configure(
        message.chat.id,
        message.chat.title or "",
        0,
        i18n.locale,
        who.user_id if who else None,
        anonymous_admin(message),
        arg,
    )
    hour = f"{setting.minute // 60:02d}:{setting.minute % 60:02d}"
    await answer(message, replies, i18n.get("day-on" if setting.enabled else "day-off", hour=hour))


async def on_day_link(
    message: Message,
    command: CommandObject,
    i18n: I18nContext,
    day: DayService,
    tables: TableService,
    play: PlayService,
) -> None:
    """Start with ``day_<id>_<key>``: the day's hand in this private chat."""
    assert message.from_user is not None
    who = person(message.from_user)
    await tables.remember(who, started=True)
    await play.user_returned(who.user_id)
    match = LINK.match(command.args or "")
    if match is None:
        raise UserError(UNAVAILABLE)
    await day.plays.from_link(int(match[1]), match[2], who)


async def on_move(cb: CallbackQuery, callback_data: DayMoveCb, day: DayService) -> None:
    await day.plays.press(callback_data.d, cb.from_user.id, callback_data.s, callback_data.a)
    await cb.answer()


async def on_why(
    cb: CallbackQuery, callback_data: DayWhyCb, i18n: I18nContext, day: DayService
) -> None:
    key = await day.plays.why(callback_data.d, cb.from_user.id, callback_data.s, callback_data.a)
    await cb.answer(popup(i18n.get(key)))


async def on_record(
    cb: CallbackQuery, callback_data: DayRecordCb, i18n: I18nContext, day: DayService
) -> None:
    key = await day.best_record(callback_data.d, cb.from_user.id, pressed_in(cb), i18n.locale)
    await cb.answer(popup(i18n.get(key)))


def build() -> Router:
    """A fresh router: each App (and each test) gets its own. Before the
    private router, whose Start handles every other deep link."""
    router = Router(name="day")
    router.message.register(
        on_day_link,
        F.chat.type == "private",
        CommandStart(deep_link=True, magic=F.args.startswith("day_")),
    )
    router.message.register(on_day, Command("day"), flags=menu(GROUP, PRIVATE))
    router.callback_query.register(on_move, DayMoveCb.filter(), in_own_chat)
    router.callback_query.register(on_why, DayWhyCb.filter(), in_own_chat)
    router.callback_query.register(on_record, DayRecordCb.filter())
    return router
