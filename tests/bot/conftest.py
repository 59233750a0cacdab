"""Fixtures the bot's tests share: its database, a clock the test moves, the
bot running in this process against ``fake`` (tests/conftest.py), and a bare
aiogram ``Bot`` for tests of one part without the whole App."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiogram import Bot
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from fake_telegram import FakeTelegram
from harness import InProcessBot, MakeBot, settings_for

from bot.clock import Clock, FakeClock
from bot.config import Settings
from bot.storage import Database
from bot.storage.migrations import apply_migrations


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """The bot's SQLite file, fresh for each test."""
    return tmp_path / "spades.db"


@pytest.fixture
async def db(db_path: Path) -> AsyncIterator[Database]:
    """The database opened (and migrated, as the app does at start) at ``db_path``."""
    database = await Database.open(db_path)
    await apply_migrations(database)
    yield database
    await database.close()


@pytest.fixture
def clock() -> FakeClock:
    """The bot's time, moved by the test (``clock.advance``) for deadlines and pings."""
    return FakeClock()


@pytest.fixture
async def make_bot(fake: FakeTelegram, db_path: Path) -> AsyncIterator[MakeBot]:
    """Starts the bot (the real App, polling) in this process against ``fake``:
    ``await make_bot(**changes)`` runs it with the tests' settings
    (``harness.settings_for``) on ``db_path``, ``changes`` applied;
    ``make_bot(settings)`` with settings made whole elsewhere. ``clock`` goes
    to ``InProcessBot``. It returns once the bot polls; whatever
    it started and the test did not stop is stopped at teardown (a stop that
    fails, fails the test)."""
    started: list[InProcessBot] = []

    async def make(
        settings: Settings | None = None,
        *,
        clock: Clock | None = None,
        **changes: Any,
    ) -> InProcessBot:
        if settings is None:
            settings = settings_for(fake, db_path, **changes)
        elif changes:
            raise TypeError("make_bot takes settings or changes to the tests' ones, not both")
        running = InProcessBot(settings, clock=clock)
        started.append(running)
        await running.start(fake)
        return running

    yield make
    failures: list[BaseException] = []
    for running in reversed(started):
        try:
            await running.stop()
        except BaseException as e:  # stop the others all the same
            failures.append(e)
    if failures:
        raise failures[0]


@pytest.fixture
async def running_bot(make_bot: MakeBot) -> InProcessBot:
    """The bot with the tests' settings, on the real clock."""
    return await make_bot()


@pytest.fixture
async def clocked_bot(make_bot: MakeBot, clock: FakeClock) -> InProcessBot:
    """The same bot on ``clock``."""
    return await make_bot(clock=clock)


@pytest.fixture
async def bot(fake: FakeTelegram) -> AsyncIterator[Bot]:
    """An aiogram Bot talking to ``fake``, for the outbox's tests."""
    session = AiohttpSession(api=TelegramAPIServer.from_base(fake.base_url))
    client = Bot(fake.token, session=session)
    yield client
    await session.close()


# Debian's chromium, headless; .ci/run installs it.
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture
async def browser(tmp_path: Path) -> AsyncIterator[Any]:
    """A fresh mobile chromium (Debian's, driven by Playwright) for the Mini
    App's browser tests; skipped with its reason where there is none."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing: apt-get install -y chromium (.ci/run does)")
    playwright_api = pytest.importorskip("playwright.async_api")
    async with playwright_api.async_playwright() as p:
        context = await p.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"),  # a fresh --user-data-dir
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 390, "height": 844},
            device_scale_factor=2,
            is_mobile=True,
            has_touch=True,
            locale="ru-RU",
        )
        try:
            yield context
        finally:
            await context.close()
