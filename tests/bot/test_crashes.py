"""``kill -9`` at random moments of a game, again and again: the game goes on
after every restart and ends exactly as the same game without crashes.

The bot runs as ``python -m bot`` (the ``bot_process`` fixture). Two people
(North and East) play a club game with a fixed policy (open the cards, bid
the highest number offered, play the lowest card allowed); the computer seats
play with ``AI_LEVEL=novice``. A seeded generator picks when to kill: after a few
presses, a random fraction of a second later (during the computer's moves,
the outbox's sends or a press still being handled), sometimes with a press
queued in Telegram that the killed bot never answered.

"The same game without crashes" is computed in the engine alone from the seed,
first dealer and rules the bot stored: the people follow the same policy, the
computer seats decide exactly as ``PlayService._decide`` does (the seed mixed
with the move number). Its score sheet and its moves must equal the bot's.
"""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from bot_processes import BotProcesses
from fake_telegram import FakeMessage, FakeTelegram, FakeUser
from harness import Table, choose, game_over_in, open_table

from engine import BID, BLIND, Game, view
from engine.ai import choose_action
from engine.rules import Rules

GROUP = -1009009
SEED = 90210
KILLS = 9


def _query(db: Path, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(db, timeout=30)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


def seq_now(db: Path) -> int:
    rows = _query(db, "SELECT seq FROM games ORDER BY game_id DESC LIMIT 1")
    return int(rows[0][0]) if rows else 0


def policy_action(g: Game) -> int:
    """The people's policy (``harness.choose``: open the cards, bid the highest
    number, play the lowest card) on the engine's legal actions."""
    legal = g.legal_actions()
    bids = [a for a in legal if BID <= a < BLIND]
    return max(bids) if bids else min(legal)


def live_button(fake: FakeTelegram, user: FakeUser, seq: int) -> tuple[FakeMessage, str] | None:
    """The press this person would make now, if their newest buttons are current."""
    for m in reversed(fake.chat_messages(user.id)):
        values = [b.value or "" for b in m.buttons()]
        if any(v.startswith(("m:", "l:")) for v in values):
            data = choose(values)
            if data is not None and int(data.split(":")[2]) == seq:
                return m, data
            return None
    return None


async def press_some(fake: FakeTelegram, table: Table, db: Path, count: int) -> bool:
    """Make up to ``count`` presses (the last one left unanswered); False once the game is over."""
    looked: set[tuple[int, str]] = set()
    for i in range(count):
        for _ in range(400):
            if game_over_in(fake, GROUP)():
                return False
            await fake.wait_idle(quiet=0.03, timeout=30)
            seq = seq_now(db)
            found = [(u, b) for u in table.users if (b := live_button(fake, u, seq))]
            found = [(u, b) for u, b in found if (u.id, b[1]) not in looked]
            if found:
                break
            await asyncio.sleep(0.02)
        else:
            raise AssertionError("nobody can move and the game did not end\n" + fake.dump_calls())
        user, (msg, data) = found[0]
        if data.startswith("l:"):
            looked.add((user.id, data))
        press = await fake.press_raw(user, user.id, msg.message_id, data)
        if i < count - 1:
            await press.answer(timeout=15)
    return True


def engine_game(rules: Rules, seed: int, dealer: int, humans: set[int], level: str) -> Game:
    g = Game(rules, seed, dealer)
    while not g.finished:
        seat = g.to_move
        if seat in humans:
            action = policy_action(g)
        else:
            # As PlayService._decide: the club player sees only its seat.
            action = choose_action(
                view(g, seat), level, (g.seed or 0) ^ (len(g.actions) * 0x9E3779B1)
            )
        g.apply_action(action)
    return g


@pytest.mark.slow
async def test_kill_9_at_random_moments_then_the_same_result(
    fake: FakeTelegram, bot_process: BotProcesses, db_path: Path
) -> None:
    rng = random.Random(SEED)
    db = db_path
    anna, boris = fake.add_user(501, "Анна"), fake.add_user(502, "Борис")
    fake.add_group(GROUP, "Падучая группа", members=[anna, boris], admins=[anna])
    proc = await bot_process(ai_workers=1)
    stderr: list[str] = []
    kills = 0
    for u in (anna, boris):
        await fake.start_bot(u)
    table = await open_table(fake, GROUP, [anna, boris], seats=["Восток"], club=True)

    while True:
        going = await press_some(fake, table, db, rng.randint(1, 4))
        if not going:
            break
        if kills >= KILLS:
            continue  # enough crashes: play the rest in peace
        await asyncio.sleep(rng.uniform(0, 0.12))
        proc.kill()
        kills += 1
        stderr.append(proc.stop())
        proc = await bot_process.again(proc)
    await fake.wait_idle(quiet=0.3, timeout=30)
    stderr.append(proc.stop())
    for err in stderr:
        assert "Traceback" not in err, err
    assert kills >= 8, f"the game ended after only {kills} crashes"

    (game_id, seed, rules_json, dealer, status, winner) = _query(
        db, "SELECT game_id, seed, rules_json, first_dealer, status, winner FROM games"
    )[0]
    rows = _query(db, "SELECT seq, action FROM actions WHERE game_id=? ORDER BY seq", (game_id,))
    assert [s for s, _ in rows] == list(range(len(rows)))
    actions = [a for _, a in rows]
    rules = Rules.from_json(json.loads(rules_json))
    bot_game = Game.replay(rules, seed, actions, dealer)
    assert status == "finished" and bot_game.finished and bot_game.winner == winner

    calm = engine_game(rules, seed, dealer, humans={0, 1}, level="novice")
    assert calm.actions == actions
    assert calm.sheet == bot_game.sheet

    # What the group saw: each event at least once; a repeat only where a crash
    # fell between Telegram's answer and the outbox noting it (one per crash at most).
    texts = fake.sent_texts(GROUP)
    events = Counter(t for t in texts if "сыграна" in t or "Игра окончена" in t)
    assert sum("сыграна" in t for t in events) == len(bot_game.sheet)
    assert sum("Игра окончена" in t for t in events) == 1
    assert sum(events.values()) - len(events) <= kills
    final = table.table_message()
    assert final.buttons() == [] and all(
        str(t).replace("-", "\u2212") in final.text for t in bot_game.totals
    )
    repeats = sum(events.values()) - len(events)
    print(f"{kills} kills, {len(actions)} moves, {len(bot_game.sheet)} hands, {repeats} repeated")
    pending = _query(db, "SELECT COUNT(*) FROM outbox WHERE status IN ('pending','failed')")
    assert pending == [(0,)]
