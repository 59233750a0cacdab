"""One call to Telegram and what its answer means for the rows.

aiogram's exceptions are the outbox's decisions: ``TelegramRetryAfter``
pauses the chat (or everyone), ``TelegramMigrateToChat`` moves the chat's
rows and tells the services, ``TelegramForbiddenError`` gives up on the chat
and tells the services, ``TelegramBadRequest`` is sorted by Telegram's
description (:mod:`.errors`), ``TelegramEntityTooLarge`` fails the row,
``TelegramUnauthorizedError`` keeps every row pending, and anything else is
tried again with a growing pause (the sender's backoff).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable

from aiogram import Bot
from aiogram.exceptions import (
    ClientDecodeError,
    TelegramAPIError,
    TelegramBadRequest,
    TelegramEntityTooLarge,
    TelegramForbiddenError,
    TelegramMigrateToChat,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramUnauthorizedError,
)
from aiogram.methods import EditMessageText
from aiogram.types import Message

from bot.outbox import bookkeeping
from bot.outbox.calls import DELETE, PUT, Call, thread_of
from bot.outbox.errors import (
    is_delete_target_gone,
    is_edit_target_gone,
    is_not_modified,
    is_topic_deleted,
    is_topic_gone,
    is_unreachable,
)
from bot.outbox.pacer import Pacing
from bot.outbox.plans import Plan
from bot.outbox.stats import OutboxStats
from bot.storage.db import Database

log = logging.getLogger("bot.outbox")

#: ``(chat_id, description, sent_at)``: ``sent_at`` is the ``time.time()`` the
#: refused request went out, so a refusal older than the user's return can be told apart.
ForbiddenHandler = Callable[[int, str, float], Awaitable[None]]
MigratedHandler = Callable[[int, int], Awaitable[None]]
#: Told (chat, topic, deleted) when a forum topic refuses new messages.
TopicHandler = Callable[[int, int, bool], Awaitable[None]]
#: The sender's record of a plan gone out: ``(plan, message_id, forget)``.
Finish = Callable[[Plan, int | None, bool], Awaitable[None]]


class ChatMoved(Exception):
    """This chat's worker must end: its rows moved to another chat."""


class Delivery:
    """Makes a plan's call and records its outcome (each a short transaction);
    tells the services when a chat refuses the bot, moves, or loses a topic."""

    def __init__(
        self,
        db: Database,
        bot: Bot,
        stats: OutboxStats,
        pacing: Pacing,
        finish: Finish,
        wake: Callable[[], None],
        *,
        request_timeout: int | None,
        on_forbidden: ForbiddenHandler | None,
        on_migrated: MigratedHandler | None,
        on_topic_gone: TopicHandler | None,
    ) -> None:
        self._db = db
        self._bot = bot
        self._stats = stats
        self._pacing = pacing
        self._finish = finish
        self._wake = wake
        self._request_timeout = request_timeout
        self._on_forbidden = on_forbidden
        self._on_migrated = on_migrated
        self._on_topic_gone = on_topic_gone

    async def deliver(self, chat_id: int, plan: Plan, call: Call) -> bool:
        """Make the call and record its outcome; False means back off and retry.

        aiogram's exceptions decide: wait (429), move (a supergroup: raises
        :class:`ChatMoved`), give up on the chat (403), sort a 400 by its
        description, give up on the row (413), else try again later. Their
        descriptions are Telegram's (or aiohttp's, the token blanked out),
        never a message's text.
        """
        row = plan.target
        self._stats.api_calls += 1
        sent_at = time.time()
        try:
            result = await self._bot(call, request_timeout=self._request_timeout)
        except TelegramRetryAfter as exc:
            self._stats.flood_waits += 1
            log.warning("flood control in chat %s: waiting %s s", chat_id, exc.retry_after)
            self._pacing.flood(chat_id, exc.retry_after)
            return True
        except TelegramMigrateToChat as exc:
            await self.migrate(chat_id, exc.migrate_to_chat_id)
            raise ChatMoved from None
        except TelegramForbiddenError as exc:
            await self._forbidden(plan, exc.message, sent_at)
            return True
        except TelegramBadRequest as exc:
            return await self._bad_request(plan, exc.message, sent_at)
        except TelegramEntityTooLarge as exc:
            await self.fail(plan, exc.message)
            return True
        except TelegramUnauthorizedError as exc:
            # A wrong token: nothing to do but wait for someone to fix it.
            self._stats.retries += 1
            log.error("Telegram rejects the bot token (%s); outbox keeps rows pending", exc.message)
            await self._note_error(plan, exc.message)
            return False
        except (TelegramAPIError, ClientDecodeError) as exc:
            # 5xx, a network error or timeout (TelegramNetworkError), 404 (a
            # wrong API URL), 409, a 429 without retry_after, an answer that is
            # not Telegram's (a proxy's page: ClientDecodeError, whose text,
            # an echo of the message, stays out of the log).
            self._stats.retries += 1
            description = self._describe(exc)
            log.warning("outbox row %s to chat %s: %s; will retry", row.id, chat_id, description)
            await self._note_error(plan, description)
            return False

        if row.op == DELETE:
            self._stats.deletes += 1
            await self._finish(plan, None, True)
        elif isinstance(call, EditMessageText):
            self._stats.edits += 1
            await self._finish(plan, plan.message_id, False)
        else:
            self._stats.sends += 1
            message_id = result.message_id if isinstance(result, Message) else None
            await self._finish(plan, message_id, False)
        return True

    def _describe(self, exc: TelegramAPIError | ClientDecodeError) -> str:
        """What a failure to retry is noted as: Telegram's description or the
        network error's (the token blanked out); for an unreadable answer, only that."""
        if isinstance(exc, ClientDecodeError):
            return "the answer is not Telegram's"
        # (Telegram's answer may lack a description: {"ok": false}.)
        text = exc.message or type(exc).__name__
        if isinstance(exc, TelegramNetworkError):
            text = text.replace(self._bot.token, "<token>")
        return text

    async def _bad_request(self, plan: Plan, description: str, sent_at: float) -> bool:
        row = plan.target
        if row.op == PUT and plan.message_id is not None:
            if is_not_modified(description):
                self._stats.not_modified += 1
                await self._finish(plan, plan.message_id, False)
                return True
            if is_edit_target_gone(description):
                # Forget the lost message; the next attempt sends a new one.
                self._stats.resent += 1
                await self._db.run_tx(bookkeeping.forget_lost, row.key, plan.message_id)
                return True
        if row.op == DELETE and is_delete_target_gone(description):
            await self._finish(plan, None, True)
            return True
        if is_unreachable(description):
            await self._forbidden(plan, description, sent_at)
            return True
        thread = thread_of(row.payload)
        if thread and is_topic_gone(description):
            await self._topic_gone(plan, thread, description, sent_at)
            return True
        await self.fail(plan, description)
        return True

    async def _topic_gone(self, plan: Plan, thread: int, description: str, sent_at: float) -> None:
        """A forum topic refuses new messages (closed or deleted): its rows
        queued by then fail, the chat's others go on, and the services learn
        of it (the table there waits, as when the bot is removed)."""
        chat_id = plan.target.chat_id
        log.warning("topic %s of chat %s cannot be written to: %s", thread, chat_id, description)
        await self.fail(plan, description)
        self._stats.failed += await self._db.run_tx(
            bookkeeping.fail_topic, chat_id, thread, description, sent_at
        )
        if self._on_topic_gone is not None:
            try:
                await self._on_topic_gone(chat_id, thread, is_topic_deleted(description))
            except Exception:
                log.exception("on_topic_gone(%s, %s) failed", chat_id, thread)

    async def fail(self, plan: Plan, description: str) -> None:
        """The plan's row fails for good (a bad payload, a refusal that is final)."""
        row = plan.target
        self._stats.failed += 1
        log.error(
            "outbox row %s (%s to chat %s) failed for good: %s",
            row.id,
            row.op,
            row.chat_id,
            description,
        )
        await self._db.run_tx(bookkeeping.fail_rows, plan, description)

    async def _note_error(self, plan: Plan, description: str) -> None:
        await self._db.run_tx(bookkeeping.note_error, plan.target.id, description)

    async def _forbidden(self, plan: Plan, description: str, sent_at: float) -> None:
        """The chat refuses us: fail the rows it held when the request went out
        (they would all fail) and tell the service. Rows put since then stay:
        the user may have come back while the refusal was on its way."""
        chat_id = plan.target.chat_id
        self._stats.forbidden += 1
        log.warning("chat %s cannot be written to: %s", chat_id, description)
        self._stats.failed += await self._db.run_tx(
            bookkeeping.fail_chat, chat_id, description, sent_at
        )
        if self._on_forbidden is not None:
            try:
                await self._on_forbidden(chat_id, description, sent_at)
            except Exception:
                log.exception("on_forbidden(%s) failed", chat_id)

    async def migrate(self, old: int, new: int) -> None:
        """Move the outbox's own rows to the new chat id, then tell the services
        (``on_migrated``), whose data it is to move the rest."""
        self._stats.migrations += 1
        log.info("chat %s migrated to %s", old, new)
        await self._db.run_tx(bookkeeping.move_chat, old, new)
        if self._on_migrated is not None:
            try:
                await self._on_migrated(old, new)
            except Exception:
                log.exception("on_migrated(%s, %s) failed", old, new)
        self._wake()
