"""Every quick lookup in every phase of a table: commands and buttons."""

from __future__ import annotations

import re

from fake_telegram import FakeTelegram
from harness import MakeBot, open_table, play_moves

from bot.model import rules_to_json
from bot.services.live import KEPT_ENDED
from bot.storage import repo_tables
from engine.rules import PRESETS

GROUP = -1003003
COMMANDS = ("/score", "/turn", "/table", "/info", "/sheet")


async def ask(fake: FakeTelegram, user, chat: int, command: str) -> str:
    """The bot's answer to ``command``: in a group the message replying to it
    (a chart or a note may come in between), in private the next message."""
    before = len(fake.sent_texts(chat))
    asked = await fake.send_text(user, chat, command)
    if chat > 0:
        await fake.wait_for(lambda: len(fake.sent_texts(chat)) > before)
        return fake.sent_texts(chat)[-1]

    def reply() -> str | None:
        for m in fake.chat_messages(chat):
            if m.reply_to is not None and m.reply_to.message_id == asked["message_id"]:
                return m.text
        return None

    found = await fake.wait_for(reply)
    assert isinstance(found, str)
    return found


async def test_lookups_in_every_phase(fake, running_bot) -> None:
    anna = fake.add_user(701, "Анна")
    fake.add_group(GROUP, "Справки", members=[anna], admins=[anna])
    await fake.start_bot(anna)

    # No table yet.
    for cmd in COMMANDS:
        assert "не было игры" in await ask(fake, anna, GROUP, cmd)
    assert "нет сыгранных партий" in await ask(fake, anna, GROUP, "/history")
    assert "нет законченных партий" in await ask(fake, anna, GROUP, "/stats")

    # An open table.
    table = await open_table(fake, GROUP, [anna], start=False)
    for cmd in ("/score", "/turn", "/table", "/info"):
        assert "не началась" in await ask(fake, anna, GROUP, cmd)
    assert "Показать пока нечего" in await ask(fake, anna, GROUP, "/sheet")

    # Before the first bid.
    await (await fake.press_button(anna, table.table_message(), text_contains="Правила")).answer()
    await fake.wait_for(lambda: "«Клуб»" in table.table_message().text)
    await (await fake.press_button(anna, table.table_message(), text_contains="Начать")).answer()
    await fake.wait_for(lambda: table.actionable())
    assert "сыграно 0 сдач" in await ask(fake, anna, GROUP, "/score")
    turn = await ask(fake, anna, GROUP, "/turn")
    assert "Заявляет Анна · до " in turn
    assert "Сдача 1 · заявки" in await ask(fake, anna, GROUP, "/table")
    info = await ask(fake, anna, GROUP, "/info")
    # Анна has not bid yet; the computers before her (the dealer is drawn) have.
    assert "заявки: Анна …" in info and "заказ" not in info
    assert re.search(r"🤖 Запад (…|\d+)", info), info

    # Under the table only what it does not show itself: the score sheet,
    # sent to the private chat, never to the group.
    assert [b.text for b in table.table_message().buttons()] == ["📋 Счёт по сдачам"]
    group_count = len(fake.sent_texts(GROUP))
    answer = await (
        await fake.press_button(anna, table.table_message(), text_contains="Счёт по сдачам")
    ).answer()
    assert "личный чат" in answer["text"]
    await fake.wait_for(lambda: "Показать пока нечего" in fake.sent_texts(anna.id)[-1])
    await fake.wait_idle(quiet=0.05)
    assert len(fake.sent_texts(GROUP)) == group_count

    # During play: the trick number, lead suit and spades.
    await play_moves(table, lambda: "взятка 2 из 13" in table.table_message().text)
    on_table = await ask(fake, anna, GROUP, "/table")
    assert "взятка 2 из 13" in on_table and "♠" in on_table
    info = await ask(fake, anna, GROUP, "/info")
    assert "взятка 2 из 13" in info and ("заказ" in info or ": ноль" in info)

    # In private: all of the user's running games.
    assert "«Справки»" in await ask(fake, anna, anna.id, "/turn")

    # After the end.
    await play_moves(table, table.game_over)
    assert "Победа" in await ask(fake, anna, GROUP, "/score")
    assert "Победа" in await ask(fake, anna, GROUP, "/turn")
    sheet = await ask(fake, anna, GROUP, "/sheet")
    assert "Итог" in sheet and "Анна" in sheet
    assert any(m.html.startswith("<pre>") for m in fake.chat_messages(GROUP) if m.text == sheet)
    history = await ask(fake, anna, GROUP, "/history")
    assert "Последние партии" in history and "победа" in history
    stats = await ask(fake, anna, GROUP, "/stats")
    assert "1 партия" in stats


async def test_ended_tables_kept_in_memory_are_few(fake: FakeTelegram, make_bot: MakeBot) -> None:
    """Lookups, records and rematches read ended tables again and again; the
    registry keeps the latest asked for, not every one ever read."""
    bot = await make_bot()
    reg = bot.app.services.registry
    rules = rules_to_json(PRESETS["classic"])
    async with bot.app.db.tx() as conn:
        ids = []
        for _ in range(KEPT_ENDED + 8):  # one open table a group: each ends first
            ids.append(await repo_tables.create_table(conn, -100777, "Клуб", 1, rules, 4, "ru"))
            await repo_tables.update_table(conn, ids[-1], status="cancelled")
    for t in ids:
        assert (await reg.get(t)) is not None
    first = await reg.get(ids[0])  # asked for again: the latest now
    kept = [t for t in ids if reg.cached(t) is not None]
    assert len(kept) == KEPT_ENDED
    assert reg.cached(ids[0]) is first and reg.cached(ids[1]) is None
    assert kept[-1] == ids[-1]
