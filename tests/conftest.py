"""The fixture every end-to-end test starts from: the fake Telegram."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from fake_telegram import FakeTelegram


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    """The fake Bot API (bot @piki_test_bot) on a free port of 127.0.0.1, for one test."""
    async with FakeTelegram() as server:
        yield server
