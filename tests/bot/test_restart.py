"""The bot process is killed mid-hand and started again on the same database."""

from __future__ import annotations

import asyncio
import json
import sqlite3

import pytest
from fake_telegram import FakeTelegram
from harness import BotProcess, InProcessBot, Table, play_moves, settings_for

from engine import Game
from engine.rules import Rules

GROUP = -1007777


@pytest.fixture
async def fake():
    async with FakeTelegram(bot_username="piki_test_bot") as f:
        yield f


def actions(db) -> list[int]:
    con = sqlite3.connect(db)
    try:
        return [a for (a,) in con.execute("SELECT action FROM actions ORDER BY seq")]
    finally:
        con.close()


async def test_kill_9_mid_hand_and_finish_the_game(fake: FakeTelegram, tmp_path) -> None:
    db = tmp_path / "spades.db"
    proc = BotProcess(fake, db, ai_workers=1, ai_level="master")
    await proc.start(fake)
    try:
        anna, boris = fake.add_user(301, "Анна"), fake.add_user(302, "Борис")
        fake.add_group(GROUP, "Группа", members=[anna, boris], admins=[anna])
        for u in (anna, boris):
            await fake.start_bot(u)
        await fake.send_text(anna, GROUP, "/newgame")
        table = Table(fake, GROUP, [anna, boris])
        await fake.wait_for(lambda: (m := table.find_table_message()) and m.buttons(), timeout=30)
        await (
            await fake.press_button(boris, table.table_message(), text_contains="Восток")
        ).answer()
        await fake.wait_for(lambda: "Борис" in table.table_message().text, timeout=30)
        await (
            await fake.press_button(anna, table.table_message(), text_contains="Правила")
        ).answer()
        await fake.wait_for(lambda: "«Клуб»" in table.table_message().text, timeout=30)
        await (
            await fake.press_button(anna, table.table_message(), text_contains="Начать")
        ).answer()
        await fake.wait_for(lambda: table.actionable(), timeout=30)

        # Play into the middle of the first hand's play, then crash.
        await play_moves(table, lambda: len(actions(db)) >= 4 + 9)
        acknowledged = actions(db)
        proc.kill()

        # Moves pressed while the bot is down wait in Telegram's queue.
        proc = BotProcess(fake, db, ai_workers=1, ai_level="master")
        await proc.start(fake)
        # Every acknowledged move survived, and the players' messages are current.
        assert actions(db)[: len(acknowledged)] == acknowledged
        await fake.wait_for(lambda: table.actionable(), timeout=30)

        await play_moves(table, lambda: any("Игра окончена" in t for t in fake.sent_texts(GROUP)))
        await fake.wait_idle(quiet=0.1)
    finally:
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
    assert all(str(total) in final for total in game.totals)
    # One result line per hand, none repeated by the restart.
    results = [t for t in fake.sent_texts(GROUP) if "сыграна" in t]
    assert len(results) == len(game.sheet)


async def test_a_stopped_bot_polls_no_more(fake: FakeTelegram, tmp_path) -> None:
    """After a stop nothing of the old run takes updates: an orphaned poller
    would confirm updates it can no longer handle and fight the next run with
    409 Conflict (it once hung a restart test in CI)."""
    bot = InProcessBot(settings_for(fake, tmp_path / "spades.db"))
    await bot.start(fake)
    anna = fake.add_user(331, "Анна")
    await fake.start_bot(anna)
    await fake.wait_idle(quiet=0.1)
    await bot.stop()
    stopped_at = len(fake.calls)
    await fake.send_text(anna, anna.id, "/help")
    await asyncio.sleep(2.5)  # an orphan retries a broken poll after aiogram's 1 s backoff
    assert fake.updates_pending() == 1
    assert not [c for c in fake.calls[stopped_at:] if c.method == "getUpdates"]
