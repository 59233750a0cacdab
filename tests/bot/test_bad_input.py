"""Wrong buttons, forged data, double presses: a short answer, no change."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from fake_telegram import FakeTelegram, FakeUser
from harness import InProcessBot, MakeBot, Table, move_buttons, open_table

GROUP = -1005555


@pytest.fixture
async def game(
    fake: FakeTelegram, running_bot: InProcessBot, db_path: Path
) -> tuple[FakeTelegram, Table, Path, FakeUser]:
    """Two people (North and South) against two computer seats, game started."""
    anna, boris = fake.add_user(201, "Анна"), fake.add_user(202, "Борис")
    outsider = fake.add_user(203, "Чужой")
    table = await open_table(fake, GROUP, [anna, boris], others=[outsider], title="Группа")
    await fake.wait_idle(quiet=0.05)
    return fake, table, db_path, outsider


def action_count(db) -> int:
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT COUNT(*) FROM actions").fetchone()[0]
    finally:
        con.close()


async def test_double_press_applies_once(game) -> None:
    fake, table, db, _ = game
    user, msg = table.actionable()[0]
    data = move_buttons(msg)[0]
    before = action_count(db)
    first = await fake.press(user, user.id, msg.message_id, data)
    second = await fake.press(user, user.id, msg.message_id, data)
    answers = await asyncio.gather(first.answer(), second.answer())
    await fake.wait_idle(quiet=0.05)
    texts = sorted(a["text"] or "" for a in answers)
    # The second press of the same move: told it stands (a press handled
    # again after a restart is answered the same way).
    assert texts[0] == "" and "уже принят" in texts[1]
    # Exactly one move by this person (computer seats may have moved after it).
    con = sqlite3.connect(db)
    mine = con.execute(
        "SELECT COUNT(*) FROM actions WHERE by_user=? AND seq>=?", (user.id, before)
    ).fetchone()[0]
    con.close()
    assert mine == 1


async def test_foreign_forged_and_stale_buttons_change_nothing(game) -> None:
    fake, table, db, outsider = game
    user, msg = table.actionable()[0]
    data = move_buttons(msg)[0]
    _, t, s, a = data.split(":")
    other = next(u for u in table.users if u.id != user.id)
    before = action_count(db)
    cases = [
        (other, other.id, data, "не ваш ход"),  # partner presses the same move
        (outsider, outsider.id, data, "не сидите"),  # not at the table at all
        (user, user.id, f"m:{t}:{int(s) - 1}:{a}", "устарела"),  # an old move number
        (user, user.id, f"m:999:{s}:{a}", "устарела"),  # another (unknown) table
        (user, user.id, f"m:{t}:{s}:99", "хода нет"),  # an action that does not exist
        (user, user.id, "m:1:x:y", "устарела"),  # garbage in a known prefix
        (user, user.id, "zzz", "устарела"),  # garbage
        # The table's buttons pressed outside its group: as no table at all,
        # whatever its state ("already started" would tell it).
        (user, user.id, "t:1:go:0", "устарела"),  # start again
        (user, user.id, "t:1:o:77", "устарела"),  # options after the start
    ]
    # On a message Telegram no longer shows the bot (its buttons cannot be
    # compared), the handlers' own checks answer; on a live message, data
    # that is not one of its buttons is stale whatever it says.
    gone = 10**6
    for presser, chat, forged, expected in cases:
        answer = await (await fake.press_raw(presser, chat, gone, forged)).answer()
        assert expected in (answer["text"] or ""), (forged, answer)
        if forged != data:
            answer = await (await fake.press_raw(user, user.id, msg.message_id, forged)).answer()
            assert "устарела" in (answer["text"] or ""), (forged, answer)
    await fake.wait_idle(quiet=0.05)
    assert action_count(db) == before
    # The right press still works afterwards.
    press = await fake.press(user, user.id, msg.message_id, data)
    assert (await press.answer())["text"] is None


async def test_illegal_card_explains_and_changes_nothing(game) -> None:
    fake, table, db, _ = game
    # Bid until someone must play a card with a marked (unplayable) card in hand.
    for _ in range(200):
        await fake.wait_idle(quiet=0.03)
        found = None
        for user, msg in table.actionable():
            marked = [b.value for b in msg.buttons() if (b.value or "").startswith("w:")]
            if marked:
                found = (user, msg, marked[0])
                break
            moves = move_buttons(msg)
            bids = [m for m in moves if int(m.split(":")[3]) >= 52]
            await (
                await fake.press(user, user.id, msg.message_id, (bids or moves)[-1 if bids else 0])
            ).answer()
            break
        if found:
            break
    assert found, "no position with an unplayable card came up"
    user, msg, why = found
    before = action_count(db)
    answer = await (await fake.press(user, user.id, msg.message_id, why)).answer()
    assert answer["show_alert"] and ("масть" in answer["text"] or "пики" in answer["text"].lower())
    # Forging that card as a move: not a button of the message, so stale; and
    # where the message cannot be compared, the engine's own check refuses it.
    forged = "m:" + why[2:]
    answer = await (await fake.press_raw(user, user.id, msg.message_id, forged)).answer()
    assert "устарела" in answer["text"]
    answer = await (await fake.press_raw(user, user.id, 10**6, forged)).answer()
    assert "масть" in answer["text"] or "пики" in answer["text"].lower()
    await fake.wait_idle(quiet=0.05)
    assert action_count(db) == before


async def test_garbage_commands_and_text(game) -> None:
    fake, table, db, outsider = game
    before = action_count(db)
    for text in ("/newgame@piki_test_bot extra junk", "/score@other_bot", "/cancel", "/leave x"):
        await fake.send_text(outsider, GROUP, text)
    await fake.send_text(outsider, outsider.id, "/start join_999_9")
    await fake.send_text(outsider, outsider.id, "/start " + "я" * 60)
    # Each answer is waited for: the group's pace may hold one back for
    # seconds, longer than any quiet spell says the bot is done.
    answers = ("уже есть стол", "создатель стола или администратор", "не сидите")
    await fake.wait_for(
        lambda: all(any(a in t for t in fake.sent_texts(GROUP)) for a in answers),
        timeout=30,
        message="the three answers",
    )
    await fake.wait_idle(quiet=0.1)
    assert action_count(db) == before
    # The game goes on.
    assert table.actionable()


async def test_button_mashing_is_throttled_for_that_user_only(
    fake: FakeTelegram, make_bot: MakeBot
) -> None:
    await make_bot(press_limit=4, press_window=60)
    masher, calm = fake.add_user(251, "Жмун"), fake.add_user(252, "Спокойный")
    table = await open_table(fake, GROUP, [masher], others=[calm], start=False)
    msg = table.table_message()
    presses = [await fake.press_raw(masher, GROUP, msg.message_id, "zzz") for _ in range(12)]
    answers = [await p.answer() for p in presses]
    assert sum("быстро" in (a["text"] or "") for a in answers) == 8
    # The other player is not slowed down.
    answer = await (await fake.press_button(calm, msg, text_contains="Юг")).answer()
    assert answer["text"] is None
    await fake.wait_for(lambda: "Спокойный" in table.table_message().text)
