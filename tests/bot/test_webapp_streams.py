"""The live streams' own process: the bot hands each checked stream over and
tells it what changed; a table copied move by move draws as the bot's own;
the process comes back after a crash and does not outlive a killed bot."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import time
from functools import partial
from pathlib import Path

from fake_telegram import FakeTelegram
from fake_telegram.webapp import sign_init_data, table_of_url, web_app_url
from harness import BotProcess, MakeBot, open_table
from hypothesis import given, settings
from hypothesis import strategies as st
from test_webapp_api import Setup, hand_messages, idle, mover, start_table
from webapp_kit import FIRST_EVENT, Page, Stream, app_settings

from bot.i18n import Texts, make_core
from bot.model import LiveTable, TableStatus
from bot.webapp import wire
from bot.webapp.feed import Feed, start_streams
from bot.webapp.state import seat_state
from bot.webapp.streams import NICER
from engine import Game, Rules

GROUP = -1005252


def _table(game: Game, game_id: int = 7) -> LiveTable:
    return LiveTable(
        table_id=3,
        chat_id=GROUP,
        chat_title="Пики",
        creator_id=1,
        status=TableStatus.PLAYING,
        rules=game.rules,
        lang="ru",
        seats=[1, None, 2, None],
        names={1: "Анна", 2: "Борис"},
        game_id=game_id,
        game=game,
        due_at=1000.0,
    )


@given(st.integers(0, 2**31), st.lists(st.integers(0, 40), min_size=1, max_size=12))
@settings(max_examples=40, deadline=None)
def test_a_table_copied_move_by_move_is_the_table(seed: int, steps: list[int]) -> None:
    """The streams process's copy, fed whole once and then only the moves
    since, draws for every seat exactly as the bot's table does."""
    core = make_core("ru")
    asyncio.run(core.startup())
    tr = partial(Texts(core), "ru")
    rng = random.Random(seed)
    game = Game(Rules(), seed)
    live = _table(game)
    copy = wire.copy_of(live, None)
    held, sent = wire.apply_copy(None, copy), wire.game_held(copy)
    for step in steps:
        for _ in range(step):
            if game.finished:
                break
            game = game.copy()
            game.apply_action(rng.choice(game.legal_actions()))
        live.game = game
        live.looked.add(rng.randrange(4))
        copy = wire.copy_of(live, sent)
        assert copy[2] is not None and copy[2][0] == "more"
        held, sent = wire.apply_copy(held, copy), wire.game_held(copy)
        assert held.game is not None and held.game.actions == game.actions
        for seat in range(4):
            assert seat_state(tr, held, seat, 5.0) == seat_state(tr, live, seat, 5.0)
    # Another game at the table: sent whole.
    live.game, live.game_id = Game(Rules(), seed + 1), 8
    copy = wire.copy_of(live, sent)
    assert copy[2] is not None and copy[2][0] == "full"
    assert seat_state(tr, wire.apply_copy(held, copy), 0, 5.0) == seat_state(tr, live, 0, 5.0)


def test_moves_that_do_not_follow_what_is_held_are_refused() -> None:
    game = Game(Rules(), 11)
    live = _table(game)
    held = wire.apply_copy(None, wire.copy_of(live, None))
    later = game.copy()
    later.apply_action(later.legal_actions()[0])
    later.apply_action(later.legal_actions()[0])
    live.game = later
    # A move missed; the moves of a game other than the one held.
    for game_id, sent in ((7, (7, 1)), (6, (6, 0))):
        live.game_id = game_id
        copy = wire.copy_of(live, sent)
        assert copy[2] is not None and copy[2][0] == "more"
        try:
            wire.apply_copy(held, copy)
        except wire.OutOfStep:
            continue
        raise AssertionError(f"accepted moves after {sent}")
    live.game_id = 7  # what follows what is held is taken
    after = wire.apply_copy(held, wire.copy_of(live, (7, 0))).game
    assert after is not None and after.actions == later.actions


async def test_an_open_without_its_connection_is_answered_closed() -> None:
    """A page's connection may fail to come with its message (no room for
    another descriptor in the streams process): the process answers
    "closed" for that table, so the bot stops counting the stream, and goes
    on. The real process, over the bot's kind of socket."""
    proc, ours = await start_streams("ru", "WARNING")
    loop = asyncio.get_running_loop()
    try:
        copy = wire.copy_of(_table(Game(Rules(), 5)), None)
        ours.send(wire.encode(("open", 1, "ru", copy, 1000.0)))  # no descriptor
        answer = await asyncio.wait_for(loop.sock_recv(ours, wire.MAX_MESSAGE), 120)
        assert wire.decode(answer) == ("closed", copy[0])
        assert proc.returncode is None
    finally:
        ours.close()  # the bot's end closes: the process ends
        assert await asyncio.wait_for(proc.wait(), 60) == 0


def feed_of(s: Setup) -> Feed:
    """The running bot's Mini App feed (the table was started with the app on)."""
    assert s.bot.app.webapp is not None
    return s.bot.app.webapp.feed


async def test_the_streams_process_comes_back_and_the_pages_reconnect(
    fake: FakeTelegram, make_bot: MakeBot
) -> None:
    s = await start_table(fake, make_bot)
    feed = feed_of(s)
    me, other, state = await mover(s)
    page = s.page(other)
    async with Stream(page, s.table_id) as a, Stream(s.page(me), s.table_id) as b:
        assert (await asyncio.wait_for(a.next(), FIRST_EVENT))[0] == "state"
        assert (await asyncio.wait_for(b.next(), FIRST_EVENT))[0] == "state"
        assert len(feed) == 2
        first = feed.pid
        assert first is not None
        os.kill(first, signal.SIGKILL)
        for stream in (a, b):
            try:
                while True:
                    await asyncio.wait_for(stream.next(), 10)
            except EOFError:
                pass  # the connection went with the process
    # A new process takes the pages' new connections.
    for _ in range(200):
        if feed.pid not in (None, first):
            break
        await asyncio.sleep(0.05)
    assert feed.pid not in (None, first)
    assert len(feed) == 0
    async with Stream(page, s.table_id) as c:
        kind, event = await asyncio.wait_for(c.next(), FIRST_EVENT)  # of a new process
        assert kind == "state" and event["seq"] == state["seq"]
        action = state["bids"][2]["a"] if state["bids"] else state["playable"][0]
        status, _ = await s.page(me).move(state, action)
        assert status == 200
        kind, event = await asyncio.wait_for(c.next(), 10)
        assert kind == "state" and event["seq"] > state["seq"]
    for _ in range(100):  # the process reports the closed stream
        if len(feed) == 0:
            break
        await asyncio.sleep(0.05)
    assert len(feed) == 0
    await idle(s)
    await s.bot.stop()
    assert feed.pid is None


async def test_the_streams_process_yields_the_cores_to_the_bot(
    fake: FakeTelegram, make_bot: MakeBot
) -> None:
    """A press is answered first: the streams process runs ten steps nicer
    than the bot, as a batch process (its wake-ups never preempt the bot),
    not an idle one (so it is never starved)."""
    s = await start_table(fake, make_bot)
    feed = feed_of(s)
    pid = feed.pid
    assert pid is not None
    nicer = min(19, os.getpriority(os.PRIO_PROCESS, 0) + NICER)
    for _ in range(600):  # it sets its own priority once its imports are done
        if os.getpriority(os.PRIO_PROCESS, pid) == nicer:
            break
        await asyncio.sleep(0.1)
    assert os.getpriority(os.PRIO_PROCESS, pid) == nicer
    assert os.sched_getscheduler(pid) == os.SCHED_BATCH
    await idle(s)


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                cmd = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid and b"bot.webapp.streams" in cmd:
                out.append(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def test_a_killed_bot_leaves_no_streams_process_behind(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    base, app = app_settings()
    proc = BotProcess(fake, tmp_path / "spades.db", **app)
    await proc.start(fake)
    anna, boris = fake.add_user(601, "Анна"), fake.add_user(602, "Борис")
    await open_table(fake, GROUP, [anna], others=[boris])
    await fake.wait_for(
        lambda: bool(ms := hand_messages(fake, anna)) and web_app_url(ms[0]), timeout=30
    )
    url = web_app_url(hand_messages(fake, anna)[0])
    assert url is not None and proc.proc is not None
    page = Page(base, sign_init_data(fake.token, anna, time.time()))
    try:
        streams = _children(proc.proc.pid)
        assert len(streams) == 1
        async with Stream(page, table_of_url(url)) as stream:
            assert (await asyncio.wait_for(stream.next(), FIRST_EVENT))[0] == "state"
            proc.kill()
            for _ in range(600):  # a busy machine gives a niced process little
                if not _alive(streams[0]):
                    break
                await asyncio.sleep(0.05)
            assert not _alive(streams[0])
            try:  # the page's connection ended with it
                while True:
                    await asyncio.wait_for(stream.next(), 10)
            except EOFError:
                pass
    finally:
        err = proc.stop()
    assert "Traceback" not in err, err
