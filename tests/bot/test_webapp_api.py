"""The Mini App's API against the real bot and the fake Bot API: who may ask,
what a seat is told, moves and their refusals, and the live stream."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from pathlib import Path

import aiohttp
import pytest
from fake_telegram import FakeTelegram, FakeUser
from fake_telegram.webapp import free_port, sign_init_data, table_of_url, web_app_url
from harness import MakeBot, move_buttons, open_table, settings_for
from webapp_kit import (
    FIRST_EVENT,
    GROUP,
    TITLE,
    Page,
    Stream,
    hand_messages,
    idle,
    mover,
    start_table,
)

from bot.config import ConfigError, load_settings
from bot.webapp.hub import STREAMS_PER_PERSON, WATCHERS_PER_TABLE
from engine import BLIND, CLAIM
from engine.cards import card_label


async def test_buttons_and_links_lead_to_the_table(fake: FakeTelegram, make_bot: MakeBot) -> None:
    s = await start_table(fake, make_bot)
    anna, boris = s.table.users
    for m in hand_messages(fake, anna, boris):
        assert web_app_url(m) == f"{s.base}/?t={s.table_id}"
        assert any(b.text == "🃏 Стол" for b in m.buttons())
    link = f"https://t.me/piki_test_bot/table?startapp=t{s.table_id}"
    assert link in [b.value for b in s.table.table_message().buttons()]
    # The group's link carries the table as start_param: no ?t= needed.
    page = s.page(anna, start_param=f"t{s.table_id}")
    status, state = await page.get("api/state")
    assert status == 200 and state["table"] == s.table_id and state["seat"] == 0


async def test_a_seat_is_told_only_what_it_may_see(fake: FakeTelegram, make_bot: MakeBot) -> None:
    s = await start_table(fake, make_bot)
    anna, _ = s.table.users
    await idle(s)
    status, state = await s.page(anna).state(s.table_id)
    assert status == 200
    game = s.game()
    mine = set(game.hand_cards(0))
    assert set(state["hand"]) == mine and len(state["hand"]) == 13
    played = {c for _, c in state["trick"]}
    # Every card anywhere in the answer is Anna's own or one on the table.
    shown = set(state["hand"]) | set(state["playable"]) | played
    assert shown <= mine | played
    others = set().union(*(game.hand_cards(seat) for seat in (1, 2, 3))) - played
    assert not others & set(state["hand"])
    for seat in state["seats"]:
        assert set(seat) == {
            "name", "place", "computer", "bid", "bid_text", "nil", "blind", "tricks",
            "cards", "dealer", "away", "blocked",
        }  # fmt: skip
    assert [x["name"] for x in state["seats"]] == [
        "Анна",
        "Борис",
        "🤖 Юг",
        "🤖 Запад",
    ]
    assert state["seat"] == 0 and state["partner"] == 2
    # No other seat's card label appears in the text of the answer.
    text = json.dumps(state, ensure_ascii=False)
    for c in others:
        assert f'"{card_label(c)}' not in text


async def test_forged_or_stale_init_data_is_refused(fake: FakeTelegram, make_bot: MakeBot) -> None:
    s = await start_table(fake, make_bot)
    anna, boris = s.table.users
    me, _, state = await mover(s)
    before = s.actions()
    body = {"t": s.table_id, "game": state["game"], "seq": state["seq"], "action": 0}
    signed = sign_init_data(fake.token, me, time.time())
    tampered = signed.replace(f"%22id%22%3A{me.id}", f"%22id%22%3A{boris.id + anna.id}")
    assert tampered != signed
    cases = {
        "another bot's token": sign_init_data("1:another", me, time.time()),
        "tampered": tampered,
        "no hash": re.sub(r"&hash=[0-9a-f]+", "", signed),
        "stale": sign_init_data(fake.token, me, time.time() - 86400 - 60),
        "from the future": sign_init_data(fake.token, me, time.time() + 3600),
        "garbage": "%%%",
    }
    for why, init_data in cases.items():
        page = Page(s.base, init_data)
        status, answer = await page.state(s.table_id)
        assert status == 401, why
        expected = (
            "webapp-err-expired" if why in ("stale", "from the future") else "webapp-err-auth"
        )
        assert answer["error"] == expected, why
        status, answer = await page.post("api/move", body)
        assert status == 401, why
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{s.base}/api/state", params={"t": str(s.table_id)}) as r:
            assert r.status == 401
        async with http.get(f"{s.base}/api/events", params={"t": str(s.table_id)}) as r:
            assert r.status == 401
    await idle(s)
    assert s.actions() == before


async def test_another_persons_table_is_refused(fake: FakeTelegram, make_bot: MakeBot) -> None:
    s = await start_table(fake, make_bot)
    # Not in the group (a member who is not seated watches: test_watching.py).
    stranger = fake.add_user(509, "Чужой")
    me, _, state = await mover(s)
    before = s.actions()
    outsider = s.page(stranger)
    status, answer = await outsider.state(s.table_id)
    assert (status, answer["error"]) == (403, "err-not-at-table")
    assert answer["text"] == "Вы не сидите за этим столом."
    assert "hand" not in answer
    status, answer = await outsider.move(state, state["playable"][0] if state["playable"] else 55)
    assert status == 403
    async with Stream(outsider, s.table_id) as stream:
        assert stream.status == 403
    # A table that does not exist is refused the same way.
    status, answer = await s.page(me).state(s.table_id + 1000)
    assert (status, answer["error"]) == (403, "err-not-at-table")
    await idle(s)
    assert s.actions() == before


async def test_out_of_turn_and_replayed_moves_are_refused(
    fake: FakeTelegram, make_bot: MakeBot
) -> None:
    s = await start_table(fake, make_bot)
    me, other, state = await mover(s)
    before = s.actions()
    # The other person tries to move now: not their turn.
    status, theirs = await s.page(other).state(s.table_id)
    assert status == 200 and not theirs["my_turn"]
    action = state["bids"][3]["a"] if state["bids"] else state["playable"][0]
    status, answer = await s.page(other).move(theirs, action)
    assert (status, answer["error"], answer["text"]) == (
        409,
        "err-not_your_turn",
        "Сейчас не ваш ход.",
    )
    assert s.actions() == before
    # The mover's move is taken once; the same request again is told it stands.
    page = s.page(me)
    status, after = await page.move(state, action)
    assert status == 200 and after["seq"] > state["seq"]
    assert s.actions()[len(before)][1:] == (state["seat"], action)
    moved = s.actions()
    status, answer = await page.move(state, action)
    assert (status, answer["error"], answer["text"]) == (
        409,
        "err-move-made",
        "✅ Этот ход уже принят.",
    )
    # A move numbered right but from another game is stale too.
    _, now = await page.state(s.table_id)
    status, answer = await page.post(
        "api/move",
        {"t": s.table_id, "game": now["game"] + 1, "seq": now["seq"], "action": action},
    )
    assert (status, answer["error"]) == (409, "err-stale")
    for bad in ({"t": s.table_id}, {"t": s.table_id, "game": "1", "seq": 0, "action": 1}):
        status, answer = await page.post("api/move", bad)
        assert (status, answer["error"]) == (400, "webapp-err-request")
    await idle(s)
    assert s.actions()[: len(moved)] == moved
    assert all(seat in (2, 3) for _, seat, _ in s.actions()[len(moved) :])  # computers only


async def test_a_move_that_is_no_bid_and_no_card_is_refused_before_anything(
    fake: FakeTelegram, make_bot: MakeBot
) -> None:
    """Bids, the blind nil and cards are 0..BLIND: anything else (a claim
    too: it has a call of its own, api/claim) is not a move from the page."""
    s = await start_table(fake, make_bot)
    me, _, state = await mover(s)
    before = s.actions()
    page = s.page(me)
    for bad in (CLAIM, BLIND + 1, -1, 1000, 2**63):
        status, answer = await page.move(state, bad)
        assert (status, answer["error"]) == (400, "webapp-err-request"), bad
        assert answer["text"] == "Бот не понял этот запрос."
    await idle(s)
    assert s.actions() == before
    status, now = await page.state(s.table_id)
    assert status == 200 and now["seq"] == state["seq"] and now["my_turn"]


async def test_streams_are_limited_per_person_and_watchers_per_table(
    fake: FakeTelegram, make_bot: MakeBot
) -> None:
    s = await start_table(fake, make_bot)
    anna, _ = s.table.users
    hub = s.bot.app.webapp.hub if s.bot.app.webapp is not None else None
    assert hub is not None
    members = [fake.add_user(601 + i, f"Гость {i}") for i in range(9)]
    for u in members:
        fake.add_member(GROUP, u)

    async def opened(stack: contextlib.AsyncExitStack, user: FakeUser) -> Stream:
        stream = await stack.enter_async_context(Stream(s.page(user), s.table_id))
        if stream.status == 200:
            kind, _ = await asyncio.wait_for(stream.next(), FIRST_EVENT)
            assert kind == "state"
        return stream

    async with contextlib.AsyncExitStack() as stack:
        mine = [await opened(stack, anna) for _ in range(STREAMS_PER_PERSON)]
        assert all(m.status == 200 for m in mine)
        extra = await opened(stack, anna)
        assert extra.status == 429
        answer = await extra.refusal()
        assert answer == {
            "error": "webapp-err-streams",
            "text": "Стол открыт на слишком многих экранах. Закройте лишние и попробуйте снова.",
        }
        # A closed stream frees its place (once the bot sees it closed).
        await mine[0].__aexit__(None, None, None)
        await fake.wait_for(lambda: len(hub) == STREAMS_PER_PERSON - 1, message="freed")
        assert (await opened(stack, anna)).status == 200
        # The table's watchers, up to their limit (the players' streams
        # are not counted in it: tests/attacks/test_webapp_limits.py).
        watching = 0
        for user in members:
            for _ in range(STREAMS_PER_PERSON):
                if watching == WATCHERS_PER_TABLE:
                    break
                assert (await opened(stack, user)).status == 200
                watching += 1
        assert len(hub) == STREAMS_PER_PERSON + WATCHERS_PER_TABLE
        last = await opened(stack, members[-1])
        assert last.status == 429 and (await last.refusal())["error"] == "webapp-err-streams"
    await fake.wait_for(lambda: len(hub) == 0, message="every stream closed")
    async with Stream(s.page(members[-1]), s.table_id) as again:
        assert again.status == 200


async def test_an_illegal_card_is_refused_with_the_engines_reason(
    fake: FakeTelegram, make_bot: MakeBot
) -> None:
    s = await start_table(fake, make_bot)
    refused = None
    for _ in range(60):
        me, _, state = await mover(s)
        page = s.page(me)
        if state["bids"]:
            ok = [b["a"] for b in state["bids"] if b["ok"]]
            status, _ = await page.move(state, ok[min(2, len(ok) - 1)])
            assert status == 200
            continue
        wrong = [c for c in state["hand"] if c not in state["playable"]]
        if state["trick"] and wrong:
            before = s.actions()
            status, refused = await page.move(state, wrong[0])
            assert status == 409
            assert s.actions() == before
            break
        status, _ = await page.move(state, state["playable"][0])
        assert status == 200
    assert refused is not None, "no trick where a card could not be played"
    assert refused["error"] in ("err-must_follow_suit", "err-spades_not_broken")
    assert refused["text"] in (
        "Нужно дать масть захода.",
        "С пики заходить нельзя, пока пики не вскрыты.",
    )


async def test_moves_arrive_live_and_a_dropped_stream_catches_up(
    fake: FakeTelegram, make_bot: MakeBot
) -> None:
    s = await start_table(fake, make_bot)
    anna, boris = s.table.users
    me, other, state = await mover(s)
    watcher_page = s.page(other)
    async with Stream(watcher_page, s.table_id) as stream:
        kind, first = await asyncio.wait_for(stream.next(), FIRST_EVENT)
        assert kind == "state" and first["seq"] == state["seq"]
        # The mover presses a button in the chat: the app sees it without asking.
        msg = hand_messages(fake, me)[0]
        data = move_buttons(msg)[0]
        await (await fake.press(me, me.id, msg.message_id, data)).answer()
        kind, event = await asyncio.wait_for(stream.next(), 10)
        assert kind == "state" and event["seq"] > first["seq"]
        assert event["hand"] == first["hand"] or event["hand_no"] != first["hand_no"]
        seen = event["seq"]
    # The stream is gone; moves go on; a new stream starts with all of them.
    for _ in range(3):
        who, _, st = await mover(s)
        action = st["bids"][2]["a"] if st["bids"] else st["playable"][0]
        status, _ = await s.page(who).move(st, action)
        assert status == 200
    await mover(s)  # the computers are done: a person is to move
    async with Stream(watcher_page, s.table_id) as stream:
        kind, event = await asyncio.wait_for(stream.next(), FIRST_EVENT)
    assert kind == "state"
    # The stream starts from the table as committed; the file is read here
    # once it holds that many moves (a wait on the condition, not a time).
    await fake.wait_for(
        lambda: len(s.actions()) >= event["seq"], FIRST_EVENT, message="the moves in the file"
    )
    assert event["seq"] == len(s.actions()) > seen
    _, now = await watcher_page.state(s.table_id)
    assert event == {**now, "now": event["now"]}


async def test_a_new_stream_starts_from_the_table_as_it_is(
    fake: FakeTelegram, make_bot: MakeBot
) -> None:
    """A stream opened right after a move, before the pages already open
    are told of it, starts from the move: never from the state they had."""
    s = await start_table(fake, make_bot)
    me, other, state = await mover(s)
    async with Stream(s.page(other), s.table_id) as open_one:
        kind, first = await asyncio.wait_for(open_one.next(), FIRST_EVENT)
        assert kind == "state" and first["seq"] == state["seq"]
        action = state["bids"][2]["a"] if state["bids"] else state["playable"][0]
        status, after = await s.page(me).move(state, action)
        assert status == 200 and after["seq"] > first["seq"]
        async with Stream(s.page(other), s.table_id) as new_one:
            kind, event = await asyncio.wait_for(new_one.next(), FIRST_EVENT)
        assert kind == "state" and event["seq"] >= after["seq"]
        # The open stream is told too.
        kind, event = await asyncio.wait_for(open_one.next(), FIRST_EVENT)
        assert kind == "state" and event["seq"] >= after["seq"]


async def test_a_change_that_is_not_a_move_arrives_live(
    fake: FakeTelegram, make_bot: MakeBot
) -> None:
    """The hub looks at the tables whose lock was released, whatever
    changed: here the group removes the bot (the game pauses) and adds it back."""
    s = await start_table(fake, make_bot)
    _, other, _ = await mover(s)
    async with Stream(s.page(other), s.table_id) as stream:
        kind, first = await asyncio.wait_for(stream.next(), FIRST_EVENT)
        assert kind == "state" and first["paused"] is False
        fake.remove_bot_from_group(GROUP)
        kind, event = await asyncio.wait_for(stream.next(), 10)
        assert kind == "state" and event["paused"] is True and event["seq"] == first["seq"]
        fake.add_bot_to_group(GROUP)
        kind, event = await asyncio.wait_for(stream.next(), 10)
        assert kind == "state" and event["paused"] is False


async def test_a_move_in_the_app_updates_the_chat(fake: FakeTelegram, make_bot: MakeBot) -> None:
    s = await start_table(fake, make_bot)
    me, _, state = await mover(s)
    msg = hand_messages(fake, me)[0]
    edits = msg.edits
    action = state["bids"][4]["a"] if state["bids"] else state["playable"][0]
    status, _ = await s.page(me).move(state, action)
    assert status == 200
    await fake.wait_for(lambda: fake.message(me.id, msg.message_id).edits > edits)
    text = fake.message(me.id, msg.message_id).text
    if state["bids"]:
        assert f"вы {action - 52}" in text.split("заявки: ", 1)[1]
        await fake.wait_for(
            lambda: re.search(
                rf"заявки: (.+, )?{me.first_name} {action - 52}\b", s.table.table_message().text
            )
        )
    else:
        assert card_label(action) in text  # on the table now


async def test_english_speakers_read_english(fake: FakeTelegram, make_bot: MakeBot) -> None:
    s = await start_table(fake, make_bot)
    me, other, state = await mover(s)
    other.language_code = "en"
    status, theirs = await s.page(other).state(s.table_id)
    assert theirs["lines"]["status"].startswith("Turn:") or "Turn" in theirs["lines"]["status"]
    action = state["bids"][0]["a"] if state["bids"] else state["playable"][0]
    status, answer = await s.page(other).move(theirs, action)
    assert answer["text"] == "It is not your turn."
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{s.base}/texts", params={"code": "en-GB"}) as r:
            en = await r.json()
        async with http.get(f"{s.base}/texts", params={"code": "ru"}) as r:
            ru = await r.json()
    assert en["lang"] == "en" and en["texts"]["btn-webapp"] == "🃏 Table"
    assert ru["lang"] == "ru" and ru["texts"]["webapp-your-turn"] == "Ваш ход"
    assert set(en["texts"]) == set(ru["texts"])


async def test_the_page_and_its_assets_come_from_the_bot(
    fake: FakeTelegram, make_bot: MakeBot
) -> None:
    s = await start_table(fake, make_bot)
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{s.base}/?t={s.table_id}") as r:
            assert r.status == 200 and r.content_type == "text/html"
            page = await r.text()
            assert "default-src 'self'" in r.headers["Content-Security-Policy"]
        assert re.findall(r"https?://[^\"' ]+", page) == [
            "https://telegram.org/js/telegram-web-app.js"
        ]
        assets = re.findall(r'(?:src|href)="(static/[^"?]+)', page)
        assert sorted(assets) == ["static/app.css", "static/app.js"]
        for asset in assets:
            async with http.get(f"{s.base}/{asset}") as r:
                assert r.status == 200
                body = await r.text()
                assert not re.findall(r"https?://(?!www\.w3\.org/2000/svg)", body), asset
                # The page's words come from locales/: none are written in it.
                assert not re.search("[А-Яа-яЁё]", body), asset
        async with http.get(f"{s.base}/static/..%2Fserver.py") as r:
            assert r.status == 404
        async with http.get(s.base, allow_redirects=False) as r:
            assert r.status == 302 and r.headers["Location"] == "/app/"


async def test_without_webapp_url_nothing_changes(fake: FakeTelegram, make_bot: MakeBot) -> None:
    bot = await make_bot()
    assert bot.app.webapp is None
    anna = fake.add_user(511, "Анна")
    await open_table(fake, GROUP, [anna], title=TITLE)
    await fake.wait_for(lambda: hand_messages(fake, anna))
    await fake.wait_idle(quiet=0.05)
    for chat in (anna.id, GROUP):
        for m in fake.chat_messages(chat):
            assert web_app_url(m) is None
            assert not any("t.me/piki_test_bot/" in (b.value or "") for b in m.buttons())


async def test_webhook_mode_serves_the_app_on_the_same_server(
    fake: FakeTelegram, tmp_path: Path, make_bot: MakeBot
) -> None:
    port = free_port()
    settings = settings_for(
        fake,
        tmp_path / "spades.db",
        webhook_url=f"http://127.0.0.1:{port}/telegram/updates",
        webhook_listen="127.0.0.1",
        webhook_port=port,
        webapp_url=f"http://127.0.0.1:{port}/app",
        webapp_port=free_port(),  # not used in webhook mode
    )
    await make_bot(settings)
    solo = fake.add_user(521, "Соло")
    await open_table(fake, GROUP, [solo], title=TITLE)
    await fake.wait_for(lambda: hand_messages(fake, solo))
    url = web_app_url(hand_messages(fake, solo)[0])
    assert url is not None and url.startswith(f"http://127.0.0.1:{port}/app/?t=")
    page = Page(f"http://127.0.0.1:{port}/app", sign_init_data(fake.token, solo, time.time()))
    status, state = await page.state(table_of_url(url))
    assert status == 200 and len(state["hand"]) == 13


def test_webapp_settings_are_checked() -> None:
    base = {"bot_token": "1:x"}
    s = load_settings(env_file=None, **base, webapp_url="https://piki.example.org/app/")
    assert s.webapp_url == "https://piki.example.org/app"
    assert load_settings(env_file=None, **base, webapp_url="").webapp_url is None
    for bad in ({"webapp_url": "http://piki.example.org/app"}, {"webapp_short_name": "a b"}):
        with pytest.raises(ConfigError) as e:
            load_settings(env_file=None, **base, **bad)
        assert next(iter(bad)).upper() in str(e.value)


async def test_face_down_cards_are_opened_from_the_app(
    fake: FakeTelegram, make_bot: MakeBot
) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}/app"
    await make_bot(webapp_url=base, webapp_listen="127.0.0.1", webapp_port=port)
    anna = fake.add_user(531, "Анна")
    table = await open_table(fake, GROUP, [anna], start=False, title="Слепые")
    for button, shown in (("Настройки", "Настройки стола"), ("Слепой ноль", "чикагский")):
        await (await fake.press_button(anna, table.table_message(), text_contains=button)).answer()
        await fake.wait_for(lambda shown=shown: shown in str(table.table_message()))
    await (await fake.press_button(anna, table.table_message(), text_contains="Готово")).answer()
    await fake.wait_for(lambda: "Начать" in str(table.table_message().buttons()))
    await (await fake.press_button(anna, table.table_message(), text_contains="Начать")).answer()
    await fake.wait_for(lambda: hand_messages(fake, anna))
    url = web_app_url(hand_messages(fake, anna)[0])
    assert url is not None
    table_id = table_of_url(url)
    page = Page(base, sign_init_data(fake.token, anna, time.time()))
    await fake.wait_idle(quiet=0.05)
    status, state = await page.state(table_id)
    assert status == 200 and state["hand"] == [] and state["hidden"] == 13
    assert state["look"]["text"] == "👀 Открыть карты"
    status, state = await page.post("api/look", {"t": table_id})
    assert status == 200 and len(state["hand"]) == 13 and state["look"] is None
    await fake.wait_for(lambda: "Ваши карты" in hand_messages(fake, anna)[0].text)
    # Opening twice changes nothing.
    status, again = await page.post("api/look", {"t": table_id})
    assert status == 200 and again["hand"] == state["hand"]
