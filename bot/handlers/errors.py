"""One place that turns refusals into short messages and keeps the bot alive."""

from __future__ import annotations

import logging

from aiogram import Router
from aiogram.exceptions import (
    ClientDecodeError,
    TelegramAPIError,
    TelegramBadRequest,
    TelegramNetworkError,
)
from aiogram.filters import ExceptionTypeFilter
from aiogram.types import ErrorEvent
from aiogram_i18n import I18nContext

from bot.handlers.common import answer
from bot.i18n import popup
from bot.services.errors import UserError
from bot.services.replies import Replies

log = logging.getLogger(__name__)

# Refusals that are routine (a double press) show as a passing toast, not a pop-up.
TOASTS = {"err-stale", "err-move-made"}


async def on_user_error(event: ErrorEvent, i18n: I18nContext, replies: Replies) -> None:
    err = event.exception
    assert isinstance(err, UserError)
    text = i18n.get(err.key, **err.args_)
    cb = event.update.callback_query
    try:
        if cb is not None:
            await cb.answer(popup(text), show_alert=err.key not in TOASTS)
        elif event.update.message is not None:
            await answer(event.update.message, replies, text, passing=True)
    except (TelegramAPIError, TelegramNetworkError) as exc:
        # Nothing changed, so nothing is lost: e.g. a press handled after a
        # restart, whose query Telegram no longer takes answers for. A press in
        # the private chat (a move) is then told there, so nobody waits for a
        # move that did not go through.
        log.warning("could not tell update %s its refusal: %r", event.update.update_id, exc)
        if cb is not None and cb.message is not None and cb.message.chat.id == cb.from_user.id:
            await replies.reply(cb.from_user.id, None, i18n.get("err-press-late", reason=text))


async def on_telegram_error(event: ErrorEvent) -> None:
    """Telegram failed us after the work was done (e.g. answering the press of
    a move already committed): the outcome shows in the chat anyway, so no
    "something went wrong" that would suggest the move was lost."""
    exc = event.exception
    level = logging.ERROR if isinstance(exc, TelegramBadRequest) else logging.WARNING
    if isinstance(exc, TelegramBadRequest) and "query is too old" in exc.message:
        level = logging.WARNING  # a press handled after a restart: too late to answer it
    log.log(level, "Telegram call failed in update %s: %r", event.update.update_id, exc)


async def on_any_error(event: ErrorEvent, i18n: I18nContext, replies: Replies) -> None:
    # The exception text may mention cards; log its type and where, not its words.
    log.error(
        "unhandled %s in update %s",
        type(event.exception).__name__,
        event.update.update_id,
        exc_info=(type(event.exception), event.exception, event.exception.__traceback__),
    )
    try:
        text = i18n.get("err-generic")
        if event.update.callback_query is not None:
            await event.update.callback_query.answer(popup(text), show_alert=True)
        elif event.update.message is not None:
            await answer(event.update.message, replies, text, passing=True)
    except Exception:
        log.warning("could not tell the user about the error")


def build() -> Router:
    """A fresh router: each App (and each test) gets its own."""
    router = Router(name="errors")
    router.errors.register(on_user_error, ExceptionTypeFilter(UserError))
    router.errors.register(
        on_telegram_error,
        ExceptionTypeFilter(TelegramAPIError, TelegramNetworkError, ClientDecodeError),
    )
    router.errors.register(on_any_error)
    return router
