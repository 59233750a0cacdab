"""A whole game through Telegram, as a group of friends would play it."""

from __future__ import annotations

import json
import sqlite3

from fake_telegram import FakeTelegram
from harness import Table, game_over_in, open_table, play_moves

from engine import Game
from engine.rules import Rules

GROUP = -1001234


async def open_table_of(fake: FakeTelegram, names: list[str], started: list[bool]) -> Table:
    """These people in the group, those ``started`` with the bot; the first opens a table."""
    users = [fake.add_user(101 + i, n) for i, n in enumerate(names)]
    fake.add_group(GROUP, "Пятничные пики", members=users, admins=users[:1])
    for u, s in zip(users, started, strict=True):
        if s:
            await fake.start_bot(u)
    table = await open_table(fake, GROUP, users[:1], start=False)
    table.users = users
    return table


async def test_four_friends_play_a_whole_game(fake: FakeTelegram, db_path, running_bot) -> None:
    db = db_path
    table = await open_table_of(fake, ["Аня", "Борис", "Вера", "Гоша"], [True, True, True, False])
    alice, boris, vera, gosha = table.users
    msg = table.table_message()
    assert "Аня" in msg.text  # the creator, who had started the bot, sits at North
    # Boris takes East, Vera takes South.
    for user, seat_label in ((boris, "Восток"), (vera, "Юг")):
        press = await fake.press_button(user, table.table_message(), text_contains=seat_label)
        assert (await press.answer())["text"] is None
        await fake.wait_idle(quiet=0.05)
    # Gosha never pressed Start: the seat button sends him to the bot first.
    press = await fake.press_button(gosha, table.table_message(), text_contains="Запад")
    answer = await press.answer()
    # The link carries the table's own secret key, not just its number.
    (key,) = sqlite3.connect(db).execute("SELECT join_key FROM tables").fetchone()
    assert len(key) == 16
    assert answer["url"] == f"https://t.me/piki_test_bot?start=join_1_3_{key}"
    await fake.wait_idle(quiet=0.05)
    assert "Гоша" not in table.table_message().text
    await fake.start_bot(gosha, f"join_1_3_{key}")
    await fake.wait_for(lambda: "Гоша" in table.table_message().text)
    # The creator switches to the club preset (it ends at -200, so the game is short).
    press = await fake.press_button(alice, table.table_message(), text_contains="Правила")
    await press.answer()
    await fake.wait_for(lambda: "«Клуб»" in table.table_message().text)
    # Somebody else cannot start the game.
    press = await fake.press_button(boris, table.table_message(), text_contains="Начать")
    assert "создатель" in (await press.answer())["text"]
    press = await fake.press_button(alice, table.table_message(), text_contains="Начать")
    await press.answer()
    await fake.wait_for(lambda: all(fake.chat_messages(u.id) for u in table.users))

    await play_moves(table, game_over_in(fake, GROUP))
    await fake.wait_idle(quiet=0.1)

    texts = fake.sent_texts(GROUP)
    final = next(t for t in texts if "Игра окончена" in t)
    assert "Итог" in final  # the score sheet comes with the result
    assert sum("Сдача" in t and "сыграна" in t for t in texts) >= 1
    # No hand ever appeared in the group.
    assert not any("Ваши карты" in t for t in texts)
    assert table.table_message().buttons() == []

    con = sqlite3.connect(db)
    (status, seed, rules_json, dealer, winner) = con.execute(
        "SELECT status, seed, rules_json, first_dealer, winner FROM games"
    ).fetchone()
    actions = [a for (a,) in con.execute("SELECT action FROM actions ORDER BY seq")]
    con.close()
    assert status == "finished"
    game = Game.replay(Rules.from_json(json.loads(rules_json)), seed, actions, dealer)
    assert game.finished and game.winner == winner
    for total in game.totals:
        assert str(total).replace("-", "\u2212") in final  # the true minus sign
