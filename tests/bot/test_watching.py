"""Watching a table in the Mini App: a member of the group who is not seated
sees the table live and never a card of anyone's hand, in any answer or
streamed event; cannot move; a stranger is refused. And the hand records
the app steps through: finished hands only."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from fake_telegram import FakeTelegram, FakeUser
from fake_telegram.webapp import sign_init_data
from harness import MakeBot
from webapp_kit import FIRST_EVENT, Page, Setup, Stream, mover, start_table

from bot.clock import FakeClock
from bot.webapp.watch import MEMBER_RECHECK
from engine import Game
from engine.cards import card_label
from engine.record import hand_record


def game_at(full: Game, seq: int) -> Game:
    """The game as it stood after its first ``seq`` moves."""
    assert full.seed is not None
    return Game.replay(full.rules, full.seed, full.actions[:seq], full.first_dealer)


def unplayed(g: Game) -> set[int]:
    """Every card still in someone's hand."""
    return {c for seat in range(g.n) for c in g.hand_cards(seat)}


def assert_no_hidden_card(data: dict[str, Any], full: Game) -> None:
    """A spectator's state holds no card of any hand: no hand, no choices,
    only the cards on the table, and no card still held named in any text."""
    g = game_at(full, data["seq"])
    hidden = unplayed(g)
    assert data["spectator"] is True and data["seat"] == -1
    assert data["hand"] == [] and data["playable"] == [] and data["hidden"] == 0
    assert data["bids"] == [] and data["blind"] is None and data["look"] is None
    assert data["claim"] is None
    assert data["exchange"] is None and not data["my_turn"]
    shown = {c for _, c in data["trick"]}
    if data["last_trick"] is not None:
        shown |= {c for _, c in data["last_trick"]["cards"]}
    assert not shown & hidden
    text = json.dumps(data, ensure_ascii=False)
    for c in hidden:
        assert card_label(c) not in text


async def step(s: Setup) -> dict[str, Any]:
    """One move by whoever of the seated people is to move, through the app."""
    me, _, state = await mover(s)
    page = s.page(me)
    if state["look"] is not None and not state["bids"]:
        status, state = await page.post("api/look", {"t": s.table_id})
        assert status == 200, state
    if state["bids"]:
        ok = [b["a"] for b in state["bids"] if b["ok"]]
        action = min(ok, key=lambda a: abs(a - 55))
    else:
        action = state["playable"][0]
    status, after = await page.move(state, action)
    assert status == 200, after
    return after


async def test_a_member_watches_live_and_sees_no_card(
    fake: FakeTelegram, make_bot: MakeBot
) -> None:
    s = await start_table(fake, make_bot)
    anna, _ = s.table.users
    cyril = fake.users[503]
    watcher = s.page(cyril)
    status, state = await watcher.state(s.table_id)
    assert status == 200, state
    assert_no_hidden_card(state, s.game())
    assert [seat["name"] for seat in state["seats"]][:2] == ["Анна", "Борис"]
    assert state["prompt"] == "Вы смотрите игру как зритель"
    # Through the group's link (the table in start_param), the same.
    status, linked = await s.page(cyril, start_param=f"t{s.table_id}").get("api/state")
    assert status == 200 and linked["spectator"] and linked["table"] == s.table_id
    # The players' view is what it was: their cards, no spectator's mark.
    status, mine = await s.page(anna).state(s.table_id)
    assert status == 200 and len(mine["hand"]) == 13 and "spectator" not in mine
    # No move from a spectator, whatever is sent.
    before = s.actions()
    for action in (55, *range(0, 52, 7)):
        status, answer = await watcher.move(state, action)
        assert (status, answer["error"]) == (403, "err-not-at-table")
    status, answer = await watcher.post("api/look", {"t": s.table_id})
    assert status == 403
    assert s.actions() == before
    # Live: every event of a whole hand and into the next holds no card.
    events: list[tuple[str, dict[str, Any]]] = []
    async with Stream(watcher, s.table_id) as stream:
        assert stream.status == 200

        async def read() -> None:
            while True:
                events.append(await stream.next())

        reader = asyncio.create_task(read())
        try:
            last = state
            steps = 0
            while last["hand_no"] < 1 or last["phase"] != "play":
                last = await step(s)
                steps += 1
                # The stream sends the latest state, so quick moves merge into
                # one event: wait for each person's move to be streamed.
                async with asyncio.timeout(FIRST_EVENT):
                    while not events or events[-1][1].get("seq", -1) < last["seq"]:
                        await asyncio.sleep(0.02)
            await s.fake.wait_idle(quiet=0.05)
            final = len(s.actions())
            async with asyncio.timeout(FIRST_EVENT):
                while not events or events[-1][1].get("seq", -1) < final:
                    await asyncio.sleep(0.02)
        finally:
            reader.cancel()
    full = s.game()
    assert steps > 10 and len(events) > 10
    assert {d["hand_no"] for _, d in events} >= {0, 1}
    for kind, data in events:
        assert kind == "state", (kind, data)
        assert_no_hidden_card(data, full)
    assert any(d["trick"] for _, d in events)  # cards on the table were shown


async def test_strangers_are_refused(fake: FakeTelegram, make_bot: MakeBot) -> None:
    s = await start_table(fake, make_bot)
    dima = fake.add_user(504, "Дмитрий")  # not in the group
    stranger = s.page(dima)
    status, answer = await stranger.state(s.table_id)
    assert (status, answer["error"]) == (403, "err-not-at-table")
    assert "hand" not in answer and "seats" not in answer
    async with Stream(stranger, s.table_id) as stream:
        assert stream.status == 403
    status, answer = await stranger.get("api/record", t=str(s.table_id), h="1")
    assert (status, answer["error"]) == (403, "err-not-at-table")
    # A member who left the group is a stranger too (once Telegram says so).
    cyril = fake.users[503]
    fake.remove_member(s.table.group, cyril)
    status, answer = await s.page(cyril).state(s.table_id)
    assert (status, answer["error"]) == (403, "err-not-at-table")


async def test_records_of_finished_hands_only(fake: FakeTelegram, make_bot: MakeBot) -> None:
    s = await start_table(fake, make_bot)
    anna, _ = s.table.users
    watcher = s.page(fake.users[503])
    # Hand 1 in play: no record, for players and spectators alike.
    for page in (watcher, s.page(anna)):
        status, answer = await page.get("api/record", t=str(s.table_id), h="1")
        assert (status, answer["error"]) == (409, "record-not-finished")
        assert "seats" not in answer
    last = await step(s)
    while last["hand_no"] < 1:
        last = await step(s)
    full = s.game()
    rec = hand_record(full, 0)
    status, record = await watcher.get("api/record", t=str(s.table_id), h="1")
    assert status == 200, record
    assert record["hand"] == 1 and record["hands_done"] == 1
    assert [sorted(seat["dealt"]) for seat in record["seats"]] == [list(h) for h in rec.dealt]
    assert [t["winner"] for t in record["tricks"]] == [t.winner for t in rec.tricks]
    assert [[c for _, c in t["cards"]] for t in record["tricks"]] == [
        [c for _, c in t.cards] for t in rec.tricks
    ]
    assert record["score"] and record["tricks"][0]["step"] == "Взятка 1 из 13"
    for bad, want in (("2", (409, "record-not-finished")), ("9", (409, "err-stale"))):
        status, answer = await watcher.get("api/record", t=str(s.table_id), h=bad)
        assert (status, answer["error"]) == want
    for bad in ("x", "-1", "", "12345"):
        status, answer = await watcher.get("api/record", t=str(s.table_id), h=bad)
        assert (status, answer["error"]) == (400, "webapp-err-request")


def member_calls(fake: FakeTelegram, after: int) -> int:
    return sum(c.method == "getChatMember" for c in fake.calls[after:])


async def test_a_failed_membership_question_is_not_remembered(
    fake: FakeTelegram, make_bot: MakeBot
) -> None:
    """Telegram failing to answer (its error, the network) is no answer:
    the watcher is told to try again, and the next request asks again."""
    s = await start_table(fake, make_bot)
    eva = fake.add_user(505, "Ева")
    fake.add_member(s.table.group, eva)
    # Each asked for the first time (a real answer is remembered for a minute).
    for kind, user in (("500", fake.users[503]), ("drop", eva)):
        watcher = s.page(user)
        fake.inject(kind, method="getChatMember", count=None)
        status, answer = await watcher.state(s.table_id)
        assert (status, answer["error"]) == (503, "webapp-err-telegram"), kind
        assert answer["text"] == (
            "Не удалось узнать у Telegram, состоите ли вы в группе. Попробуйте ещё раз."
        )
        assert "hand" not in answer and "seats" not in answer
        fake.clear_faults()
        status, state = await watcher.state(s.table_id)  # asked again: a member
        assert status == 200 and state["spectator"], kind
    # Nor is a failure taken for a member: a stranger is never let in by one.
    dima = fake.add_user(504, "Дмитрий")
    fake.inject("500", method="getChatMember", count=None)
    status, answer = await s.page(dima).state(s.table_id)
    assert (status, answer["error"]) == (503, "webapp-err-telegram")
    fake.clear_faults()
    status, answer = await s.page(dima).state(s.table_id)
    assert (status, answer["error"]) == (403, "err-not-at-table")


async def test_a_flood_is_refused_before_anything_is_asked(
    fake: FakeTelegram, make_bot: MakeBot
) -> None:
    """The rate comes first: beyond it, state, events and record are refused
    without a question to Telegram (here every question fails, so none is
    remembered and each would be asked)."""
    s = await start_table(fake, make_bot, press_limit=2, press_window=60)
    reads = 2 * 8  # PRESS_LIMIT times READS_PER_PRESS
    cyril = fake.users[503]
    watcher = s.page(cyril)
    fake.inject("500", method="getChatMember", count=None)
    after = len(fake.calls)
    for _ in range(reads):
        status, answer = await watcher.state(s.table_id)
        assert (status, answer["error"]) == (503, "webapp-err-telegram")
    asked = member_calls(fake, after)
    assert asked == reads
    for _ in range(3):
        status, answer = await watcher.state(s.table_id)
        assert (status, answer["error"]) == (429, "err-too-fast")
        status, answer = await watcher.get("api/record", t=str(s.table_id), h="1")
        assert (status, answer["error"]) == (429, "err-too-fast")
        async with Stream(watcher, s.table_id) as stream:
            assert stream.status == 429
            assert (await stream.refusal())["error"] == "err-too-fast"
    await s.fake.wait_idle(quiet=0.05)
    assert member_calls(fake, after) == asked
    fake.clear_faults()


async def test_a_watcher_who_leaves_the_group_loses_the_stream(
    fake: FakeTelegram, make_bot: MakeBot
) -> None:
    """An open stream asks again every MEMBER_RECHECK seconds (the bot's
    clock): a member who left the group is sent «gone» and the stream ends;
    one who stays keeps watching."""
    clock = FakeClock()
    s = await start_table(fake, make_bot, clock=clock)
    cyril = fake.users[503]
    dima = fake.add_user(504, "Дмитрий")
    fake.add_member(s.table.group, dima)

    def page(user: FakeUser) -> Page:
        """Signed at the bot's time (its clock is the test's)."""
        return Page(s.base, sign_init_data(fake.token, user, clock.now()))

    async with (
        Stream(page(cyril), s.table_id) as leaving,
        Stream(page(dima), s.table_id) as staying,
    ):
        assert leaving.status == 200 and staying.status == 200
        for stream in (leaving, staying):
            kind, _ = await asyncio.wait_for(stream.next(), FIRST_EVENT)
            assert kind == "state"
        fake.remove_member(s.table.group, cyril)
        clock.advance(MEMBER_RECHECK)
        async with asyncio.timeout(FIRST_EVENT):
            while True:
                kind, data = await leaving.next()
                if kind != "state":
                    break
        assert (kind, data["error"]) == ("gone", "err-not-at-table")
        try:
            extra = await asyncio.wait_for(leaving.next(), FIRST_EVENT)
        except EOFError:
            extra = None
        assert extra is None  # the stream ended
        # The one who stayed is still watching: the next change reaches them.
        hub = s.bot.app.webapp.hub if s.bot.app.webapp is not None else None
        assert hub is not None
        await fake.wait_for(lambda: len(hub) == 1, message="one stream left")
        fake.remove_bot_from_group(s.table.group)
        async with asyncio.timeout(FIRST_EVENT):
            while True:
                kind, data = await staying.next()
                assert kind == "state"
                if data["paused"]:
                    break
