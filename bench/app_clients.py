"""``bench/load.py --app``: the Mini App open on every person's seat.

Each simulated person keeps the app's event stream (``/app/api/events``)
open for the table of their hand's «🃏 Стол» button, signed with the bot
token as Telegram signs ``initData``, reconnecting if it drops, as the page
does. Counted: events and bytes received, and each event's delivery lag
(the bot stamps the state with its clock, ``now``; the bench reads the same
machine's clock on arrival). The people still move through the chat's
buttons, so the bot's cost of the open apps shows in the usual figures.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import Counter
from typing import Any

import aiohttp
from fake_telegram import FakeTelegram, FakeUser
from fake_telegram.webapp import free_port, sign_init_data, web_app_url


def app_url(fake: FakeTelegram, user: FakeUser) -> str | None:
    """The page of the newest «🃏 Стол» button in the person's chat."""
    for m in reversed(fake.chat_messages(user.id)):
        url = web_app_url(m)
        if url is not None:
            return url
    return None


class AppClients:
    def __init__(self, fake: FakeTelegram) -> None:
        self.fake = fake
        self.port = free_port()
        self.measuring = False
        self.streams = 0  # open now
        self.events = 0
        self.bytes = 0
        self.reconnects = 0
        self.lags: list[float] = []
        self.refused: Counter[int] = Counter()
        self._tasks: list[asyncio.Task[None]] = []
        self._session: aiohttp.ClientSession | None = None

    def env(self) -> dict[str, str]:
        """What the bot needs to serve the app (polling mode: its own port)."""
        return {
            "WEBAPP_URL": f"http://127.0.0.1:{self.port}/app",
            "WEBAPP_LISTEN": "127.0.0.1",
            "WEBAPP_PORT": str(self.port),
        }

    def watch(self, user: FakeUser) -> None:
        if self._session is None:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=0),
                timeout=aiohttp.ClientTimeout(total=None, sock_read=None),
            )
        self._tasks.append(asyncio.create_task(self._watch(user)))

    async def ready(self, timeout: float) -> None:
        """Until every watcher has its stream open."""
        end = time.monotonic() + timeout
        while self.streams < len(self._tasks):
            if time.monotonic() > end:
                raise RuntimeError(f"only {self.streams} of {len(self._tasks)} app streams open")
            await asyncio.sleep(0.1)

    def start_measuring(self) -> None:
        self.events = self.bytes = self.reconnects = 0
        self.lags.clear()
        self.measuring = True

    async def _watch(self, user: FakeUser) -> None:
        assert self._session is not None
        url = None
        while url is None:
            url = app_url(self.fake, user)
            if url is None:
                await asyncio.sleep(0.2)
        base, _, table = url.partition("/?t=")
        headers = {"Authorization": f"tma {sign_init_data(self.fake.token, user, time.time())}"}
        first = True
        while True:
            try:
                async with self._session.get(
                    f"{base}/api/events", params={"t": table}, headers=headers
                ) as r:
                    if r.status != 200:
                        self.refused[r.status] += 1
                        await asyncio.sleep(1.0)
                        continue
                    self.streams += 1
                    if not first and self.measuring:
                        self.reconnects += 1
                    first = False
                    try:
                        await self._read(r)
                    finally:
                        self.streams -= 1
            except (aiohttp.ClientError, ConnectionError):
                await asyncio.sleep(0.5)

    async def _read(self, r: aiohttp.ClientResponse) -> None:
        async for line in r.content:
            if not line.startswith(b"data: "):
                continue
            arrived = time.time()
            if self.measuring:
                self.events += 1
                self.bytes += len(line)
                state: dict[str, Any] = json.loads(line[6:])
                self.lags.append(arrived - float(state["now"]))

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self._session is not None:
            await self._session.close()

    def summary(self, elapsed: float) -> str:
        lags = sorted(self.lags)

        def q(p: float) -> float:
            return lags[min(len(lags) - 1, int(p * len(lags)))] * 1000 if lags else float("nan")

        return (
            f"app: {len(self._tasks)} event streams open (one per person),"
            f" {self.events} events = {self.events / elapsed:.1f}/s,"
            f" {self.bytes / elapsed / 1024:.1f} KiB/s;"
            f" delivery lag p50 {q(0.5):.1f} ms, p99 {q(0.99):.1f} ms, max {q(1.0):.1f} ms;"
            f" reconnects {self.reconnects}; refused {dict(self.refused) or 'none'}"
        )
