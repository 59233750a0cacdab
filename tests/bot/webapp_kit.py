"""Talking to the bot's web API as the Mini App's page does (Telegram's
part, signing ``initData``, is in ``fake_telegram.webapp``), and a game under
way with the app on (``start_table``), for the tests of the app, of watching
and of the attacks on it."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
from fake_telegram import FakeTelegram, FakeUser
from fake_telegram.webapp import free_port, sign_init_data, table_of_url, web_app_url
from harness import InProcessBot, MakeBot, Table, open_table

from engine import Game, Rules

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


#: The group and the title of ``start_table``'s table.
GROUP = -1005151
TITLE = "Вечерние пики"


@dataclass
class Setup:
    """A game under way with the Mini App on (``start_table``), and what a
    test reads of it: a person's page, the actions and the game recorded."""

    fake: FakeTelegram
    bot: InProcessBot
    db: Path
    base: str
    table: Table
    table_id: int

    def page(self, user: FakeUser, **kw: Any) -> Page:
        return Page(self.base, sign_init_data(self.fake.token, user, time.time(), **kw))

    def actions(self) -> list[tuple[int, int, int]]:
        con = sqlite3.connect(self.db)
        try:
            return con.execute("SELECT seq, seat, action FROM actions ORDER BY seq").fetchall()
        finally:
            con.close()

    def game(self) -> Game:
        con = sqlite3.connect(self.db)
        try:
            seed, rules, dealer = con.execute(
                "SELECT seed, rules_json, first_dealer FROM games"
            ).fetchone()
            actions = [a for (a,) in con.execute("SELECT action FROM actions ORDER BY seq")]
        finally:
            con.close()
        return Game.replay(Rules.from_json(json.loads(rules)), seed, actions, dealer)


async def start_table(fake: FakeTelegram, make_bot: MakeBot, **extra: Any) -> Setup:
    """Анна (North) and Борис (East) with two computer seats, the game started;
    Кирилл is in the group but not at the table."""
    base, app = app_settings()
    bot = await make_bot(**app, **extra)
    anna, boris = fake.add_user(501, "Анна"), fake.add_user(502, "Борис")
    cyril = fake.add_user(503, "Кирилл")
    table = await open_table(
        fake, GROUP, [anna, boris], seats=["Восток"], others=[cyril], title=TITLE
    )
    await fake.wait_for(
        lambda: len(ms := hand_messages(fake, anna, boris)) == 2 and all(map(web_app_url, ms))
    )
    url = web_app_url(hand_messages(fake, anna)[0])
    assert url is not None
    table_id = table_of_url(url)
    return Setup(fake, bot, bot.app.settings.database_path, base, table, table_id)


def hand_messages(fake: FakeTelegram, *users: FakeUser) -> list[Any]:
    """Each user's latest hand message with buttons (users without one left out)."""
    out = []
    for u in users:
        found = [m for m in fake.chat_messages(u.id) if "Сдача" in m.text and m.buttons()]
        if found:
            out.append(found[-1])
    return out


async def idle(s: Setup) -> None:
    """The bot has had a quiet moment (the computers' moves are out)."""
    await s.fake.wait_idle(quiet=0.05)


async def mover(s: Setup) -> tuple[FakeUser, FakeUser, dict[str, Any]]:
    """(the person to move, the other one, the mover's state) once the
    computers are done."""
    anna, boris = s.table.users
    for _ in range(200):
        await idle(s)
        for me, other in ((anna, boris), (boris, anna)):
            status, state = await s.page(me).state(s.table_id)
            assert status == 200, state
            if state["my_turn"]:
                return me, other, state
        await asyncio.sleep(0.05)
    raise AssertionError("nobody to move")
