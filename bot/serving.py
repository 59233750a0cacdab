"""How updates come in: long polling through the inbox, or Telegram's
webhook (``WEBHOOK_URL``); the Mini App is served beside either. The
dispatcher's start and stop hooks run around both as aiogram's own polling
runs them, and its stop hook lets the updates being handled finish.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

from aiogram import Bot, Dispatcher
from aiogram.webhook.aiohttp_server import SimpleRequestHandler
from aiohttp import web

from bot.config import Settings, webhook_secret
from bot.polling import Poller
from bot.startup import until_done
from bot.storage.db import Database
from bot.webapp.server import TableApp

log = logging.getLogger(__name__)


@contextlib.asynccontextmanager
async def _dispatcher_running(dp: Dispatcher, bot: Bot) -> AsyncIterator[None]:
    """The dispatcher's start hooks, then its stop hooks however the body
    ends; a stop hook that fails is logged and the stop goes on (the
    database must still close)."""
    workflow: dict[str, Any] = {"dispatcher": dp, "bot": bot, **dp.workflow_data}
    await dp.emit_startup(**workflow)
    try:
        yield
    finally:
        try:
            await dp.emit_shutdown(**workflow)
        except Exception:
            log.exception("a shutdown hook failed while stopping")


async def poll(
    dp: Dispatcher, bot: Bot, db: Database, settings: Settings, webapp: TableApp | None
) -> None:
    """Long polling through the inbox (:mod:`bot.polling`) until cancelled.

    The stop hook (``App.stop_work``) lets the updates being handled finish
    before the poller cancels what is left.
    """
    # Telegram refuses getUpdates while a webhook is set (a previous run in
    # webhook mode); its queued updates stay.
    await until_done("deleteWebhook", lambda: bot.delete_webhook(drop_pending_updates=False))
    serving: contextlib.AbstractAsyncContextManager[None] = (
        webapp.serving(settings.webapp_listen, settings.webapp_port)
        if webapp is not None
        else contextlib.nullcontext()
    )
    async with serving:  # the Mini App's own server
        poller = Poller(dp, bot, db)
        try:
            async with _dispatcher_running(dp, bot):
                await poller.run()
        finally:
            await poller.stop()


async def serve_webhook(
    dp: Dispatcher, bot: Bot, settings: Settings, webapp: TableApp | None
) -> None:
    """Serve Telegram's POSTs until cancelled.

    Each update is handled before the answer goes back (not in the
    background): one the bot did not get through, because it was killed
    or was stopping, is not answered 200, and Telegram sends it again (a
    move sent twice loses cleanly on its sequence number).
    """
    s = settings
    url = s.webhook_url
    assert url, "webhook mode needs WEBHOOK_URL"
    secret = webhook_secret(s)
    handler = SimpleRequestHandler(dp, bot, handle_in_background=False, secret_token=secret)
    app = web.Application()
    # Not handler.register(): its shutdown hook closes the bot's HTTP
    # session, and the outbox still sends through it until the app's shutdown.
    app.router.add_post(urlsplit(url).path or "/", handler.handle)
    if webapp is not None:
        webapp.install(app)  # the Mini App on the same server
    async with _dispatcher_running(dp, bot):
        runner = web.AppRunner(app, access_log=None, shutdown_timeout=10)
        await runner.setup()
        try:
            await web.TCPSite(runner, s.webhook_listen, s.webhook_port).start()
            await until_done(
                "setWebhook",
                lambda: bot.set_webhook(
                    url,
                    secret_token=secret,
                    allowed_updates=dp.resolve_used_update_types(),
                    drop_pending_updates=False,
                ),
            )
            log.info("webhook mode: listening on %s:%s", s.webhook_listen, s.webhook_port)
            await asyncio.Event().wait()
        finally:
            await runner.cleanup()  # lets the updates being handled finish
