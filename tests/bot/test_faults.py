"""Whole games while Telegram misbehaves: nothing lost, nothing applied twice.

The fake Bot API answers 429 (flood wait), 500/502 (also nginx's HTML 502),
hangs until the client gives up, or drops the connection, on any call: before
the action (Telegram did nothing) or *after* it (Telegram did it, the bot
never learned). The players keep pressing as people would: the live button,
again when nothing seems to happen, and now and then an old one.

What must hold afterwards:

* the ``actions`` table is exactly the game: every human row comes from a
  press of that player, no seat of a person was played by the computer, and
  ``engine.Game.replay`` gives a finished game;
* every logical message (table message, hands, results) shows its final
  content; no outbox row is pending or failed;
* each group message of an event (a hand's result, the game over) is in the
  group once. The one unavoidable exception: Telegram did send it but the
  connection dropped before the answer (an ``after=True`` fault). The outbox
  then cannot know and sends again (at least once); a duplicate is allowed
  only for such a call, at most one per such call, and never otherwise.

To keep the run short the bot's HTTP timeout is 3 s instead of 30 s and the
outbox backs off from 0.05 s instead of 1 s (class attributes meant for
this); the logic under test is unchanged.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import sqlite3
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from aiogram.client.session.aiohttp import AiohttpSession
from fake_telegram import CallbackPress, FakeMessage, FakeTelegram, FakeUser
from harness import MakeBot, Table, choose, game_over_in, open_table

import bot.app as bot_app
from bot.outbox import Outbox
from engine import Game
from engine.rules import Rules

CALL_TIMEOUT = 2  # seconds; the bot's default is 30


# ---------------------------------------------------------------- fixtures
@pytest.fixture(autouse=True)
def keep_sent_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checks read what each message's last row said: the outbox keeps
    sent rows for the whole test, not its usual few seconds."""
    monkeypatch.setattr(Outbox, "keep_sent", 3600.0)


@pytest.fixture
def quick_timeouts(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hung call costs 3 s, a retry 0.05–0.5 s: the same code, a shorter run."""
    real_session = bot_app.AiohttpSession

    def session(*, api: Any, timeout: float) -> AiohttpSession:
        return real_session(api=api, timeout=CALL_TIMEOUT)

    class QuickOutbox(Outbox):
        backoff_base = 0.05
        backoff_cap = 0.5

        def __init__(self, *args: Any, request_timeout: int | None = None, **kw: Any) -> None:
            super().__init__(*args, request_timeout=CALL_TIMEOUT, **kw)

    monkeypatch.setattr(bot_app, "AiohttpSession", session)
    monkeypatch.setattr(bot_app, "Outbox", QuickOutbox)


# ------------------------------------------------------------------ the db
@contextmanager
def _db(path: Path) -> Iterator[sqlite3.Connection]:
    con = sqlite3.connect(path, timeout=30)
    try:
        yield con
    finally:
        con.close()


def current_seq(path: Path) -> int:
    """Moves made in the table's (only) game so far."""
    with _db(path) as con:
        row = con.execute("SELECT seq FROM games ORDER BY game_id DESC LIMIT 1").fetchone()
    return int(row[0]) if row else 0


def outbox_counts(path: Path) -> Counter[str]:
    with _db(path) as con:
        return Counter(
            dict(con.execute("SELECT status, COUNT(*) FROM outbox GROUP BY status").fetchall())
        )


def pending_rows(path: Path) -> list[tuple[object, ...]]:
    """What is left pending, with how long ago each row was queued (for a failure's message)."""
    with _db(path) as con:
        return con.execute(
            "SELECT id, chat_id, op, key, substr(payload, 1, 120), round(strftime('%s','now') - created_at, 1)"
            " FROM outbox WHERE status='pending'"
        ).fetchall()


@dataclass
class Finished:
    game: Game
    rows: list[tuple[int, int, int, int | None]]  # seq, seat, action, by_user
    seats: list[int | None]
    status: str
    table_id: int


def game_state(path: Path) -> Finished:
    with _db(path) as con:
        game_id, table_id, seed, rules_json, dealer, status = con.execute(
            "SELECT game_id, table_id, seed, rules_json, first_dealer, status FROM games"
            " ORDER BY game_id DESC LIMIT 1"
        ).fetchone()
        rows = con.execute(
            "SELECT seq, seat, action, by_user FROM actions WHERE game_id=? ORDER BY seq",
            (game_id,),
        ).fetchall()
        seats = [
            uid
            for (uid,) in con.execute(
                "SELECT user_id FROM seats WHERE table_id=? ORDER BY seat", (table_id,)
            )
        ]
    assert [r[0] for r in rows] == list(range(len(rows))), "gaps or repeats in the move numbers"
    game = Game.replay(Rules.from_json(json.loads(rules_json)), seed, [r[2] for r in rows], dealer)
    return Finished(game, rows, seats, status, table_id)


def final_messages_are_current(
    fake: FakeTelegram, path: Path, unreachable: frozenset[int] = frozenset()
) -> None:
    """Every remembered message shows what its newest queued row says.

    Rows for a chat in ``unreachable`` (a player who had blocked the bot) may
    have failed meanwhile; there the newest row that was sent counts.
    """
    with _db(path) as con:
        known = con.execute("SELECT key, chat_id, message_id FROM messages").fetchall()
        for key, chat_id, message_id in known:
            rows = con.execute(
                "SELECT status, payload FROM outbox WHERE key=? AND op IN ('put','send')"
                " ORDER BY id DESC",
                (key,),
            ).fetchall()
            if chat_id in unreachable:
                rows = [r for r in rows if r[0] != "failed"]
            assert rows and rows[0][0] == "sent", (key, rows[:1])
            want = json.loads(rows[0][1])
            got = fake.message(chat_id, message_id)
            assert not got.deleted, key
            assert got.html == want["text"], (key, got.text)
            want_buttons = [
                b.get("callback_data") or b.get("url")
                for row in (want.get("reply_markup") or {}).get("inline_keyboard", [])
                for b in row
            ]
            assert [b.value for b in got.buttons()] == want_buttons, key


# ------------------------------------------------------------ the players
def parse(data: str) -> tuple[str, int, int, int | None]:
    parts = data.split(":")
    return parts[0], int(parts[1]), int(parts[2]), int(parts[3]) if len(parts) > 3 else None


def newest_with_buttons(fake: FakeTelegram, user: FakeUser) -> FakeMessage | None:
    for m in reversed(fake.chat_messages(user.id)):
        if any((b.value or "").startswith(("m:", "l:")) for b in m.buttons()):
            return m
    return None


@dataclass
class Press:
    user: int
    data: str
    current: bool  # its move number was the game's when pressed
    answer: str | None = None  # the toast, "" for none, None if no answer came


@dataclass
class Players:
    fake: FakeTelegram
    table: Table
    db: Path
    rng: random.Random
    replay_rate: float = 0.1
    absent: set[int] = field(default_factory=set)  # these people do not press now
    presses: list[Press] = field(default_factory=list)
    _answers: list[asyncio.Task[None]] = field(default_factory=list)

    def hands_done(self) -> int:
        return sum("сыграна" in t for t in self.fake.sent_texts(self.table.group))

    async def _press(self, user: FakeUser, msg: FakeMessage, data: str, current: bool) -> Press:
        press = await self.fake.press_raw(user, user.id, msg.message_id, data)
        record = Press(user.id, data, current)
        self.presses.append(record)
        self._answers.append(asyncio.create_task(self._answer(press, record)))
        return record

    @staticmethod
    async def _answer(press: CallbackPress, record: Press) -> None:
        """Noted in the background: a lost answer must not stall the players."""
        try:
            answer = await press.answer(timeout=CALL_TIMEOUT * 3 + 2)
        except AssertionError:
            return
        record.answer = answer["text"] or ""

    async def answers(self) -> None:
        await asyncio.gather(*self._answers)

    async def play(self, until: Callable[[], bool], stall: float = 60.0) -> None:
        loop = asyncio.get_running_loop()
        last_progress = loop.time()
        last_state: tuple[int, int] = (-1, -1)
        while not until():
            await self.fake.wait_idle(quiet=0.05, timeout=60)
            if until():
                return
            seq = current_seq(self.db)
            state = (seq, len(self.fake.calls))
            if state != last_state:
                last_state, last_progress = state, loop.time()
            elif loop.time() - last_progress > stall:
                raise AssertionError(f"no progress for {stall}s\n{self.fake.dump_calls()}")
            acted = False
            for user in self.table.users:
                if user.id in self.absent:
                    continue
                msg = newest_with_buttons(self.fake, user)
                if msg is None:
                    continue
                data = choose(msg, 7 if self.hands_done() < 2 else None)
                if data is None or parse(data)[2] != seq:
                    continue  # not this player's turn, or the message is not updated yet
                await self._press(user, msg, data, current=True)
                acted = True
                old = [p for p in self.presses if p.user == user.id and p.data.startswith("m:")]
                if old and self.rng.random() < self.replay_rate:
                    # An old press again (a slow phone, a double tap): must change nothing.
                    again = self.rng.choice(old[-6:])
                    await self._press(user, msg, again.data, current=False)
                break
            if not acted:
                await asyncio.sleep(0.05)

    def check_actions(self, done: Finished) -> None:
        """Human rows come from presses; every live press was applied; no robot at a person's seat."""
        by_seq = {seq: (seat, action, by_user) for seq, seat, action, by_user in done.rows}
        pressed = {(p.user, p.data) for p in self.presses}
        for seq, seat, action, by_user in done.rows:
            owner = done.seats[seat]
            if owner is None:
                assert by_user is None, f"move {seq}: a person played the computer's seat"
                continue
            assert by_user == owner, f"move {seq} at seat {seat} made by {by_user}, not {owner}"
            assert (owner, f"m:{done.table_id}:{seq}:{action}") in pressed, (
                f"move {seq} was never pressed"
            )
        for p in self.presses:
            kind, _t, seq, action = parse(p.data)
            if kind != "m" or not p.current:
                continue
            seat, applied, by_user = by_seq[seq]
            assert (by_user, applied) == (p.user, action), f"live press {p} was lost"


def group_events_once(fake: FakeTelegram, group: int) -> int:
    """Each result/game-over text once, except copies Telegram made of a call
    whose answer was lost (``after=True``). Returns how many such copies."""
    messages = [
        m
        for m in fake.world.chat(group).all_messages
        if m.from_bot
        and not m.service
        and ("сыграна" in first_text(m) or "окончена" in first_text(m))
    ]
    unacknowledged = {
        c.result["message_id"]
        for c in fake.calls_to("sendMessage", group)
        if c.fault is not None and isinstance(c.result, dict)
    }
    by_text: dict[str, list[int]] = {}
    for m in messages:
        by_text.setdefault(first_text(m), []).append(m.message_id)
    extra = 0
    for text, ids in by_text.items():
        acknowledged = [i for i in ids if i not in unacknowledged]
        assert len(acknowledged) <= 1, f"sent twice with no fault to explain it: {text[:60]!r}"
        assert len(ids) >= 1
        extra += len(ids) - 1
    return extra


def first_text(m: FakeMessage) -> str:
    return m.history[0].text if m.history else m.text


# --------------------------------------------------------------- set-up
GROUP = -1008001


async def open_game(fake: FakeTelegram, humans: int, group: int = GROUP) -> Table:
    """``humans`` people (North, then East) and computer seats, club rules, started."""
    users = [fake.add_user(401 + i, n) for i, n in enumerate(["Анна", "Борис"][:humans])]
    return await open_table(
        fake, group, users, seats=["Восток"], club=True, title="Пики под нагрузкой"
    )


async def drained(fake: FakeTelegram, db: Path, timeout: float = 60) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while outbox_counts(db)["pending"]:
        assert loop.time() < end, f"outbox still pending: {outbox_counts(db)}"
        await asyncio.sleep(0.1)
    await fake.wait_idle(quiet=0.3, timeout=30)


def assert_clean_end(
    fake: FakeTelegram, db: Path, players: Players, unreachable: frozenset[int] = frozenset()
) -> Finished:
    done = game_state(db)
    assert done.status == "finished" and done.game.finished
    players.check_actions(done)
    counts = outbox_counts(db)
    assert counts["pending"] == 0, (counts, pending_rows(db))
    with _db(db) as con:
        failed = {c for (c,) in con.execute("SELECT chat_id FROM outbox WHERE status='failed'")}
    assert failed <= unreachable, f"undelivered rows for {failed - unreachable}"
    final_messages_are_current(fake, db, unreachable)
    final = players.table.table_message()
    assert final.buttons() == [] and str(done.game.totals[0]).replace("-", "\u2212") in final.text
    results = {
        first_text(m) for m in fake.chat_messages(players.table.group) if "сыграна" in m.text
    }
    assert len(results) == len(done.game.sheet), "one result line per hand"
    return done


# ------------------------------------------------------------------ tests
@pytest.mark.slow
async def test_random_faults_on_every_call(
    fake: FakeTelegram, tmp_path: Path, quick_timeouts: None, make_bot: MakeBot
) -> None:
    """One person and three computer seats; 12 % of all calls fail in every way."""
    db = tmp_path / "spades.db"
    bot = await make_bot()
    table = await open_game(fake, humans=1)
    fake.inject_random(
        0.12,
        # Weighted: a hung call stalls its chat for the whole timeout.
        kinds=("429", "500", "500", "502", "502_html", "drop", "drop", "drop", "timeout"),
        seed=20240601,
        after_rate=0.3,
    )
    players = Players(fake, table, db, random.Random(1))
    polls = 0

    def until() -> bool:
        nonlocal polls
        # Now and then the long poll breaks too (also after Telegram answered).
        if len(players.presses) // 12 > polls:
            polls += 1
            kind = ("drop", "500", "502_html", "429")[polls % 4]
            fake.inject(kind, method="getUpdates", after=polls % 2 == 0)
        return game_over_in(fake, GROUP)()

    await players.play(until)
    fake.clear_faults()
    await drained(fake, db)
    await players.answers()
    await bot.stop()
    done = assert_clean_end(fake, db, players)
    extra = group_events_once(fake, GROUP)
    faults = fake.stats().faults
    assert sum(faults.values()) >= 10, faults
    assert len(done.rows) >= 52
    print(
        f"presses {len(players.presses)} moves {len(done.rows)} hands {len(done.game.sheet)} calls {len(fake.calls)}"
    )
    print(f"faults {dict(faults)}, duplicate group messages explained by lost answers: {extra}")


def bot_errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        f"{r.name}: {r.getMessage()}"
        for r in caplog.records
        if r.levelno >= logging.ERROR and r.name.startswith("bot")
    ]


@pytest.mark.slow
async def test_two_players_group_answers_lost(
    fake: FakeTelegram, tmp_path: Path, quick_timeouts: None, make_bot: MakeBot
) -> None:
    """Two people. Half of the group's new messages reach the group but the
    answer is lost on the way back; edits, button answers, private messages
    and the long poll fail now and then, before or after Telegram acted."""
    db = tmp_path / "spades.db"
    bot = await make_bot()
    table = await open_game(fake, humans=2)
    # Seed 3: the very first draw hits, so the first result line is affected.
    assert random.Random(3).random() < 0.5
    fake.inject_random(
        0.5,
        kinds=("drop", "timeout"),
        seed=3,
        method="sendMessage",
        chat_id=GROUP,
        after_rate=1,
    )
    players = Players(fake, table, db, random.Random(2))
    cycle = [
        ("500", "editMessageText", False),
        ("drop", "editMessageText", True),
        ("timeout", "answerCallbackQuery", True),
        ("drop", "answerCallbackQuery", False),
        ("429", "editMessageText", False),
        ("502_html", "getUpdates", False),
        ("drop", "sendMessage", False),
        ("drop", "getUpdates", True),
        ("429", "answerCallbackQuery", False),
    ]
    injected = 0

    def until() -> bool:
        nonlocal injected
        if len(players.presses) // 3 > injected:
            kind, method, after = cycle[injected % len(cycle)]
            fake.inject(kind, method=method, after=after)  # type: ignore[arg-type]
            injected += 1
        return game_over_in(fake, GROUP)()

    await players.play(until)
    fake.clear_faults()
    await drained(fake, db)
    await players.answers()
    await bot.stop()
    assert_clean_end(fake, db, players)
    extra = group_events_once(fake, GROUP)
    assert extra >= 1, "the scenario meant to lose at least one answer of a group message"


async def test_player_blocks_the_bot_and_comes_back(
    fake: FakeTelegram, tmp_path: Path, caplog: pytest.LogCaptureFixture, make_bot: MakeBot
) -> None:
    """The group is told how to unblock, the game waits for that player (no
    computer move in their seat), and goes on once they press Start again."""
    caplog.set_level(logging.WARNING)
    db = tmp_path / "spades.db"
    bot = await make_bot()
    table = await open_game(fake, humans=2)
    anna, boris = table.users
    players = Players(fake, table, db, random.Random(3), replay_rate=0)
    # Blocked while Anna is to move: her move makes the bot write to Boris.
    await players.play(lambda: current_seq(db) >= 8 and live_press(fake, anna, db) is not None)
    fake.block_bot(boris)
    players.absent.add(boris.id)

    def note() -> list[str]:
        return [t for t in fake.sent_texts(GROUP) if "заблокирован" in t]

    await players.play(lambda: bool(note()) and game_state(db).game.to_move == 1)
    waiting_at = current_seq(db)
    await fake.wait_idle(quiet=0.3)
    assert current_seq(db) == waiting_at, "somebody moved for the blocked player"
    assert "Борис" in note()[0] and "@piki_test_bot" in note()[0]

    await fake.start_bot(boris)  # Start (or Unblock) in the private chat
    players.absent.clear()
    await players.play(game_over_in(fake, GROUP))
    await drained(fake, db)
    await bot.stop()
    assert_clean_end(fake, db, players, unreachable=frozenset({boris.id}))
    assert len(note()) == 1
    assert not bot_errors(caplog)


LOCKER = """
import sqlite3, sys, time
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute("BEGIN IMMEDIATE")
con.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('locker', 'was here')")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
con.execute("COMMIT")
"""


@pytest.mark.slow
async def test_database_locked_by_another_process(
    fake: FakeTelegram, tmp_path: Path, caplog: pytest.LogCaptureFixture, make_bot: MakeBot
) -> None:
    """Another process holds the write lock for 6 s (longer than SQLite's own
    5 s busy timeout): the press waits and is applied, nothing is lost."""
    caplog.set_level(logging.WARNING)
    db = tmp_path / "spades.db"
    bot = await make_bot()
    table = await open_game(fake, humans=1)
    (anna,) = table.users
    players = Players(fake, table, db, random.Random(4), replay_rate=0)

    def anna_to_move() -> str | None:
        msg = newest_with_buttons(fake, anna)
        data = choose(msg, 7) if msg else None
        return (
            data if data and data.startswith("m:") and parse(data)[2] == current_seq(db) else None
        )

    await players.play(lambda: current_seq(db) >= 6 and bool(anna_to_move()))
    seq = current_seq(db)
    locker = await asyncio.create_subprocess_exec(
        sys.executable, "-c", LOCKER, str(db), "6", stdout=asyncio.subprocess.PIPE
    )
    assert locker.stdout is not None
    assert await locker.stdout.readline() == b"locked\n"
    data = anna_to_move()
    assert data is not None
    msg = newest_with_buttons(fake, anna)
    assert msg is not None
    press = await fake.press_raw(anna, anna.id, msg.message_id, data)
    answer = await press.answer(timeout=14)
    assert answer["text"] is None, answer
    assert await locker.wait() == 0
    assert current_seq(db) > seq
    await players.play(game_over_in(fake, GROUP))
    await drained(fake, db)
    await bot.stop()
    players.presses.append(Press(anna.id, data, current=True, answer=""))
    assert_clean_end(fake, db, players)
    with _db(db) as con:
        assert con.execute("SELECT value FROM meta WHERE key='locker'").fetchone() == ("was here",)
    assert not bot_errors(caplog)
    assert any("locked by another process" in r.getMessage() for r in caplog.records)


async def test_failed_answer_does_not_report_an_applied_move_as_an_error(
    fake: FakeTelegram,
    tmp_path: Path,
    quick_timeouts: None,
    caplog: pytest.LogCaptureFixture,
    make_bot: MakeBot,
) -> None:
    caplog.set_level(logging.WARNING)
    db = tmp_path / "spades.db"
    bot = await make_bot()
    table = await open_game(fake, humans=1)
    (anna,) = table.users
    await fake.wait_idle(quiet=0.1)
    msg = newest_with_buttons(fake, anna)
    assert msg is not None
    data = choose(msg, 7)
    assert data is not None
    if data.startswith("l:"):  # open the cards first
        await (await fake.press_raw(anna, anna.id, msg.message_id, data)).answer()
        await fake.wait_idle(quiet=0.1)
        msg = newest_with_buttons(fake, anna)
        assert msg is not None
        data = choose(msg, 7)
        assert data is not None
    seq = current_seq(db)
    fake.inject("500", method="answerCallbackQuery")
    press = await fake.press_raw(anna, anna.id, msg.message_id, data)
    try:
        answer: dict[str, Any] | None = await press.answer(timeout=CALL_TIMEOUT + 3)
    except AssertionError:
        answer = None  # giving up quietly is fine: the move shows in the chat
    await fake.wait_idle(quiet=0.1)
    assert current_seq(db) > seq  # the move was applied
    await bot.stop()
    assert answer is None or "не так" not in (answer["text"] or ""), answer
    assert not bot_errors(caplog), bot_errors(caplog)


def live_press(fake: FakeTelegram, user: FakeUser, db: Path) -> tuple[FakeMessage, str] | None:
    """The move button this person would press now, if it is theirs to press."""
    msg = newest_with_buttons(fake, user)
    data = choose(msg, 7) if msg else None
    if msg is None or data is None or not data.startswith("m:"):
        return None
    return (msg, data) if parse(data)[2] == current_seq(db) else None


async def test_bot_removed_from_group_pauses_the_game_until_added_back(
    fake: FakeTelegram, tmp_path: Path, caplog: pytest.LogCaptureFixture, make_bot: MakeBot
) -> None:
    caplog.set_level(logging.WARNING)
    db = tmp_path / "spades.db"
    bot = await make_bot()
    table = await open_game(fake, humans=1)
    (anna,) = table.users
    players = Players(fake, table, db, random.Random(5), replay_rate=0)
    await players.play(lambda: current_seq(db) >= 6 and live_press(fake, anna, db) is not None)
    fake.remove_bot_from_group(GROUP)
    # Anna is told in private; her press is refused with the reason; nothing moves.
    await fake.wait_for(
        lambda: any("на паузе" in m.text for m in fake.chat_messages(anna.id)), timeout=15
    )
    seq = current_seq(db)
    found = live_press(fake, anna, db)
    assert found is not None
    answer = await (await fake.press_raw(anna, anna.id, found[0].message_id, found[1])).answer()
    assert "на паузе" in (answer["text"] or "")
    await fake.wait_idle(quiet=0.3)
    assert current_seq(db) == seq
    with _db(db) as con:
        assert con.execute("SELECT status, paused FROM tables").fetchone() == ("playing", 1)
    # Added back: the game goes on from the same place and ends normally.
    fake.add_bot_to_group(GROUP)
    await players.play(game_over_in(fake, GROUP))
    await drained(fake, db)
    await bot.stop()
    assert_clean_end(fake, db, players, unreachable=frozenset({GROUP}))
    assert not bot_errors(caplog)


async def test_group_upgraded_to_supergroup_mid_game(
    fake: FakeTelegram, tmp_path: Path, caplog: pytest.LogCaptureFixture, make_bot: MakeBot
) -> None:
    caplog.set_level(logging.WARNING)
    db = tmp_path / "spades.db"
    bot = await make_bot()
    table = await open_game(fake, humans=2)
    players = Players(fake, table, db, random.Random(6), replay_rate=0)
    await players.play(lambda: current_seq(db) >= 6)
    new = fake.migrate_group(GROUP)
    table.group = new
    await players.play(game_over_in(fake, new))
    await drained(fake, db)
    await bot.stop()
    with _db(db) as con:
        assert con.execute("SELECT chat_id FROM tables").fetchall() == [(new,)]
    assert_clean_end(fake, db, players)
    assert fake.sent_texts(new), "the game went on in the supergroup"
    assert not bot_errors(caplog)


async def test_block_on_own_turn_is_told_at_once(
    fake: FakeTelegram, tmp_path: Path, make_bot: MakeBot
) -> None:
    db = tmp_path / "spades.db"
    await make_bot()
    table = await open_game(fake, humans=2)
    anna, boris = table.users
    players = Players(fake, table, db, random.Random(7), replay_rate=0)
    await players.play(lambda: live_press(fake, boris, db) is not None)
    fake.block_bot(boris)
    await fake.wait_for(lambda: any("заблокирован" in t for t in fake.sent_texts(GROUP)), timeout=5)


async def test_start_waits_out_a_busy_or_unreachable_telegram(
    fake: FakeTelegram, tmp_path: Path, caplog: pytest.LogCaptureFixture, make_bot: MakeBot
) -> None:
    """A restart during a flood wait, an outage or a network blip: every call the
    bot cannot start without is tried again until it goes through, no exit."""
    caplog.set_level(logging.WARNING)
    fake.inject("429", method="getMe", count=1, retry_after=1)
    fake.inject("502_html", method="getMe", count=1)  # a proxy's error page
    fake.inject("500", method="setMyCommands", count=1)
    fake.inject("drop", method="deleteWebhook", count=1)
    bot = await make_bot()
    assert len(fake.calls_to("getMe")) == 3
    assert len(fake.calls_to("deleteWebhook")) == 2
    # The menu is set alongside, not before the game: two languages x two scopes, one retried.
    await fake.wait_for(lambda: len(fake.calls_to("setMyCommands")) == 5)
    assert len(fake.world.commands) == 4
    anna = fake.add_user(341, "Анна")
    await fake.start_bot(anna)
    await fake.wait_for(lambda: fake.sent_texts(anna.id), message="the welcome")
    await bot.stop()
    retried = [r.getMessage() for r in caplog.records if "failed at start" in r.getMessage()]
    assert len(retried) == 4, retried
    assert not bot_errors(caplog), bot_errors(caplog)


@pytest.mark.parametrize("signals", [1, 2])
async def test_a_stop_lets_the_updates_being_handled_finish(
    fake: FakeTelegram,
    tmp_path: Path,
    quick_timeouts: None,
    caplog: pytest.LogCaptureFixture,
    signals: int,
    make_bot: MakeBot,
) -> None:
    """SIGTERM while a press is half-way (here waiting on Telegram to say
    whether the admin who confirms, not the table's creator, is one): the
    press is carried out before the database closes. Telegram was already
    told the update arrived; cut off, it would be lost. A second signal while
    the bot waits for it does not cut the stop short either."""
    caplog.set_level(logging.WARNING)
    db = tmp_path / "spades.db"
    bot = await make_bot()
    table = await open_game(fake, humans=1)
    (anna,) = table.users
    vera = fake.add_user(409, "Вера")
    fake.add_member(GROUP, vera)
    fake.promote(GROUP, vera)
    await fake.send_text(vera, GROUP, "/cancel")
    confirm = await fake.wait_for(
        lambda: next((m for m in fake.chat_messages(GROUP) if "Отменить игру" in m.text), None)
    )
    held = fake.hold("getChatMember")  # answered once the stop is under way
    after = len(fake.calls)
    await fake.press_button(vera, confirm, text_contains="Да")
    await fake.wait_for(
        lambda: any(c.method == "getChatMember" for c in fake.calls[after:]),
        message="the admin check under way",
    )
    asyncio.get_running_loop().call_later(1.0, held.set)
    if signals == 2:
        assert bot.task is not None
        bot.task.cancel()
        await asyncio.sleep(0.3)  # the stop is waiting for the press by now
    await bot.stop()
    assert bot.app.db._closed
    with _db(db) as con:
        (status,) = con.execute("SELECT status FROM tables").fetchone()
    assert status == "cancelled"
    assert not bot_errors(caplog), bot_errors(caplog)


async def test_a_failing_shutdown_hook_does_not_hang_the_stop(
    fake: FakeTelegram, tmp_path: Path, caplog: pytest.LogCaptureFixture, make_bot: MakeBot
) -> None:
    """A shutdown hook that fails is logged, and the stop still closes the database."""

    async def broken_hook() -> None:
        raise RuntimeError("a shutdown hook failed")

    bot = await make_bot()
    bot.app.dp.shutdown.register(broken_hook)
    await bot.stop(timeout=20)
    assert bot.app.db._closed
    assert any("shutdown hook failed" in r.getMessage() for r in caplog.records)
