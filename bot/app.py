"""Builds the bot: Bot, Dispatcher, routers, i18n, the outbox and the services.

``App`` is what ``python -m bot`` runs and what the end-to-end tests start
against the fake Bot API: the same code path in both. What it starts and
stops is in modules of their own: :mod:`bot.startup` (calls retried until
Telegram answers, then the database), :mod:`bot.commands` (the menus, from
the handlers), :mod:`bot.serving` (polling or the webhook), :mod:`bot.lifetime`
(the background tasks and the stop).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields

from aiogram import Bot, Dispatcher
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.types import CallbackQuery, Message
from aiogram_i18n import I18nMiddleware

from bot.clock import Clock, SystemClock
from bot.commands import menu_commands, set_menus
from bot.config import Settings
from bot.handlers import routers
from bot.handlers.common import is_admin
from bot.i18n import Texts, UserLocaleManager, make_core
from bot.lifetime import Lifetime
from bot.middlewares import InFlight, InlinePace, OwnButtons, Throttle
from bot.outbox import Outbox
from bot.services.live import Ctx
from bot.services.wiring import build_services
from bot.serving import poll, serve_webhook
from bot.startup import connect
from bot.webapp.server import TableApp

#: Inline queries one person gets answered as they come, per window of seconds
#: (a person typing sends one a key press; see ``InlinePace``).
INLINE_LIMIT = 8
INLINE_WINDOW = 2.0


class App:
    """The bot: :meth:`setup` builds it, :meth:`run` runs it until cancelled."""

    def __init__(
        self,
        settings: Settings,
        chooser: Callable[..., int] | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.settings = settings
        self._chooser = chooser
        self.clock: Clock = clock or SystemClock()
        self.lifetime = Lifetime()

    async def setup(self) -> None:
        """The Bot, the texts, the database, the outbox, the services, and the
        dispatcher with its routers, middlewares and the services handlers get."""
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
        me, self.db = await connect(self.bot, s.database_path)
        # The services are built below; the outbox reaches them when Telegram
        # refuses a chat (403) or moves it to a supergroup.
        self.outbox = Outbox(
            self.db,
            self.bot,
            s,
            on_forbidden=lambda chat, why, at: self.services.play.on_forbidden(chat, why, at),
            on_migrated=lambda old, new: self.services.groups.after_migration(old, new),
            request_timeout=30,
            on_topic_gone=lambda chat, thread, deleted: self.services.groups.topic_gone(
                chat, thread, deleted
            ),
        )
        bot = self.bot
        ctx = Ctx(self.db, texts, self.outbox, s, me.username or "", self.clock)
        services = build_services(
            ctx, bot, lambda chat, user: is_admin(bot, chat, user), self._chooser
        )
        self.services = services
        # The Mini App (WEBAPP_URL): its hub listens to the tables' lock releases.
        # The group's members may watch its tables (Telegram says who they are).
        self.webapp = (
            TableApp(
                s,
                services.registry,
                services.play,
                services.claims,
                texts,
                self.clock,
                services.members,
            )
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
        if s.press_limit > 0:
            dp.callback_query.outer_middleware(
                Throttle(s.press_limit, s.press_window, CallbackQuery)
            )
        if s.command_limit > 0:
            dp.message.outer_middleware(
                Throttle(s.command_limit, s.command_window, Message, services.replies)
            )
        dp.callback_query.outer_middleware(OwnButtons())
        dp.inline_query.outer_middleware(InlinePace(INLINE_LIMIT, INLINE_WINDOW, self.clock))
        for field in fields(services):  # what handlers ask for by name
            dp[field.name] = getattr(services, field.name)
        self.dp = dp

    async def run(self) -> None:
        """Take updates (long polling, or a webhook when WEBHOOK_URL is set) until
        cancelled; the outbox, the timers and the computer seats run alongside."""
        await self.setup()
        s = self.settings
        try:
            self.lifetime.sending(self.outbox)
            # The menu is a convenience: a flood wait on it must not hold up the game.
            menus = set_menus(self.bot, menu_commands([self.dp]), self.texts, s.default_lang)
            self.lifetime.background(menus)
            await self.services.timers.credit_downtime()
            await self.services.play.resume_all()
            self.services.charts.wake()  # charts owed from before a restart
            self.lifetime.background(self.services.timers.run())
            if s.webhook_url:
                await serve_webhook(self.dp, self.bot, s, self.webapp)
            else:
                await poll(self.dp, self.bot, self.db, s, self.webapp)
        finally:
            await self.shutdown()

    async def stop_work(self) -> None:
        """Stop all that handles updates or writes texts, once (:mod:`bot.lifetime`).

        The first of the dispatcher's shutdown hooks, so it runs before
        aiogram-i18n's empties the locales; :meth:`shutdown` waits for the
        same stop before closing the database.
        """
        await self.lifetime.stop(
            self.in_flight, self._stop_players, self.outbox, self.services.timers.beat
        )

    async def _stop_players(self) -> None:
        await self.services.day.plays.stop()  # its computers think in play's pool
        await self.services.play.stop()
        await self.services.charts.stop()

    async def shutdown(self) -> None:
        await self.stop_work()  # done already when the dispatcher shut down
        await self.db.close()
        await self.bot.session.close()
