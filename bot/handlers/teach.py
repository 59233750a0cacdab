"""Teaching: the 💡 in a hand, the option «Подсказки» on the settings screen,
and ``/review`` in the private chat."""

from __future__ import annotations

from aiogram import F, Router
from aiogram.filters import Command
from aiogram.types import CallbackQuery, Message
from aiogram_i18n import I18nContext

from bot.callbacks import HINTS, HintCb, TableCb
from bot.commands import PRIVATE, menu
from bot.handlers.common import answer, in_own_chat, person, pressed_in
from bot.i18n import popup
from bot.services.replies import Replies
from bot.services.tables import TableService
from bot.services.teach import TeachService
from bot.views.teach import hint_text, review_text


async def on_hint(
    cb: CallbackQuery, callback_data: HintCb, i18n: I18nContext, teach: TeachService
) -> None:
    """The master's choice in a pop-up: only the presser sees it."""
    found = await teach.hint(callback_data.t, cb.from_user.id, callback_data.s)
    await cb.answer(popup(hint_text(i18n.get, found)), show_alert=True)


async def on_hints_option(cb: CallbackQuery, callback_data: TableCb, tables: TableService) -> None:
    chat_id = pressed_in(cb)
    await tables.toggle_hints(callback_data.t, person(cb.from_user), chat_id)
    await cb.answer()


async def on_review(
    message: Message, i18n: I18nContext, teach: TeachService, replies: Replies
) -> None:
    assert message.from_user is not None
    review = await teach.review(message.from_user.id)
    await answer(message, replies, review_text(i18n.get, review))


async def on_review_in_group(message: Message, i18n: I18nContext, replies: Replies) -> None:
    await answer(message, replies, i18n.get("review-in-private"), passing=True)


def build() -> Router:
    """A fresh router: each App (and each test) gets its own. It must come
    before the buttons' router, whose last handler refuses unknown data."""
    router = Router(name="teach")
    # Hint data pressed anywhere but the presser's own private chat is forged.
    router.callback_query.register(on_hint, HintCb.filter(), in_own_chat)
    router.callback_query.register(on_hints_option, TableCb.filter(F.op == HINTS))
    router.message.register(
        on_review, Command("review"), F.chat.type == "private", flags=menu(PRIVATE)
    )
    router.message.register(
        on_review_in_group, Command("review"), F.chat.type.in_({"group", "supergroup"})
    )
    return router
