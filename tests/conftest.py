"""The fixture every end-to-end test starts from: the fake Telegram; and the
order tests are handed to the parallel workers in."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from fake_telegram import FakeTelegram

from bot.heap import set_aside


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: takes half a minute or more; handed to a worker first"
    )


def pytest_collection_finish(session: pytest.Session) -> None:
    """What pytest and the imports hold (some 200,000 objects) set aside, as
    the bot and its workers do (bot/heap.py): a full collection of them takes
    ~150 ms, and inside a search it counts against the search's CPU cap
    (engine/ai/clock.py), cutting it short, so that two equal decisions of the
    master differed now and then."""
    set_aside()


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
