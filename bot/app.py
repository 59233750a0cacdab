"""Builds the bot: Bot, Dispatcher, routers, i18n, the outbox and the services.

``App`` is what ``python -m bot`` runs and what the end-to-end tests start
against the fake Bot API: the same code path in both. What it starts and
stops is in modules of their own: :mod:`bot.startup` (calls retried until
Telegram answers, then the database), :mod:`bot.commands` (the menus, from
the handlers), :mod:`bot.serving` (polling or the webhook), :mod:`bot.lifetime`
(the background tasks and the stop).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial

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
from bot.middlewares import InFlight, OwnButtons, Throttle
from bot.outbox import Outbox
from bot.services.afterword import AfterwordService
from bot.services.calls import CallService
from bot.services.charts import ChartService
from bot.services.claims import ClaimService, ClaimVotes
from bot.services.club import ClubService, record_partners
from bot.services.group_events import GroupEvents
from bot.services.live import Ctx, Registry
from bot.services.lookups import LookupService
from bot.services.membership import Members, ask_telegram
from bot.services.play import PlayService
from bot.services.record import RecordService
from bot.services.rematch import RematchService
from bot.services.replies import Replies
from bot.services.seats import SeatService
from bot.services.tables import TableService
from bot.services.teach import TeachService
from bot.services.timers import Timers
from bot.serving import poll, serve_webhook
from bot.startup import connect
from bot.webapp.server import TableApp


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
            on_forbidden=lambda chat, why, at: self.play.on_forbidden(chat, why, at),
            on_migrated=lambda old, new: self.groups.after_migration(old, new),
            request_timeout=30,
            on_topic_gone=lambda chat, thread, deleted: self.groups.topic_gone(
                chat, thread, deleted
            ),
        )
        ctx = Ctx(self.db, texts, self.outbox, s, me.username or "", self.clock)
        self.registry = Registry(ctx)
        self.charts = ChartService(self.registry)
        # Set by whatever may bring the next deadline closer.
        deadlines = asyncio.Event()

        def changed() -> None:
            """After every committed change: the sender, the deadlines, the charts."""
            self.outbox.wake()
            deadlines.set()
            self.charts.wake()

        self.afterword = AfterwordService(self.registry, changed)
        # A claim's vote ended without a press (its deadline, a voter out of
        # reach) needs only the registry: the play service is built with it.
        votes = ClaimVotes(self.registry)
        # Inside the transaction that ends a game: the partners' record, then
        # the afterword, then the chart owed to the group.
        self.play = PlayService(
            self.registry,
            self._chooser,
            votes=votes,
            on_change=changed,
            finish_hooks=(
                partial(record_partners, self.registry),
                self.afterword.open,
                self.charts.game_over,
            ),
        )
        bot = self.bot
        # Who is in a group now, as Telegram says: for every seat, the rematch
        # and the Mini App's watchers (one cache, one quota per person).
        members = Members(partial(ask_telegram, bot), self.clock.now)
        # «Call me»: opening a table calls its group's subscribers, in its transaction.
        self.calls = CallService(self.registry)
        self.tables = TableService(
            self.registry,
            self.play,
            lambda chat, user: is_admin(bot, chat, user),
            on_open=self.calls.on_open,
        )
        self.seats = SeatService(self.tables, members)
        self.groups = GroupEvents(self.tables)
        self.lookups = LookupService(self.registry)
        self.rematch = RematchService(self.registry, self.tables, members)
        self.records = RecordService(self.registry)
        self.teach = TeachService(self.registry, self.play)
        self.club = ClubService(self.registry, self.play, self.afterword)
        self.claims = ClaimService(self.registry, self.play, votes)
        self.replies = Replies(self.registry, on_expiring=deadlines.set)
        self.timers = Timers(self.registry, self.play, self.afterword, self.replies, deadlines)
        # The Mini App (WEBAPP_URL): its hub listens to the tables' lock releases.
        # The group's members may watch its tables (Telegram says who they are).
        self.webapp = (
            TableApp(
                s,
                self.registry,
                self.play,
                self.claims,
                texts,
                self.clock,
                members,
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
            await self.timers.credit_downtime()
            await self.play.resume_all()
            self.charts.wake()  # charts owed from before a restart
            self.lifetime.background(self.timers.run())
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
        await self.lifetime.stop(self.in_flight, self._stop_players, self.outbox, self.timers.beat)

    async def _stop_players(self) -> None:
        await self.play.stop()
        await self.charts.stop()

    async def shutdown(self) -> None:
        await self.stop_work()  # done already when the dispatcher shut down
        await self.db.close()
        await self.bot.session.close()
