"""Builds the bot: Bot, Dispatcher, routers, i18n, the outbox and the services.

``App`` is what ``python -m bot`` runs and what the end-to-end tests start
against the fake Bot API: the same code path in both.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine
from functools import partial
from typing import Any, TypeVar
from urllib.parse import urlsplit

from aiogram import Bot, Dispatcher
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.exceptions import (
    ClientDecodeError,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
)
from aiogram.types import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    CallbackQuery,
    Message,
)
from aiogram.webhook.aiohttp_server import SimpleRequestHandler
from aiogram_i18n import I18nMiddleware
from aiohttp import web

from bot.clock import Clock, SystemClock
from bot.config import Settings, webhook_secret
from bot.handlers import routers
from bot.handlers.common import is_admin
from bot.i18n import SUPPORTED, Texts, UserLocaleManager, make_core
from bot.middlewares import InFlight, OwnButtons, Throttle
from bot.outbox import Outbox
from bot.polling import Poller
from bot.services.live import Ctx
from bot.services.wiring import build_services
from bot.storage.db import Database
from bot.storage.migrations import apply_migrations
from bot.tasks import cancel_and_wait
from bot.webapp.server import TableApp

log = logging.getLogger(__name__)

T = TypeVar("T")

# Start-up calls retried while Telegram is busy or out of reach: 1 s, doubling, at most this.
START_RETRY_CAP = 60.0
# At a stop, how long the updates being handled may take to finish, and until
# when after the signal the outbox may go on sending its queue (then calls
# already made get the outbox's shutdown_grace, and the database closes).
# Docker sends SIGKILL 10 s after SIGTERM; what was acknowledged is safe even
# then, the queue is sent at the next start.
DRAIN_SECONDS = 8.0
FLUSH_UNTIL_SECONDS = 4.0

GROUP_COMMANDS = (
    "newgame",
    "score",
    "turn",
    "table",
    "info",
    "sheet",
    "hand",
    "history",
    "stats",
    "profile",
    "partners",
    "authority",
    "rules",
    "back",
    "leave",
    "cancel",
    "help",
    "call_me",
)
PRIVATE_COMMANDS = (
    "start",
    "quiet",
    "score",
    "turn",
    "table",
    "info",
    "sheet",
    "stats",
    "profile",
    "partners",
    "back",
    "forget_me",
    "review",
    "help",
)


class App:
    def __init__(
        self,
        settings: Settings,
        chooser: Callable[..., int] | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.settings = settings
        self._chooser = chooser
        self.clock: Clock = clock or SystemClock()
        self._tasks: list[asyncio.Task[Any]] = []
        self._sending: asyncio.Task[None] | None = None  # the outbox, stopped last
        self._stopping: asyncio.Task[None] | None = None

    async def setup(self) -> None:
        s = self.settings
        session = AiohttpSession(api=TelegramAPIServer.from_base(s.bot_api_url), timeout=30)
        self.bot = Bot(
            token=s.bot_token.get_secret_value(),
            session=session,
            default=DefaultBotProperties(parse_mode="HTML"),
        )
        core = make_core(s.default_lang)
        await core.startup()
        texts = Texts(core)
        self.texts = texts
        # Telegram first, the database after: a wrong token or a stop while an
        # outage is waited out leaves nothing open but the HTTP session, which
        # is closed too when the database cannot be had (another bot has it).
        try:
            me = await until_done("getMe", self.bot.me)  # cached: polling asks again
            self.db = await Database.open(s.database_path)
            try:
                await apply_migrations(self.db)
            except BaseException:
                await self.db.close()  # a schema newer than this code: let go of it
                raise
        except BaseException:
            await self.bot.session.close()
            raise
        # The services are built below; the outbox reaches them when Telegram
        # refuses a chat (403) or moves it to a supergroup.
        self.outbox = Outbox(
            self.db,
            self.bot,
            s,
            on_forbidden=lambda chat, why, at: self.play.on_forbidden(chat, why, at),
            on_migrated=lambda old, new: self.groups.after_migration(old, new),
            request_timeout=30,
            on_topic_gone=lambda chat, thread, deleted: self.groups.topic_gone(
                chat, thread, deleted
            ),
        )
        bot = self.bot
        ctx = Ctx(self.db, texts, self.outbox, s, me.username or "", self.clock)
        services = build_services(
            ctx, bot, lambda chat, user: is_admin(bot, chat, user), self._chooser
        )
        self.services = services
        members = services.members
        self.registry, self.play, self.claims = services.registry, services.play, services.claims
        self.tables, self.seats, self.groups = services.tables, services.seats, services.groups
        self.calls, self.rematch, self.records = services.calls, services.rematch, services.records
        self.lookups, self.teach, self.club = services.lookups, services.teach, services.club
        self.afterword, self.charts = services.afterword, services.charts
        self.replies, self.timers = services.replies, services.timers
        # The Mini App (WEBAPP_URL): its hub listens to the tables' lock releases.
        # The group's members may watch its tables (Telegram says who they are).
        self.webapp = (
            TableApp(s, self.registry, self.play, self.claims, texts, self.clock, members)
            if s.webapp_url
            else None
        )
        # No handler keeps a conversation state (a game's state is in the
        # database), and aiogram's FSM would keep an in-memory record for
        # every (chat, person) it ever saw, never dropped, not even when the
        # person asks to be forgotten.
        dp = Dispatcher(disable_fsm=True)
        dp.include_routers(*routers())
        self.in_flight = InFlight()
        dp.update.outer_middleware(self.in_flight)  # first: it sees every update whole
        dp.shutdown.register(self.stop_work)  # before i18n's hook: texts still work
        i18n = I18nMiddleware(
            core=core, manager=UserLocaleManager(s.default_lang), default_locale=s.default_lang
        )
        i18n.setup(dispatcher=dp)
        # After i18n, so the toasts speak the user's language; mashing is
        # counted first, whatever the presses carry.
        replies = self.replies
        if s.press_limit > 0:
            dp.callback_query.outer_middleware(
                Throttle(s.press_limit, s.press_window, CallbackQuery)
            )
        if s.command_limit > 0:
            dp.message.outer_middleware(
                Throttle(s.command_limit, s.command_window, Message, replies)
            )
        dp.callback_query.outer_middleware(OwnButtons())
        dp["tables"] = self.tables
        dp["seats"] = self.seats
        dp["groups"] = self.groups
        dp["play"] = self.play
        dp["lookups"] = self.lookups
        dp["teach"] = self.teach
        dp["club"] = self.club
        dp["afterword"] = self.afterword
        dp["charts"] = self.charts
        dp["claims"] = self.claims
        dp["registry"] = self.registry
        dp["calls"] = self.calls
        dp["rematch"] = self.rematch
        dp["replies"] = replies
        dp["records"] = self.records
        dp["members"] = members
        self.dp = dp

    async def _set_commands(self) -> None:
        for lang in SUPPORTED:
            code = None if lang == self.settings.default_lang else lang
            for scope, names in (
                (BotCommandScopeAllGroupChats(), GROUP_COMMANDS),
                (BotCommandScopeAllPrivateChats(), PRIVATE_COMMANDS),
            ):
                commands = [
                    BotCommand(command=n, description=self.texts(lang, f"cmd-{n}")) for n in names
                ]
                await until_done(
                    "setMyCommands", partial(self.bot.set_my_commands, commands, scope, code)
                )

    async def run(self) -> None:
        """Take updates (long polling, or a webhook when WEBHOOK_URL is set) until
        cancelled; the outbox, the timers and the computer seats run alongside."""
        await self.setup()
        try:
            self._sending = self._background(self.outbox.run())
            # The menu is a convenience: a flood wait on it must not hold up the game.
            self._background(self._set_commands())
            await self.timers.credit_downtime()
            await self.play.resume_all()
            self.charts.wake()  # charts owed from before a restart
            self._background(self.timers.run())
            if self.settings.webhook_url:
                await self._serve_webhook(self.settings.webhook_url)
            else:
                # Telegram refuses getUpdates while a webhook is set (a
                # previous run in webhook mode); its queued updates stay.
                await until_done(
                    "deleteWebhook", lambda: self.bot.delete_webhook(drop_pending_updates=False)
                )
                async with self._webapp_alone():
                    await self._poll()
        finally:
            await self.shutdown()

    def _webapp_alone(self) -> contextlib.AbstractAsyncContextManager[None]:
        """Polling mode: the Mini App's own server (none without WEBAPP_URL)."""
        if self.webapp is None:
            return contextlib.nullcontext()
        return self.webapp.serving(self.settings.webapp_listen, self.settings.webapp_port)

    def _background(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """A task that lives as long as the bot; its crash is logged at once, not
        found at the stop (a dead deadline loop would end every timeout quietly)."""
        task = asyncio.create_task(work)
        task.add_done_callback(_report_crash)
        self._tasks.append(task)
        return task

    async def _poll(self) -> None:
        """Long polling through the inbox (:mod:`bot.polling`) until cancelled.

        The dispatcher's start and stop hooks run around it as aiogram's own
        polling runs them; the stop (:meth:`stop_work`) lets the updates being
        handled finish before the poller cancels what is left.
        """
        workflow = {"dispatcher": self.dp, "bot": self.bot, **self.dp.workflow_data}
        poller = Poller(self.dp, self.bot, self.db)
        await self.dp.emit_startup(**workflow)
        try:
            await poller.run()
        finally:
            try:
                await self._emit_shutdown(workflow)
            finally:
                await poller.stop()

    async def _emit_shutdown(self, workflow: dict[str, Any]) -> None:
        """The dispatcher's stop hooks; one that fails is logged, the stop goes on
        (the database must still close)."""
        try:
            await self.dp.emit_shutdown(**workflow)
        except Exception:
            log.exception("a shutdown hook failed while stopping")

    async def _serve_webhook(self, url: str) -> None:
        """Serve Telegram's POSTs until cancelled.

        Each update is handled before the answer goes back (not in the
        background): one the bot did not get through, because it was killed
        or was stopping, is not answered 200, and Telegram sends it again (a
        move sent twice loses cleanly on its sequence number).
        """
        s = self.settings
        secret = webhook_secret(s)
        handler = SimpleRequestHandler(
            self.dp, self.bot, handle_in_background=False, secret_token=secret
        )
        app = web.Application()
        # Not handler.register(): its shutdown hook closes the bot's HTTP
        # session, and the outbox still sends through it until shutdown().
        app.router.add_post(urlsplit(url).path or "/", handler.handle)
        if self.webapp is not None:
            self.webapp.install(app)  # the Mini App on the same server
        workflow = {"dispatcher": self.dp, "bot": self.bot, **self.dp.workflow_data}
        await self.dp.emit_startup(**workflow)
        runner = web.AppRunner(app, access_log=None, shutdown_timeout=10)
        await runner.setup()
        try:
            await web.TCPSite(runner, s.webhook_listen, s.webhook_port).start()
            await until_done(
                "setWebhook",
                lambda: self.bot.set_webhook(
                    url,
                    secret_token=secret,
                    allowed_updates=self.dp.resolve_used_update_types(),
                    drop_pending_updates=False,
                ),
            )
            log.info("webhook mode: listening on %s:%s", s.webhook_listen, s.webhook_port)
            await asyncio.Event().wait()
        finally:
            await runner.cleanup()  # lets the updates being handled finish
            await self._emit_shutdown(workflow)

    async def stop_work(self) -> None:
        """Stop all that handles updates or writes texts, once.

        The first of the dispatcher's shutdown hooks, so it runs before
        aiogram-i18n's empties the locales. No new update comes in by then;
        those being handled finish first, with the outbox and the database
        still there for them (Telegram was told they arrived). One task, so a
        second signal that cuts the hook short does not cut the stop short:
        :meth:`shutdown` waits for the same task before closing the database.
        """
        if self._stopping is None:
            self._stopping = asyncio.create_task(self._stop_work())
        await asyncio.shield(self._stopping)

    async def _stop_work(self) -> None:
        # Each step runs whatever the one before did: a stop must get to the end.
        loop = asyncio.get_running_loop()
        flush_until = loop.time() + FLUSH_UNTIL_SECONDS
        try:
            left = await self.in_flight.drain(DRAIN_SECONDS)
            if left:
                log.warning(
                    "stopped %d updates still being handled after %.0f s", left, DRAIN_SECONDS
                )
        except Exception:
            log.exception("waiting for the updates being handled failed")
        try:
            await self.play.stop()
            await self.charts.stop()
        except Exception:
            log.exception("stopping the computer players failed")
        # Nothing queues messages now but the outbox's own bookkeeping: what
        # was queued goes out before the stop, not minutes later at the next start.
        await cancel_and_wait(t for t in self._tasks if t is not self._sending)
        await self._flush(flush_until - loop.time())
        await cancel_and_wait(self._tasks)
        self._tasks.clear()
        with contextlib.suppress(Exception):
            await self.timers.beat()

    async def _flush(self, seconds: float) -> None:
        """Let the outbox send what is queued, for at most ``seconds`` (a flood
        wait or an outage leaves the rest queued for the next start)."""
        if self._sending is None or self._sending.done() or seconds <= 0:
            return
        try:
            # Bounded here too: drain's own clock stops while its read waits
            # behind a write held up by another process's lock.
            async with asyncio.timeout(seconds):
                await self.outbox.drain(seconds)
        except TimeoutError:
            log.info("stopping with messages still queued; they go out at the next start")
        except Exception:
            log.exception("sending the queued messages at the stop failed")

    async def shutdown(self) -> None:
        await self.stop_work()  # done already when the dispatcher shut down
        await self.db.close()
        await self.bot.session.close()


def _report_crash(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error(
            "background task %s stopped with an error", task.get_coro(), exc_info=task.exception()
        )


async def until_done(what: str, call: Callable[[], Awaitable[T]]) -> T:
    """A call the bot cannot start without, tried until Telegram answers.

    A restart during a flood wait (429), a Telegram outage (5xx, also a
    proxy's HTML error page) or a network blip waits it out instead of
    exiting; a wrong token still fails at once.
    """
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
