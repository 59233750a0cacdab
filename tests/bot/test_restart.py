"""The bot process is killed mid-hand and started again on the same database."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest
from bot_processes import BotProcesses, ended, exit_of
from fake_telegram import FakeTelegram
from harness import MakeBot, bot_env, count, game_over_in, open_table, play_moves

from bot.storage import Statements, inbox
from engine import Game
from engine.rules import Rules

GROUP = -1007777


def actions(db) -> list[int]:
    con = sqlite3.connect(db)
    try:
        return [a for (a,) in con.execute("SELECT action FROM actions ORDER BY seq")]
    finally:
        con.close()


@pytest.mark.slow
async def test_kill_9_mid_hand_and_finish_the_game(
    fake: FakeTelegram, bot_process: BotProcesses, db_path: Path
) -> None:
    db = db_path
    proc = await bot_process(ai_workers=1, ai_level="master")
    anna, boris = fake.add_user(301, "Анна"), fake.add_user(302, "Борис")
    table = await open_table(
        fake, GROUP, [anna, boris], seats=["Восток"], club=True, title="Группа"
    )

    # Play into the middle of the first hand's play, then crash.
    await play_moves(table, lambda: len(actions(db)) >= 4 + 9)
    acknowledged = actions(db)
    proc.kill()

    # Moves pressed while the bot is down wait in Telegram's queue.
    proc = await bot_process.again(proc)
    # Every acknowledged move survived, and the players' messages are current.
    assert actions(db)[: len(acknowledged)] == acknowledged
    await fake.wait_for(lambda: table.actionable(), timeout=30)

    await play_moves(table, game_over_in(fake, GROUP))
    await fake.wait_idle(quiet=0.1)
    err = proc.stop()
    assert "Traceback" not in err, err

    con = sqlite3.connect(db)
    status, seed, rules_json, dealer, winner = con.execute(
        "SELECT status, seed, rules_json, first_dealer, winner FROM games"
    ).fetchone()
    con.close()
    assert status == "finished"
    game = Game.replay(Rules.from_json(json.loads(rules_json)), seed, actions(db), dealer)
    assert game.finished and game.winner == winner
    final = next(t for t in fake.sent_texts(GROUP) if "Игра окончена" in t)
    assert all(str(total).replace("-", "\u2212") in final for total in game.totals)
    # One result line per hand, none repeated by the restart.
    results = [t for t in fake.sent_texts(GROUP) if "сыграна" in t]
    assert len(results) == len(game.sheet)


async def test_a_stopped_bot_polls_no_more(fake: FakeTelegram, make_bot: MakeBot) -> None:
    """After a stop nothing of the old run takes updates: an orphaned poller
    would confirm updates it can no longer handle and fight the next run with
    409 Conflict (it once hung a restart test in CI)."""
    bot = await make_bot()
    anna = fake.add_user(331, "Анна")
    await fake.start_bot(anna)
    await fake.wait_idle(quiet=0.1)
    await bot.stop()
    stopped_at = len(fake.calls)
    await fake.send_text(anna, anna.id, "/help")
    await asyncio.sleep(2.5)  # an orphan retries a broken poll after aiogram's 1 s backoff
    assert fake.updates_pending() == 1
    assert not [c for c in fake.calls[stopped_at:] if c.method == "getUpdates"]


async def test_what_is_queued_at_a_stop_goes_out_before_the_exit(
    fake: FakeTelegram, db_path, make_bot: MakeBot
) -> None:
    """A SIGTERM while an answer waits out a flood wait: the answer is sent
    before the bot exits, not left queued until some next start."""
    db = db_path
    bot = await make_bot()
    anna = fake.add_user(332, "Анна")
    await fake.start_bot(anna)
    await fake.wait_idle(quiet=0.1)
    flood = fake.inject("429", method="sendMessage", chat_id=anna.id, retry_after=2)
    await fake.send_text(anna, anna.id, "/help")
    await fake.wait_for(lambda: flood.remaining == 0, timeout=15)
    await bot.stop()
    assert fake.sent_texts(anna.id), "the answer was still queued at the exit"
    assert count(db, "SELECT COUNT(*) FROM outbox WHERE status = 'pending'") == 0


async def test_an_update_the_inbox_failed_to_keep_is_kept_later_and_handled_once(
    fake: FakeTelegram, tmp_path, monkeypatch, caplog, make_bot: MakeBot
) -> None:
    """The write that keeps a getUpdates answer fails once (a disk error) while
    its update is already being handled: the poller writes it again before
    confirming it, so it is marked done and a restart does not answer again."""
    db = tmp_path / "spades.db"
    real_store = inbox.store
    failures: list[str] = []

    async def store_failing_once(st: Statements, rows: list[tuple[int, str]]) -> None:
        if not failures and any("/help" in body for _, body in rows):
            failures.append("disk I/O error")
            raise sqlite3.OperationalError("disk I/O error")
        await real_store(st, rows)

    anna = fake.add_user(333, "Анна")
    bot = await make_bot()
    await fake.start_bot(anna)
    # Her greeting is out before the count (a quiet spell alone came first on a loaded machine).
    await fake.wait_for(lambda: fake.sent_texts(anna.id), timeout=15)
    await fake.wait_idle(quiet=0.1)
    monkeypatch.setattr(inbox, "store", store_failing_once)
    said = len(fake.sent_texts(anna.id))
    await fake.send_text(anna, anna.id, "/help")
    await fake.wait_for(lambda: len(fake.sent_texts(anna.id)) > said, timeout=15)
    await fake.wait_for(lambda: fake.updates_pending() == 0, timeout=15)
    await fake.wait_idle(quiet=0.3)
    await bot.stop()
    assert failures and "keeping 1 updates failed" in caplog.text
    assert count(db, "SELECT COUNT(*) FROM inbox WHERE done_at IS NULL") == 0
    answers = len(fake.sent_texts(anna.id))
    again = await make_bot()
    await fake.wait_idle(quiet=0.5)
    await again.stop()
    assert len(fake.sent_texts(anna.id)) == answers == said + 1


def human_moves(db) -> int:
    return count(db, "SELECT COUNT(*) FROM actions WHERE by_user IS NOT NULL")


@pytest.mark.slow
async def test_a_press_just_before_kill_9_is_handled_exactly_once(
    fake: FakeTelegram, bot_process: BotProcesses, db_path: Path
) -> None:
    """The bot is killed the moment Telegram has been told it got the press
    (the next getUpdates went out): the press is carried out once, after the
    restart if not before. aiogram's own polling confirmed updates before
    handling them and lost such presses."""
    db = db_path
    proc = await bot_process()
    presses = 0
    anna = fake.add_user(341, "Анна")
    table = await open_table(fake, GROUP, [anna], title="Группа")

    def current_move() -> tuple[object, str] | None:
        """Anna's hand with buttons for the move the game is at now."""
        for _, msg in table.actionable():
            moves = [b.value for b in msg.buttons() if (b.value or "").startswith("m:")]
            if moves and int(moves[-1].split(":")[2]) == len(actions(db)):
                return msg, moves[-1]
        return None

    for _ in range(10):
        msg, data = await fake.wait_for(current_move, timeout=60)
        await fake.press(anna, anna.id, msg.message_id, data)
        presses += 1
        # Telegram forgets an update once a later getUpdates confirms it.
        await fake.wait_for(lambda: fake.updates_pending() == 0, timeout=30)
        proc.kill()
        proc = await bot_process.again(proc)
        await fake.wait_for(lambda n=presses: human_moves(db) >= n, timeout=60)
    await fake.wait_idle(quiet=0.2)
    err = proc.stop()
    assert human_moves(db) == presses
    assert "Traceback" not in err, err


async def still_answers(fake: FakeTelegram, user_id: int) -> None:
    user = fake.add_user(user_id, "Анна")
    await fake.start_bot(user)
    await fake.wait_for(lambda: fake.last_message(user.id) is not None, timeout=30)


@pytest.mark.slow
async def test_a_second_bot_on_the_same_token_refuses_to_start(
    fake: FakeTelegram, bot_process: BotProcesses, tmp_path: Path
) -> None:
    """Two processes polling one token would each take some of the updates;
    the newcomer meets the first one's 409 and exits with a clear line."""
    after = len(fake.calls)
    first = await bot_process(tmp_path / "one.db")
    # The first one is past its probe (its first poll answered): else it
    # may be the one to refuse, as the next test shows.
    await fake.wait_for(
        lambda: sum(c.method == "getUpdates" for c in fake.calls[after:]) >= 2, timeout=30
    )
    assert bot_env(fake, tmp_path / "two.db")["BOT_TOKEN"] == first.env["BOT_TOKEN"]
    code = await exit_of(bot_process.spawn(tmp_path / "two.db", tmp_path / "two.err"))
    err = (tmp_path / "two.err").read_text()
    assert code == 2, err
    assert "BOT_TOKEN" in err and "Traceback" not in err
    await still_answers(fake, 351)


@pytest.mark.slow
async def test_of_two_bots_started_together_exactly_one_goes_on(
    fake: FakeTelegram, bot_process: BotProcesses, tmp_path: Path
) -> None:
    """Started within the same few seconds, both are probing: the one whose
    poll the other's ends refuses, and the other goes on (never both, never
    neither)."""
    names = ("one", "two")
    procs = [bot_process.spawn(tmp_path / f"{n}.db", tmp_path / f"{n}.err") for n in names]
    done, waiting = await asyncio.wait(
        [asyncio.ensure_future(ended(p)) for p in procs],
        timeout=90,
        return_when=asyncio.FIRST_COMPLETED,
    )
    for w in waiting:
        w.cancel()
    assert len(done) == 1, "exactly one of the two refuses"
    # The survivor's probe is over; nothing ends it now.
    await asyncio.sleep(8)
    assert sorted(p.poll() is None for p in procs) == [False, True]
    i = next(i for i, p in enumerate(procs) if p.returncode is not None)
    err = (tmp_path / f"{names[i]}.err").read_text()
    assert procs[i].returncode == 2 and "BOT_TOKEN" in err and "Traceback" not in err, err
    await still_answers(fake, 352)
