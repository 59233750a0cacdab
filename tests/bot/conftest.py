"""Fixtures the bot's tests share: its database, a clock the test moves, the
bot running in this process against ``fake`` (tests/conftest.py), and a bare
aiogram ``Bot`` for tests of one part without the whole App."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiogram import Bot
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from fake_telegram import FakeTelegram
from harness import InProcessBot, settings_for

from bot.clock import FakeClock
from bot.storage import Database


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """The bot's SQLite file, fresh for each test."""
    return tmp_path / "spades.db"


@pytest.fixture
async def db(db_path: Path) -> AsyncIterator[Database]:
    """The database opened (and migrated) at ``db_path``."""
    database = await Database.open(db_path)
    yield database
    await database.close()


@pytest.fixture
def clock() -> FakeClock:
    """The bot's time, moved by the test (``clock.advance``) for deadlines and pings."""
    return FakeClock()


@pytest.fixture
async def running_bot(fake: FakeTelegram, db_path: Path) -> AsyncIterator[InProcessBot]:
    """The bot (the real App, polling) with the tests' settings, on the real clock."""
    running = InProcessBot(settings_for(fake, db_path))
    await running.start(fake)
    yield running
    await running.stop()


@pytest.fixture
async def clocked_bot(
    fake: FakeTelegram, db_path: Path, clock: FakeClock
) -> AsyncIterator[InProcessBot]:
    """The same bot on ``clock``."""
    running = InProcessBot(settings_for(fake, db_path), clock=clock)
    await running.start(fake)
    yield running
    await running.stop()


@pytest.fixture
async def bot(fake: FakeTelegram) -> AsyncIterator[Bot]:
    """An aiogram Bot talking to ``fake``, for the outbox's tests."""
    session = AiohttpSession(api=TelegramAPIServer.from_base(fake.base_url))
    client = Bot(fake.token, session=session)
    yield client
    await session.close()
