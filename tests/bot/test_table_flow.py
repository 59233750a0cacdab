"""Opening, configuring, leaving and cancelling tables; lookups; blocked players."""

from __future__ import annotations

import asyncio
import sqlite3
import time

from fake_telegram import FakeTelegram
from harness import MakeBot, game_over_in, open_table, play_moves

GROUP = -1008888
TITLE = "Клуб по средам"


async def test_one_person_and_three_computers_play_to_the_end(fake, make_bot: MakeBot) -> None:
    # The computer thinks in a worker process here, as in production.
    await make_bot(ai_workers=1, ai_level="master")
    await play_solo_game(fake)


async def play_solo_game(fake: FakeTelegram) -> None:
    solo = fake.add_user(401, "Соло")
    table = await open_table(fake, GROUP, [solo], club=True, title=TITLE)
    await play_moves(table, game_over_in(fake, GROUP))
    # The group's note goes out first, the table's last edit right after it.
    await fake.wait_for(table.game_over, timeout=30)
    text = table.table_message().text
    assert all(f"🤖 {seat}" in text for seat in ("Восток", "Юг", "Запад"))


async def test_options_screen_cycles_values_and_refuses_clashes(fake, running_bot) -> None:
    anna, boris = fake.add_user(411, "Анна"), fake.add_user(412, "Борис")
    table = await open_table(fake, GROUP, [anna], others=[boris], start=False, title=TITLE)
    # Only the creator opens the settings.
    answer = await (
        await fake.press_button(boris, table.table_message(), text_contains="Настройки")
    ).answer()
    assert "создатель" in answer["text"]
    await (await fake.press_button(anna, table.table_message(), text_contains="Настройки")).answer()
    await fake.wait_for(lambda: "Настройки стола" in table.table_message().text)
    await (await fake.press_button(anna, table.table_message(), text_contains="Игра до")).answer()
    await fake.wait_for(
        lambda: "Игра до: 1000" in " ".join(b.text for b in table.table_message().buttons())
    )
    # Bicycle with blind nil is not a rule set: switching blind nil on first,
    # then bicycle must be refused with an explanation.
    await (
        await fake.press_button(anna, table.table_message(), text_contains="Слепой ноль")
    ).answer()
    await fake.wait_for(
        lambda: "чикагский" in " ".join(b.text for b in table.table_message().buttons())
    )
    answer = await (
        await fake.press_button(anna, table.table_message(), text_contains="Велосипед")
    ).answer()
    assert "нельзя сочетать" in answer["text"]
    # Five players: each for themselves, five seats.
    await (await fake.press_button(anna, table.table_message(), text_contains="Игроки")).answer()
    await fake.wait_for(
        lambda: "Игроки: 3" in " ".join(b.text for b in table.table_message().buttons())
    )
    await (await fake.press_button(anna, table.table_message(), text_contains="Готово")).answer()
    await fake.wait_for(lambda: "Место 3" in table.table_message().text)
    assert "Каждый играет сам за себя" in table.table_message().text
    await fake.send_text(anna, GROUP, "/rules")
    await fake.wait_for(lambda: any("Правила стола" in t for t in fake.sent_texts(GROUP)))
    rules = next(t for t in fake.sent_texts(GROUP) if "Правила стола" in t)
    assert "1000 очков" in rules and "чикагский" in rules and "3, каждый за себя" in rules


async def test_cancel_needs_rights_and_confirmation(fake, running_bot) -> None:
    anna, boris = fake.add_user(421, "Анна"), fake.add_user(422, "Борис")
    table = await open_table(fake, GROUP, [anna], others=[boris], start=False, title=TITLE)
    await fake.send_text(boris, GROUP, "/cancel")
    await fake.wait_for(lambda: any("администратор" in t for t in fake.sent_texts(GROUP)))
    await fake.send_text(anna, GROUP, "/cancel@piki_test_bot")
    await fake.wait_for(lambda: fake.last_message(GROUP).buttons())
    confirm = fake.last_message(GROUP)
    assert "Отменить игру за этим столом?" in confirm.text
    answer = await (await fake.press_button(anna, confirm, text_contains="Нет")).answer()
    assert answer["text"] is None
    await fake.wait_for(lambda: "Играем дальше" in fake.message(GROUP, confirm.message_id).text)
    await fake.send_text(anna, GROUP, "/cancel")
    await fake.wait_for(
        lambda: (
            fake.last_message(GROUP).message_id != confirm.message_id
            and fake.last_message(GROUP).buttons()
        )
    )
    confirm = fake.last_message(GROUP)
    await (await fake.press_button(anna, confirm, text_contains="Да")).answer()
    await fake.wait_for(lambda: "Стол закрыт" in table.table_message().text)
    # A fresh table can be opened afterwards.
    await fake.send_text(anna, GROUP, "/newgame")
    await fake.wait_for(lambda: "Новый стол" in fake.last_message(GROUP).text)


async def test_leave_hands_the_seat_to_the_computer(fake, running_bot) -> None:
    anna, boris = fake.add_user(431, "Анна"), fake.add_user(432, "Борис")
    table = await open_table(fake, GROUP, [anna, boris], title=TITLE)
    await fake.send_text(boris, GROUP, "/leave")
    await fake.wait_for(lambda: any("за вас играет компьютер" in t for t in fake.sent_texts(GROUP)))
    table.users = [anna]
    await play_moves(table, lambda: "взятка 2 из 13" in table.table_message().text)


async def test_score_and_help(fake, running_bot) -> None:
    anna = fake.add_user(441, "Анна")
    fake.add_group(GROUP, "Группа", members=[anna], admins=[anna])
    await fake.send_text(anna, GROUP, "/score")
    await fake.wait_for(lambda: any("не было игры" in t for t in fake.sent_texts(GROUP)))
    await fake.send_text(anna, GROUP, "/help@piki_test_bot")
    await fake.wait_for(
        lambda: any("/newgame" in t and "козырь" in t for t in fake.sent_texts(GROUP))
    )
    await open_table(fake, GROUP, [anna])
    await fake.send_text(anna, GROUP, "/score")
    await fake.wait_for(
        lambda: any("Счёт" in t and "сыграно 0 сдач" in t for t in fake.sent_texts(GROUP))
    )


async def test_blocked_player_the_group_is_told_and_the_game_waits(
    fake, running_bot, db_path
) -> None:
    anna, boris = fake.add_user(451, "Анна"), fake.add_user(452, "Борис")
    table = await open_table(fake, GROUP, [anna, boris], seats=["Восток"], start=False, title=TITLE)
    fake.block_bot(boris)
    await (await fake.press_button(anna, table.table_message(), text_contains="Начать")).answer()
    await fake.wait_for(lambda: any("не может получать карты" in t for t in fake.sent_texts(GROUP)))
    await fake.wait_for(lambda: "не получает сообщения" in table.table_message().text)
    con = sqlite3.connect(db_path)
    assert con.execute("SELECT blocked FROM users WHERE user_id=?", (boris.id,)).fetchone()[0] == 1
    con.close()
    # Boris comes back: his hand arrives and the game goes on.
    before_start = time.time()
    await fake.start_bot(boris)
    await fake.wait_for(
        lambda: any(
            "Ваши карты" in m.text or "Карты закрыты" in m.text
            for m in fake.chat_messages(boris.id)
        )
    )
    await fake.wait_for(lambda: "не получает сообщения" not in table.table_message().text)
    # Telegram's refusal of a message sent before his Start arrives late: old news.
    notes = fake.sent_texts(GROUP)
    await running_bot.app.services.play.on_forbidden(boris.id, "Forbidden: blocked", before_start)
    await fake.wait_idle()
    assert fake.sent_texts(GROUP) == notes
    assert "не получает сообщения" not in table.table_message().text
    con = sqlite3.connect(db_path)
    assert con.execute("SELECT blocked FROM users WHERE user_id=?", (boris.id,)).fetchone()[0] == 0
    con.close()
    await play_moves(table, lambda: "взятка 2 из 13" in table.table_message().text)


async def test_a_start_while_a_refusal_waits_for_the_table_keeps_the_seat(
    fake, running_bot, db_path
) -> None:
    """Telegram's 403 and the person's Start cross: the refusal marks them
    blocked and waits for the table's lock; their Start clears the mark
    meanwhile. Under the lock the refusal looks again and leaves the seat and
    the group alone."""
    anna, boris = fake.add_user(457, "Анна"), fake.add_user(458, "Борис")
    table = await open_table(fake, GROUP, [anna, boris], seats=["Восток"], title=TITLE)
    con = sqlite3.connect(db_path)
    table_id = con.execute(
        "SELECT table_id FROM tables WHERE chat_id=? AND status='playing'", (GROUP,)
    ).fetchone()[0]

    def blocked() -> int:
        row = con.execute("SELECT blocked FROM users WHERE user_id=?", (boris.id,)).fetchone()
        return int(row[0])

    app = running_bot.app
    async with app.services.registry.lock(table_id):
        refusal = asyncio.create_task(
            app.services.play.on_forbidden(boris.id, "Forbidden: blocked")
        )
        await fake.wait_for(lambda: blocked() == 1)
        await fake.start_bot(boris)  # clears the mark, then waits for the table too
        await fake.wait_for(lambda: blocked() == 0)
    await refusal
    con.close()
    assert not (await app.services.registry.get(table_id)).blocked
    # Play on until the group's messages (paced) have long gone out: no note.
    await play_moves(table, lambda: "взятка 2 из 13" in table.table_message().text)
    assert not any("не может получать карты" in t for t in fake.sent_texts(GROUP))
    assert "не получает сообщения" not in table.table_message().text


async def test_english_speaking_player_reads_english(fake, running_bot) -> None:
    anna = fake.add_user(461, "Anna", language_code="en")
    boris = fake.add_user(462, "Борис")
    table = await open_table(fake, GROUP, [boris, anna], start=False, title=TITLE)
    assert "Привет" in fake.sent_texts(boris.id)[0]
    assert fake.sent_texts(anna.id)[0].startswith("Hi, Anna!")
    # The group speaks the creator's language (Anna sat down in it), Anna's own
    # messages are English.
    assert "Новый стол" in table.table_message().text
    await (await fake.press_button(boris, table.table_message(), text_contains="Начать")).answer()
    await fake.wait_for(lambda: any("Hand 1" in m.text for m in fake.chat_messages(anna.id)))
    hand = next(m for m in fake.chat_messages(anna.id) if "Hand 1" in m.text)
    assert "You are South" in hand.text and "bids: " in hand.text
    answer = await (await fake.press_raw(anna, anna.id, hand.message_id, "zzz")).answer()
    assert answer["text"] == "This button is out of date."
