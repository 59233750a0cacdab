"""The bot's own browser fixture (the Mini App's browser tests). The fixtures
the bot's tests share with tests/attacks (the database, the clock, the bot
running in-process) are in tests/shared_fixtures.py."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

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
