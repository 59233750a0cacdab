"""Inline mode: ``@бот …`` typed in any chat, and a result sent into it.

An answer to an inline query is no message to a chat: it goes to Telegram
at once (not through the outbox), and a query not answered within ~10 s is
refused by Telegram; pacing a person's queries is ``middlewares.InlinePace``.
"""

from __future__ import annotations

import logging

from aiogram import Router
from aiogram.exceptions import TelegramBadRequest
from aiogram.types import ChosenInlineResult, InlineQuery
from aiogram_i18n import I18nContext

from bot.services.inline import CACHE_SECONDS, InlineService

log = logging.getLogger(__name__)


async def on_inline_query(query: InlineQuery, i18n: I18nContext, inline: InlineService) -> None:
    who = query.from_user
    found = await inline.answer(who.id, who.first_name, query.query, i18n.locale)
    try:
        await query.answer(
            list(found.results),
            cache_time=CACHE_SECONDS,
            is_personal=True,
            button=found.button,
        )
    except TelegramBadRequest as e:  # too late (Telegram gave up on it), or refused
        log.warning("inline answer refused: %s", e.message)


async def on_chosen(chosen: ChosenInlineResult, inline: InlineService) -> None:
    inline.chosen(chosen.result_id)


def build() -> Router:
    """A fresh router: each App (and each test) gets its own."""
    router = Router(name="inline")
    router.inline_query.register(on_inline_query)
    router.chosen_inline_result.register(on_chosen)
    return router
