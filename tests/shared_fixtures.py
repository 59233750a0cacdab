"""The fixtures every end-to-end test starts from: the fake Telegram, the
bot's database, a clock the test moves, the bot running in this process
against the fake (tests/bot and tests/attacks) or as processes of its own, a
bare aiogram ``Bot`` for tests of one part without the whole App; and the
order tests are handed to the parallel workers in. A plugin that
tests/conftest.py loads where tests run."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Generator
from pathlib import Path
from typing import Any

import pytest
from aiogram import Bot
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from bot_processes import BotProcesses, Zygote
from fake_telegram import FakeTelegram
from harness import InProcessBot, MakeBot, settings_for
from zygote import hold_answer_models

from bot.clock import Clock, FakeClock
from bot.config import Settings
from bot.heap import set_aside
from bot.storage import Database
from bot.storage.migrations import apply_migrations


def pytest_collection_finish(session: pytest.Session) -> None:
    """What pytest and the imports hold (some 200,000 objects) set aside, as
    the bot and its workers do (bot/heap.py): a full collection of them takes
    ~150 ms, and inside a search it counts against the search's CPU cap
    (engine/ai/clock.py), cutting it short, so that two equal decisions of the
    master differed now and then. aiogram's answer models are held first
    (zygote.hold_answer_models: else built again after each collection)."""
    hold_answer_models()
    set_aside()


#: The ``bot_process`` fixture's processes, for the report of a failed test.
BOT_PROCESSES = pytest.StashKey[BotProcesses]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A failed test's report shows what its bot processes wrote to stderr
    (once: at the first phase that failed)."""
    report = yield
    processes = item.stash.get(BOT_PROCESSES, None)
    if report.failed and processes is not None and not processes.reported:
        processes.reported = True
        report.sections.extend(processes.stderr())
    return report


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slow tests first (in their order), so that the workers (``-n`` in
    pyproject's addopts) share them out from the start instead of one worker
    running the last of them alone at the end."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    """The fake Bot API (bot @piki_test_bot) on a free port of 127.0.0.1, for one test."""
    async with FakeTelegram() as server:
        yield server


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


@pytest.fixture(scope="session", autouse=True)
def zygote_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the session's one zygote (bot_processes.Zygote) keeps its lock:
    the basetemp all of the session's workers share (started only when a
    test first needs a bot process; it ends with the session)."""
    base = tmp_path_factory.getbasetemp()
    Zygote.home = base.parent if "PYTEST_XDIST_WORKER" in os.environ else base
    return Zygote.home


@pytest.fixture
async def bot_process(
    request: pytest.FixtureRequest, fake: FakeTelegram, db_path: Path
) -> AsyncIterator[BotProcesses]:
    """Starts ``python -m bot`` processes against ``fake``: ``await
    bot_process(**changes)`` on ``db_path``, ``await bot_process.again(proc)``
    after a kill (``bot_processes.BotProcesses``). Each is stopped at teardown; a
    failed test shows their stderr."""
    processes = BotProcesses(fake, db_path)
    request.node.stash[BOT_PROCESSES] = processes
    yield processes
    processes.stop_all()


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
