"""Talking to the bot's web API as the Mini App's page does (Telegram's
part, signing ``initData``, is in ``fake_telegram.webapp``)."""

from __future__ import annotations

import json
import time
from typing import Any

import aiohttp
from fake_telegram import FakeTelegram, FakeUser
from fake_telegram.webapp import free_port, sign_init_data, table_of_url, web_app_url

#: Seconds for a stream's first event, on a machine busy with other tests.
FIRST_EVENT = 10


def app_settings() -> tuple[str, dict[str, Any]]:
    """The app's base address on a free local port, and the bot's settings for it."""
    port = free_port()
    base = f"http://127.0.0.1:{port}/app"
    return base, {
        "webapp_url": base,
        "webapp_listen": "127.0.0.1",
        "webapp_port": port,
        "webapp_short_name": "table",
    }


class Page:
    """The API calls the page makes, as one person."""

    def __init__(self, base: str, init_data: str) -> None:
        self.base = base.rstrip("/")
        self.headers = {"Authorization": f"tma {init_data}"}

    async def get(self, path: str, **params: Any) -> tuple[int, dict[str, Any]]:
        async with (
            aiohttp.ClientSession() as s,
            s.get(f"{self.base}/{path}", params=params, headers=self.headers) as r,
        ):
            return r.status, await r.json()

    async def post(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        async with (
            aiohttp.ClientSession() as s,
            s.post(f"{self.base}/{path}", json=body, headers=self.headers) as r,
        ):
            return r.status, await r.json()

    async def state(self, table: int) -> tuple[int, dict[str, Any]]:
        return await self.get("api/state", t=str(table))

    async def move(self, state: dict[str, Any], action: int) -> tuple[int, dict[str, Any]]:
        body = {"t": state["table"], "game": state["game"], "seq": state["seq"], "action": action}
        return await self.post("api/move", body)

    async def claim(
        self, state: dict[str, Any], n: int | None = None
    ) -> tuple[int, dict[str, Any]]:
        """«Остальные мои» at the table ``state`` shows: the claim it offers,
        or number ``n``."""
        if n is None:
            assert state["claim"] is not None, "no claim offered"
            n = state["claim"]["n"]
        body = {"t": state["table"], "game": state["game"], "seq": state["seq"], "n": n}
        return await self.post("api/claim", body)


def signed_page(fake: FakeTelegram, base: str, user: FakeUser) -> Page:
    """The user's Mini App page, signed as Telegram signs it."""
    return Page(base, sign_init_data(fake.token, user, time.time()))


def app_page(fake: FakeTelegram, base: str, user: FakeUser) -> tuple[Page, int]:
    """A player's page, and the table of the «🃏 Стол» button under their hand."""
    url = next(web_app_url(m) for m in reversed(fake.chat_messages(user.id)) if web_app_url(m))
    assert url is not None
    return signed_page(fake, base, user), table_of_url(url)


class Stream:
    """The page's event stream (``api/events``), read event by event."""

    def __init__(self, page: Page, table: int) -> None:
        self.page = page
        self.table = table
        self._session: aiohttp.ClientSession | None = None
        self._response: aiohttp.ClientResponse | None = None
        self._buffer = b""

    async def __aenter__(self) -> Stream:
        self._session = aiohttp.ClientSession()
        self._response = await self._session.get(
            f"{self.page.base}/api/events",
            params={"t": str(self.table)},
            headers=self.page.headers,
        )
        return self

    @property
    def status(self) -> int:
        assert self._response is not None
        return self._response.status

    async def refusal(self) -> dict[str, Any]:
        """A refused stream's answer (its error and text)."""
        assert self._response is not None and self._response.status != 200
        data: dict[str, Any] = await self._response.json()
        return data

    async def next(self) -> tuple[str, dict[str, Any]]:
        """The next event (comments, the keep-alives, are skipped)."""
        assert self._response is not None
        while True:
            end = self._buffer.find(b"\n\n")
            if end >= 0:
                block, self._buffer = self._buffer[:end].decode(), self._buffer[end + 2 :]
                kind, data = "message", ""
                for line in block.split("\n"):
                    field, _, value = line.partition(": ")
                    if field == "event":
                        kind = value
                    elif field == "data":
                        data += value
                if data:
                    return kind, json.loads(data)
                continue
            chunk = await self._response.content.readany()
            if not chunk:
                raise EOFError("the stream ended")
            self._buffer += chunk

    async def __aexit__(self, *_: object) -> None:
        if self._response is not None:
            self._response.close()
        if self._session is not None:
            await self._session.close()
