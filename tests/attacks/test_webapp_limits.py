"""Attacks on the Mini App and on names, against the real bot over the fake
Telegram (issue #46): what each one tried, and what the bot does instead.

* A room of watchers opening every stream they may, to lock the players out.
* A person who asked to be forgotten, shown by their numeric id on a page
  the hub still serves.
* A name with Unicode's direction controls, turning the rest of a line
  around in the group, the private chat, a button and the app.
* API bodies the parser chokes on (deep nesting, integers past 64 bits,
  NaN, the wrong shapes): 400, never a 500.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import time
from collections.abc import Iterator
from datetime import UTC
from functools import partial
from typing import Any

import aiohttp
from fake_telegram import FakeTelegram, FakeUser
from fake_telegram.webapp import sign_init_data, table_of_url, web_app_url
from harness import MakeBot, Table, forget_me, open_table, play_moves
from webapp_kit import (
    FIRST_EVENT,
    GROUP,
    Page,
    Stream,
    app_settings,
    hand_messages,
    mover,
    start_table,
)

from bot.clock import FakeClock
from bot.i18n import Texts, make_core
from bot.model import LiveTable, TableStatus
from bot.services.afterword import AFTERWORD_SECONDS
from bot.views import table as table_view
from bot.views.chart import chart_data, chart_keyboard
from bot.views.club import NAMES, afterword_picker
from bot.views.hand import hand_message
from bot.views.results import sheet_name
from bot.webapp.hub import STREAMS_PER_PERSON
from bot.webapp.state import public_state
from engine import CLUB, Game, public_view, view

#: Unicode's direction controls: embeddings and overrides (U+202A–U+202E),
#: isolates (U+2066–U+2069), and the marks LRM, RLM and ALM.
BIDI = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C)}


def strings(value: Any) -> Iterator[str]:
    """Every string in a decoded JSON value (numbers such as times left out)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)


async def first_state(stream: Stream) -> dict[str, Any]:
    kind, data = await asyncio.wait_for(stream.next(), FIRST_EVENT)
    assert kind == "state", (kind, data)
    return data


# ------------------------------------------------------------- watchers


async def test_ten_watchers_do_not_lock_the_players_out(
    fake: FakeTelegram, make_bot: MakeBot
) -> None:
    """Ten member accounts open four streams each: the watchers' own cap
    refuses some of them, and every seated player still gets every stream
    their own cap allows, their seat's state first."""
    s = await start_table(fake, make_bot)
    anna, boris = s.table.users
    watchers = [fake.add_user(700 + i, f"Зритель {i}") for i in range(10)]
    for u in watchers:
        fake.add_member(GROUP, u)
    refused = 0
    async with contextlib.AsyncExitStack() as stack:
        for user in watchers:
            for _ in range(STREAMS_PER_PERSON):
                stream = await stack.enter_async_context(Stream(s.page(user), s.table_id))
                if stream.status == 200:
                    assert (await first_state(stream))["spectator"] is True
                else:
                    assert stream.status == 429
                    assert (await stream.refusal())["error"] == "webapp-err-streams"
                    refused += 1
        for seat, player in enumerate((anna, boris)):
            for _ in range(STREAMS_PER_PERSON):
                stream = await stack.enter_async_context(Stream(s.page(player), s.table_id))
                assert stream.status == 200, await stream.refusal()
                state = await first_state(stream)
                assert state["seat"] == seat and "spectator" not in state
        assert refused > 0  # the watchers have a cap of their own
        # A watcher is still refused now, and a player's own cap still holds.
        for user, error in ((watchers[-1], "webapp-err-streams"), (anna, "webapp-err-streams")):
            stream = await stack.enter_async_context(Stream(s.page(user), s.table_id))
            assert stream.status == 429 and (await stream.refusal())["error"] == error


# ------------------------------------------------------------ forget me


async def test_a_forgotten_player_is_not_shown_by_id_on_a_kept_finished_table(
    fake: FakeTelegram, make_bot: MakeBot, clock: FakeClock
) -> None:
    """Boris's page stays open on a finished table the hub keeps (its
    afterword closed: nothing reads the table again); Zina asks to be
    forgotten. The page is told at once, and names her seat as the bot
    names any forgotten player's, never by her numeric id (nor by her
    name); so do the state and the hand's record asked for afterwards."""
    base, app = app_settings()
    await make_bot(clock=clock, **app)
    uid = 987_650_046
    zina, boris = fake.add_user(uid, "Зинаида"), fake.add_user(502, "Борис")
    table = await open_table(fake, GROUP, [zina, boris], seats=["Восток"], club=True)
    url = web_app_url(hand_messages(fake, boris)[0])
    assert url is not None
    table_id = table_of_url(url)
    await play_moves(table, table.game_over)
    clock.advance(AFTERWORD_SECONDS + 1)
    await fake.wait_idle(quiet=0.1)
    page = Page(base, sign_init_data(fake.token, boris, clock.now()))

    def shows_her(data: dict[str, Any]) -> bool:
        return any("Зинаида" in text or str(uid) in text for text in strings(data))

    async with Stream(page, table_id) as stream:
        assert stream.status == 200
        before = await first_state(stream)
        assert before["phase"] == "over" and before["seats"][0]["name"] == "Зинаида"
        await forget_me(fake, zina)
        async with asyncio.timeout(FIRST_EVENT):
            after = before
            while shows_her(after):
                kind, after = await stream.next()
                assert kind == "state", (kind, after)
                assert not any(str(uid) in text for text in strings(after)), after["seats"]
    assert after["seats"][0]["name"] == "🤖 Север"
    assert after["seats"][1]["name"] == "Борис"
    # Read afresh: the state and the first hand's record.
    status, state = await page.state(table_id)
    assert status == 200 and not shows_her(state), state
    status, record = await page.get("api/record", t=str(table_id), h="1")
    assert status == 200 and not shows_her(record), record


# ---------------------------------------------------------------- names


async def test_direction_controls_in_a_name_turn_nothing_around(
    fake: FakeTelegram, make_bot: MakeBot
) -> None:
    """A first name carrying every direction control (U+202E, the
    right-to-left override, would show the rest of each line backwards):
    the group's table message, a seat's button, the other player's private
    hand and the app's state show the name without them, and the name is
    stored without them."""
    base, app = app_settings()
    s_bot = await make_bot(**app)
    evil_name = "\u202eЕва\u2066\u202b\u200f\u061c\u2069\u202a\u202c\u202d\u2067\u2068\u200e"
    eva, boris = fake.add_user(511, evil_name), fake.add_user(512, "Борис")
    table = await open_table(fake, GROUP, [eva, boris], seats=["Восток"], start=False)
    message = table.table_message()
    label = next(b.text for b in message.buttons() if "Ева" in b.text)
    assert not BIDI & set(label) and not BIDI & set(message.text), label
    assert "Ева" in message.text
    await open_started(table, eva)
    await fake.wait_for(lambda: "Ева" in table.table_message().text)
    await fake.wait_idle(quiet=0.1)
    texts = [m.text for m in fake.chat_messages(GROUP)]
    texts += [m.text for m in fake.chat_messages(boris.id)]
    assert any("Ева" in t for t in fake.sent_texts(boris.id)), fake.sent_texts(boris.id)
    for text in (*texts, *fake.sent_texts(GROUP), *fake.sent_texts(boris.id)):
        assert not BIDI & set(text), ascii(text)
    url = web_app_url(hand_messages(fake, boris)[0])
    assert url is not None
    page = Page(base, sign_init_data(fake.token, boris, time.time()))
    status, state = await page.state(table_of_url(url))
    assert status == 200 and state["seats"][0]["name"] == "Ева"
    assert not any(BIDI & set(text) for text in strings(state)), state
    con = sqlite3.connect(s_bot.app.settings.database_path)
    try:
        (stored,) = con.execute(
            "SELECT first_name FROM users WHERE user_id=?", (eva.id,)
        ).fetchone()
    finally:
        con.close()
    assert stored == "Ева"


async def open_started(table: Table, opener: FakeUser) -> None:
    """The opener presses «Начать»; back once somebody may move."""
    fake = table.fake
    message = table.table_message()
    await (await fake.press_button(opener, message, text_contains="Начать")).answer()
    await fake.wait_for(table.actionable, message="the first move")


async def test_names_stored_before_are_shown_without_direction_controls() -> None:
    """Names stored before the bot stripped them (or held in memory since):
    every view shows them without the controls, in the group's table
    message and its seat buttons, a private hand, the score chart (its
    image's title and its buttons, which name the group), the score sheet, the
    afterword's name buttons and the app's state. A name that was nothing
    but controls is shown by its place, never by the person's id."""
    core = make_core("ru")
    await core.startup()
    tr = partial(Texts(core), "ru")
    evil, empty = 987_650_101, 987_650_102
    live = LiveTable(
        table_id=7,
        chat_id=GROUP,
        chat_title="\u202eКлуб",
        creator_id=evil,
        status=TableStatus.OPEN,
        rules=CLUB,
        lang="ru",
        seats=[evil, None, empty, None],
        names={evil: "\u202eЕва\u2069\u2066", empty: "\u202e\u2067\u200f"},
    )
    shown: list[str] = []
    text, markup = table_view.open_table(tr, live)
    shown += [text, *(b["text"] for row in markup["inline_keyboard"] for b in row)]
    live.status, live.game_id, live.game = TableStatus.PLAYING, 3, Game(CLUB, seed=11)
    v = public_view(live.game)
    text, _ = table_view.game_table(tr, live, v, 1_800_000_000.0, UTC)
    shown.append(text)
    shown.append(hand_message(tr, live, view(live.game, 1))[0])
    # The score chart's image and its «📈» buttons name the group.
    chart = chart_data(tr, live)
    shown += [chart.title, *chart.sides]
    markup = chart_keyboard(tr, [(live.table_id, live.chat_title), (8, "Другая")])
    shown += [b["text"] for row in markup["inline_keyboard"] for b in row]
    assert "Клуб" in chart.title and any("Клуб" in t for t in shown[-2:])
    shown += [sheet_name(tr, live, s) for s in range(4)]
    text, markup = afterword_picker(tr, live, 1, [], NAMES, True)
    assert markup is not None
    shown += [text, *(b["text"] for row in markup["inline_keyboard"] for b in row)]
    state = public_state(tr, live)
    shown += list(strings(state))
    for text in shown:
        assert not BIDI & set(text), ascii(text)
        assert str(evil) not in text and str(empty) not in text, text
    assert [seat["name"] for seat in state["seats"]] == ["Ева", "🤖 Восток", "Юг", "🤖 Запад"]
    assert any("Ева" in text for text in shown[:3])


# ----------------------------------------------------------------- JSON


async def test_hostile_bodies_get_400_and_change_nothing(
    fake: FakeTelegram, make_bot: MakeBot
) -> None:
    """Bodies a parser may choke on, in a move, a claim and a look: each is
    refused with 400 and the usual refusal, nothing is moved, and the
    player's next honest move is taken."""
    s = await start_table(fake, make_bot)
    me, _, state = await mover(s)
    before = s.actions()
    page = s.page(me)
    move = {"t": s.table_id, "game": state["game"], "seq": state["seq"], "action": 0}
    huge = 2**64
    swap = json.dumps(move).replace
    seq = f'"seq": {state["seq"]}'
    # Refused by every call: no JSON object a parser may safely hand on.
    unparsable = [
        "[" * 100_000 + "]" * 100_000,  # 100,000 levels (past the size limit too)
        "[" * 1000,  # 1,000 levels within the size limit: Python's parser recursed
        '{"t": ' + "[" * 300 + "]" * 300 + "}",
        json.dumps({**move, "t": huge}),
        json.dumps({**move, "t": -(2**63) - 1}),
        json.dumps({**move, "seq": huge}),
        json.dumps({**move, "game": huge}),
        json.dumps({**move, "action": huge}),
        swap(seq, '"seq": 1e999'),
        swap(seq, '"seq": NaN'),
        swap(seq, '"seq": -Infinity'),
        json.dumps([move]),
        "9" * 1000,
        '"' + "\\" * 500 + '"',
        "",
        "{",
    ]
    # Refused by the moves (a look needs the table only).
    wrong = [
        json.dumps({**move, "seq": str(state["seq"])}),
        json.dumps({**move, "seq": True}),
        json.dumps({**move, "seq": None}),
        json.dumps({**move, "seq": {"n": 1}}),
        json.dumps({**move, "seq": 1.5}),
    ]
    headers = {**page.headers, "Content-Type": "application/json"}
    async with aiohttp.ClientSession() as http:
        for path, bodies in (
            ("api/move", unparsable + wrong),
            ("api/claim", [b.replace('"action"', '"n"') for b in unparsable + wrong]),
            ("api/look", unparsable),
        ):
            for body in bodies:
                async with http.post(f"{s.base}/{path}", data=body, headers=headers) as r:
                    answer = await r.text()
                    assert r.status == 400, (path, body[:60], r.status, answer[:200])
                    assert json.loads(answer) == {
                        "error": "webapp-err-request",
                        "text": "Бот не понял этот запрос.",
                    }, (path, body[:60])
    await s.fake.wait_idle(quiet=0.05)
    assert s.actions() == before
    action = state["bids"][3]["a"] if state["bids"] else state["playable"][0]
    status, after = await page.move(state, action)
    assert status == 200 and after["seq"] > state["seq"]
