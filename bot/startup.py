"""Starting while Telegram is busy or out of reach: the calls the bot cannot
start without are tried until Telegram answers, and the database is opened
only once Telegram has answered.

A restart during a flood wait (429), a Telegram outage (5xx, also a proxy's
HTML error page) or a network blip waits it out instead of exiting; a wrong
token still fails at once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from aiogram import Bot
from aiogram.exceptions import (
    ClientDecodeError,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
)
from aiogram.types import User

from bot.storage.db import Database
from bot.storage.migrations import apply_migrations

log = logging.getLogger(__name__)

T = TypeVar("T")

# Start-up calls retried while Telegram is busy or out of reach: 1 s, doubling, at most this.
START_RETRY_CAP = 60.0


async def until_done(what: str, call: Callable[[], Awaitable[T]]) -> T:
    """A call the bot cannot start without, tried until Telegram answers."""
    delay = 1.0
    while True:
        try:
            return await call()
        except TelegramRetryAfter as e:
            wait, level = float(e.retry_after), logging.WARNING
            reason = f"flood wait {e.retry_after} s"
        except (TelegramServerError, TelegramNetworkError, ClientDecodeError) as e:
            wait, delay = delay, min(delay * 2, START_RETRY_CAP)
            # Still failing at the longest wait: likely BOT_API_URL or the network, not a blip.
            level = logging.ERROR if wait >= START_RETRY_CAP else logging.WARNING
            reason = type(e).__name__
        log.log(level, "%s failed at start (%s); trying again in %.0f s", what, reason, wait)
        await asyncio.sleep(wait)


async def connect(bot: Bot, database_path: str | Path) -> tuple[User, Database]:
    """Who the bot is (``getMe``, until Telegram answers), then the database,
    opened and its schema brought up to date.

    Telegram first: a wrong token, or a stop while an outage is waited out,
    leaves nothing open but the HTTP session, which is closed too when the
    database cannot be had (another bot has it) or is newer than this code.
    """
    try:
        me = await until_done("getMe", bot.me)  # cached: polling asks again
        db = await Database.open(database_path)
        try:
            await apply_migrations(db)
        except BaseException:
            await db.close()  # a schema newer than this code: let go of it
            raise
    except BaseException:
        await bot.session.close()
        raise
    return me, db
