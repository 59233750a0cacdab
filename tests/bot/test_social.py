"""«Call me to the next game», «Ещё партию» and the computer's strength per
table, as people use them through Telegram."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

from bot_processes import BotProcesses
from fake_telegram import FakeMessage, FakeTelegram, FakeUser
from harness import (
    InProcessBot,
    MakeBot,
    Table,
    forget_me,
    open_table,
    play_moves,
    press_label,
    rows,
)

from bot.clock import FakeClock
from bot.services.calls import CALL_EVERY
from bot.storage import inbox

FORUM = -1005550000001
GROUP = -5550002


def calls_of(fake: FakeTelegram, user: FakeUser) -> list[FakeMessage]:
    """The calls in the user's private chat, oldest first."""
    return [
        m
        for m in fake.chat_messages(user.id)
        if any(
            words in (m.history[0].text if m.history else m.text)
            for words in ("открыли стол", "A table opened")
        )
    ]


def reply_to(fake: FakeTelegram, chat_id: int, asked: dict[str, Any], needle: str) -> Any:
    """The bot's answer to the message ``asked`` holding ``needle``."""
    return lambda: any(
        needle in m.text
        for m in fake.chat_messages(chat_id)
        if m.reply_to is not None and m.reply_to.message_id == asked["message_id"]
    )


async def call_me(
    fake: FakeTelegram,
    user: FakeUser,
    chat_id: int,
    answer: str = "Позову вас",
    timeout: float = 5.0,
) -> None:
    """``user`` writes /call_me in the group; the bot's answer holds ``answer``."""
    asked = await fake.send_text(user, chat_id, "/call_me")
    await fake.wait_for(reply_to(fake, chat_id, asked, answer), timeout=timeout)


async def new_table(
    fake: FakeTelegram, user: FakeUser, chat_id: int, thread: int | None = None
) -> Table:
    await fake.send_text(user, chat_id, "/newgame", thread=thread)
    table = Table(fake, chat_id, [user], thread=thread)
    await fake.wait_for(
        lambda: (m := table.find_table_message()) is not None and "Новый стол" in m.text,
        message="the new table",
    )
    return table


async def test_call_me_calls_once_an_hour_and_seats_in_one_tap(
    fake: FakeTelegram, clock: FakeClock, db_path: Path, clocked_bot: InProcessBot
) -> None:
    anna, boris = fake.add_user(5101, "Анна"), fake.add_user(5102, "Борис")
    vera = fake.add_user(5103, "Вера")
    gleb = fake.add_user(5104, "Gleb", language_code="en")
    fake.add_group(
        FORUM, "Клуб", members=[anna, boris, vera, gleb], admins=[anna], supergroup=True, forum=True
    )
    wed, fri, sun = (fake.create_topic(FORUM, anna, name) for name in ("Среда", "Пятница", "Вс"))
    for u in (anna, boris, gleb):
        await fake.start_bot(u)

    # Boris asks in a topic: the calls are the group's, whichever topic.
    asked = await fake.send_text(boris, FORUM, "/call_me", thread=wed)
    await fake.wait_for(reply_to(fake, FORUM, asked, "Позову вас"))
    # Anna too: she opens the tables below, and nobody is called to their own table.
    await call_me(fake, anna, FORUM)
    # Vera never pressed Start: subscribed, and told what the calls need.
    await call_me(fake, vera, FORUM, "нажмите «Запустить» у @piki_test_bot")
    # An anonymous admin is not a person who can be called.
    asked = await fake.send_as_group(anna, FORUM, "/call_me")
    await fake.wait_for(reply_to(fake, FORUM, asked, "от своего имени"))
    assert sorted(r[0] for r in rows(db_path, "SELECT user_id FROM call_me")) == [
        anna.id,
        boris.id,
        vera.id,
    ]

    first = await new_table(fake, anna, FORUM, thread=wed)
    await fake.wait_for(lambda: calls_of(fake, boris), message="Boris called")
    await fake.wait_idle(quiet=0.1)
    call = calls_of(fake, boris)[0]
    assert "«Клуб › Среда»" in call.text and "свободно 3 места" in call.text
    assert calls_of(fake, anna) == [] and calls_of(fake, vera) == []

    # Someone else's call cannot be pressed (a forged press in Boris's chat).
    sit = fake.find_button(call, text_contains="Сесть").value
    assert sit is not None
    answer = await (await fake.press_raw(gleb, boris.id, call.message_id, sit)).answer()
    assert "out of date" in answer["text"]  # Gleb reads English
    # Boris sits in one tap: at that very table, in its topic.
    answer = await (await fake.press_button(boris, call, text_contains="Сесть")).answer()
    assert "Вы за столом" in answer["text"]
    await fake.wait_for(lambda: "Борис" in first.table_message().text)
    await fake.wait_for(lambda: "Вы за столом" in fake.message(boris.id, call.message_id).text)
    assert all("Сесть" not in b.text for b in fake.message(boris.id, call.message_id).buttons())

    # Gleb subscribes now (in the group: in private he is told where to ask),
    # in English. The next table within the hour calls him, not Boris again.
    await fake.send_text(gleb, gleb.id, "/call_me")
    await fake.wait_for(lambda: "in the group" in fake.sent_texts(gleb.id)[-1])
    asked = await fake.send_text(gleb, FORUM, "/call_me", thread=fri)
    await fake.wait_for(reply_to(fake, FORUM, asked, "I'll call you"))
    await new_table(fake, anna, FORUM, thread=fri)
    await fake.wait_for(lambda: calls_of(fake, gleb), message="Gleb called")
    assert "3 seats free" in calls_of(fake, gleb)[0].text
    assert "Take a seat" in " ".join(b.text for b in calls_of(fake, gleb)[0].buttons())
    await fake.wait_idle(quiet=0.2)
    assert len(calls_of(fake, boris)) == 1

    # An hour later the next table calls Boris again; «Больше не звать» ends it.
    clock.advance(CALL_EVERY + 1)
    await new_table(fake, anna, FORUM, thread=sun)
    await fake.wait_for(lambda: len(calls_of(fake, boris)) == 2, message="Boris called again")
    await fake.wait_idle(quiet=0.2)
    assert len(calls_of(fake, gleb)) == 2  # his hour is over too
    again = calls_of(fake, boris)[-1]
    await (await fake.press_button(boris, again, text_contains="Больше не звать")).answer()
    await fake.wait_for(lambda: "Больше не зову" in fake.message(boris.id, again.message_id).text)
    assert rows(db_path, "SELECT 1 FROM call_me WHERE user_id=?", boris.id) == []

    # /call_me again turns it off.
    await call_me(fake, gleb, FORUM, "won't call you")
    assert rows(db_path, "SELECT 1 FROM call_me WHERE user_id=?", gleb.id) == []

    # /forget_me takes the subscription away with the rest.
    await forget_me(fake, anna)
    assert rows(db_path, "SELECT 1 FROM call_me WHERE user_id=?", anna.id) == []
    assert rows(db_path, "SELECT user_id FROM call_me") == [(vera.id,)]


async def test_a_subscription_survives_kill_9(
    fake: FakeTelegram, bot_process: BotProcesses
) -> None:
    anna, boris = fake.add_user(5201, "Анна"), fake.add_user(5202, "Борис")
    fake.add_group(GROUP, "Клуб", members=[anna, boris], admins=[anna])
    proc = await bot_process()
    for u in (anna, boris):
        await fake.start_bot(u)
    await call_me(fake, boris, GROUP, timeout=15)
    proc.kill()
    proc = await bot_process.again(proc)
    await new_table(fake, anna, GROUP)
    await fake.wait_for(lambda: calls_of(fake, boris), timeout=15, message="Boris called")
    err = proc.stop()
    assert "Traceback" not in err, err


async def test_call_me_handled_again_after_a_crash_does_not_undo_itself(
    fake: FakeTelegram, make_bot: MakeBot, db_path: Path, monkeypatch: Any
) -> None:
    """The bot dies after ``/call_me`` turned the calls on, before the poller
    marked the update handled (its own mark never happens here): the restart
    handles what is left in the inbox, and ``/call_me`` is not among it, so
    the calls stay on instead of being toggled off again."""
    anna, boris = fake.add_user(5211, "Анна"), fake.add_user(5212, "Борис")
    fake.add_group(GROUP, "Клуб", members=[anna, boris], admins=[anna])
    bot = await make_bot()
    await fake.start_bot(boris)
    real_done = inbox.done
    skipped: list[int] = []

    async def crash_before_the_mark(st: Any, update_ids: list[int]) -> None:
        body = rows(db_path, "SELECT update_id, body FROM inbox WHERE update_id=?", *update_ids)
        if any("/call_me" in b or b == "" for _, b in body):
            skipped.extend(update_ids)
            return
        await real_done(st, update_ids)

    monkeypatch.setattr(inbox, "done", crash_before_the_mark)
    await call_me(fake, boris, GROUP, timeout=15)
    await fake.wait_for(lambda: fake.updates_pending() == 0, timeout=15)
    await fake.wait_for(lambda: skipped, message="the poller's mark skipped")
    await bot.stop()
    monkeypatch.setattr(inbox, "done", real_done)
    assert rows(db_path, "SELECT user_id FROM call_me") == [(boris.id,)]
    again = await make_bot()
    await fake.wait_idle(quiet=0.3)
    await again.stop()
    assert rows(db_path, "SELECT user_id FROM call_me") == [(boris.id,)]
    assert rows(db_path, "SELECT COUNT(*) FROM inbox WHERE done_at IS NULL") == [(0,)]


def options_buttons(table: Table) -> str:
    return " ".join(b.text for b in table.table_message().buttons())


async def test_the_computers_strength_is_the_creators_choice_and_is_used(
    fake: FakeTelegram, make_bot: MakeBot
) -> None:
    running = await make_bot()
    anna, boris = fake.add_user(5301, "Анна"), fake.add_user(5302, "Борис")
    table = await open_table(fake, GROUP, [anna], others=[boris], start=False)
    await press_label(fake, anna, table.table_message(), "Настройки")
    await fake.wait_for(lambda: "Компьютер: новичок" in options_buttons(table))  # AI_LEVEL
    # Only the creator sets it.
    answer = await press_label(fake, boris, table.table_message(), "Компьютер")
    assert "создатель" in answer["text"]
    await fake.wait_idle(quiet=0.05)
    assert "Компьютер: новичок" in options_buttons(table)
    await press_label(fake, anna, table.table_message(), "Компьютер")
    await fake.wait_for(lambda: "Компьютер: любитель" in options_buttons(table))
    await press_label(fake, anna, table.table_message(), "Компьютер")
    await fake.wait_for(lambda: "Компьютер: мастер" in options_buttons(table))
    await press_label(fake, anna, table.table_message(), "Готово")
    await fake.wait_for(lambda: "Начать" in options_buttons(table))
    await press_label(fake, anna, table.table_message(), "Начать")
    # The bot's own level (novice) never searches; this table's master does.
    play = running.app.services.play
    await play_moves(table, lambda: play.decisions["full"] > 0)
    # And it still does after a restart (a new bot, its count from zero).
    await running.stop()
    play = (await make_bot()).app.services.play
    await play_moves(table, lambda: play.decisions["full"] > 0)


def old_table_id(db: Path) -> int:
    return int(rows(db, "SELECT table_id FROM tables WHERE status='finished'")[0][0])


def game_over_note(fake: FakeTelegram, chat_id: int) -> FakeMessage | None:
    return next((m for m in fake.chat_messages(chat_id) if "Игра окончена!" in m.text), None)


async def test_rematch_seats_the_same_people_with_the_same_settings(
    fake: FakeTelegram, db_path: Path, running_bot: InProcessBot
) -> None:
    anna, boris, vera = (
        fake.add_user(5400 + i, n) for i, n in enumerate(("Анна", "Борис", "Вера"))
    )
    gleb = fake.add_user(5404, "Глеб")
    table = await open_table(
        fake, GROUP, [anna, boris, vera], seats=["Восток", "Юг"], others=[gleb], start=False
    )
    await press_label(fake, anna, table.table_message(), "Правила")
    await fake.wait_for(lambda: "«Клуб»" in table.table_message().text)
    await press_label(fake, anna, table.table_message(), "Темп")
    await fake.wait_for(lambda: "Темп: 1 мин" not in options_buttons(table))
    await press_label(fake, anna, table.table_message(), "Настройки")
    await fake.wait_for(lambda: "Компьютер: новичок" in options_buttons(table))
    await press_label(fake, anna, table.table_message(), "Компьютер")
    await fake.wait_for(lambda: "Компьютер: любитель" in options_buttons(table))
    await press_label(fake, anna, table.table_message(), "Готово")
    await fake.wait_for(lambda: "Начать" in options_buttons(table))
    await press_label(fake, anna, table.table_message(), "Начать")
    await play_moves(table, lambda: game_over_note(fake, GROUP) is not None)
    await fake.wait_idle(quiet=0.1)
    over = game_over_note(fake, GROUP)
    assert over is not None

    # Gleb did not play: no rematch for him.
    answer = await press_label(fake, gleb, over, "Ещё партию")
    assert "играл за этим столом" in answer["text"]
    # A forged rematch of another table, or one pressed on another message, is refused.
    forged = await fake.press_raw(anna, GROUP, over.message_id, "rm:999")
    assert "устарела" in (await forged.answer())["text"]
    elsewhere = table.table_message().message_id
    forged = await fake.press_raw(anna, GROUP, elsewhere, f"rm:{old_table_id(db_path)}")
    assert "устарела" in (await forged.answer())["text"]
    # Vera asks to be forgotten: she is not seated again.
    await forget_me(fake, vera)

    # A table is open already: the rematch waits for it.
    await fake.send_text(anna, GROUP, "/newgame")
    await fake.wait_for(lambda: len(rows(db_path, "SELECT 1 FROM tables")) == 2)
    answer = await press_label(fake, boris, over, "Ещё партию")
    assert "уже есть стол" in answer["text"]
    await fake.send_text(anna, GROUP, "/cancel")
    await fake.wait_for(lambda: "Отменить игру" in fake.last_message(GROUP).text)
    await press_label(fake, anna, fake.last_message(GROUP), "Да")
    await fake.wait_for(lambda: rows(db_path, "SELECT 1 FROM tables WHERE status='cancelled'"))

    # The calls are Gleb's for a tap under the result.
    answer = await press_label(fake, gleb, over, "Звать меня")
    assert "Позову вас" in answer["text"]
    assert rows(db_path, "SELECT user_id FROM call_me") == [(gleb.id,)]
    # Pressed again, or twice at once, they stay on.
    presses = [await fake.press_button(gleb, over, text_contains="Звать меня") for _ in range(2)]
    for press in presses:
        assert "уже в списке" in (await press.answer())["text"]
    assert rows(db_path, "SELECT user_id FROM call_me") == [(gleb.id,)]

    # A rematch whose calls cannot be written (as a kill -9 there would be)
    # leaves no table behind either: it is one transaction.
    await asyncio.to_thread(
        ddl,
        db_path,
        "CREATE TRIGGER no_calls BEFORE UPDATE OF last_called_at ON call_me"
        " BEGIN SELECT RAISE(ABORT, 'the disk is gone'); END",
    )
    answer = await press_label(fake, anna, over, "Ещё партию")
    assert "Что-то пошло не так" in answer["text"]
    assert rows(db_path, "SELECT 1 FROM tables WHERE rematch_of IS NOT NULL") == []
    assert rows(db_path, "SELECT 1 FROM tables WHERE status='open'") == []
    await asyncio.to_thread(ddl, db_path, "DROP TRIGGER no_calls")

    # The same rematch is under the game's end in each player's own chat
    # (not a «/newgame» to type); a forged table there is stale.
    private_end = next(m for m in fake.chat_messages(anna.id) if "игра окончена" in m.text)
    assert "/newgame" not in private_end.text
    assert [b.text for b in private_end.buttons()] == ["🔁 Ещё партию"]
    forged = await fake.press_raw(anna, anna.id, private_end.message_id, "rm:999")
    assert "устарела" in (await forged.answer())["text"]
    # Anna in her chat and Boris in the group press at once: one new table.
    presses = [
        await fake.press_button(anna, private_end, text_contains="Ещё партию"),
        await fake.press_button(boris, over, text_contains="Ещё партию"),
    ]
    answers = [(await p.answer())["text"] for p in presses]
    assert sorted("уже открыт новый стол" in a for a in answers) == [False, True]
    assert any("Новый стол открыт" in a for a in answers)
    old, new = rows(
        db_path,
        "SELECT table_id, rules_json, pace, hints, ai_level, creator_id, rematch_of"
        " FROM tables WHERE status IN ('finished', 'open') ORDER BY table_id",
    )
    assert new[1:5] == old[1:5] and new[6] == old[0]
    # Whoever asked for it sets it up and starts it (the old creator may be gone).
    opened = anna if "Новый стол открыт" in answers[0] else boris
    assert new[5] == opened.id
    assert old[2] != 60 and old[4] == "amateur"
    seats = rows(db_path, "SELECT user_id FROM seats WHERE table_id=? ORDER BY seat", new[0])
    assert seats == [(anna.id,), (boris.id,), (None,), (None,)]
    rematch = Table(fake, GROUP, [anna])
    await fake.wait_for(lambda: "Новый стол" in rematch.table_message().text)
    text = rematch.table_message().text
    assert "Север: Анна" in text and "Восток: Борис" in text and "Юг: свободно" in text
    assert "«Клуб»" in text
    # Gleb is called to it, and sits in a tap; a press again changes nothing.
    await fake.wait_for(lambda: calls_of(fake, gleb), message="Gleb called")
    await press_label(fake, gleb, calls_of(fake, gleb)[0], "Сесть")
    await fake.wait_for(lambda: "Юг: Глеб" in rematch.table_message().text)
    answer = await press_label(fake, boris, over, "Ещё партию")
    assert "уже открыт" in answer["text"]
    assert len(rows(db_path, "SELECT 1 FROM tables WHERE rematch_of IS NOT NULL")) == 1


async def test_an_admin_opens_the_rematch_in_its_topic(
    fake: FakeTelegram, db_path: Path, running_bot: InProcessBot
) -> None:
    anna, boris = fake.add_user(5501, "Анна"), fake.add_user(5502, "Борис")
    fake.add_group(FORUM, "Клуб", members=[anna, boris], admins=[anna], supergroup=True, forum=True)
    cards = fake.create_topic(FORUM, boris, "Пики")
    for u in (anna, boris):
        await fake.start_bot(u)
    table = await new_table(fake, boris, FORUM, thread=cards)
    await press_label(fake, boris, table.table_message(), "Правила")
    await fake.wait_for(lambda: "«Клуб»" in table.table_message().text)
    await press_label(fake, boris, table.table_message(), "Начать")
    await play_moves(table, lambda: game_over_note(fake, FORUM) is not None)
    over = game_over_note(fake, FORUM)
    assert over is not None and over.thread_id == cards
    # Anna did not play, but she is an admin of the group.
    answer = await press_label(fake, anna, over, "Ещё партию")
    assert "Новый стол открыт" in answer["text"]
    # She asked for it: she sets it up (Boris still sits where he sat).
    assert rows(db_path, "SELECT thread_id, creator_id FROM tables WHERE status='open'") == [
        (cards, anna.id)
    ]
    await fake.wait_for(lambda: "Новый стол" in table.table_message().text)
    assert "Север: Борис" in table.table_message().text
    assert table.table_message().thread_id == cards


async def test_the_calls_follow_a_group_that_becomes_a_supergroup(
    fake: FakeTelegram, db_path: Path, running_bot: InProcessBot
) -> None:
    anna, boris = fake.add_user(5601, "Анна"), fake.add_user(5602, "Борис")
    fake.add_group(GROUP, "Клуб", members=[anna, boris], admins=[anna])
    for u in (anna, boris):
        await fake.start_bot(u)
    await call_me(fake, anna, GROUP)
    new = fake.migrate_group(GROUP)
    await fake.wait_for(lambda: rows(db_path, "SELECT chat_id FROM call_me") == [(new,)])
    await new_table(fake, boris, new)
    await fake.wait_for(lambda: calls_of(fake, anna), message="Anna called")


async def test_who_leaves_the_group_is_called_no_more(
    fake: FakeTelegram, db_path: Path, running_bot: InProcessBot
) -> None:
    anna, boris = fake.add_user(5701, "Анна"), fake.add_user(5702, "Борис")
    fake.add_group(GROUP, "Клуб", members=[anna, boris], admins=[anna])
    for u in (anna, boris):
        await call_me(fake, u, GROUP)
    fake.remove_member(GROUP, boris)
    await fake.wait_for(lambda: rows(db_path, "SELECT user_id FROM call_me") == [(anna.id,)])


async def test_who_left_unheard_gets_no_seat_from_a_call_and_no_more_calls(
    fake: FakeTelegram, db_path: Path, running_bot: InProcessBot
) -> None:
    """Telegram does not always tell the bot that someone left: the call's
    seat button asks whether they are still in the group."""
    anna, boris = fake.add_user(5711, "Анна"), fake.add_user(5712, "Борис")
    fake.add_group(GROUP, "Клуб", members=[anna, boris], admins=[anna])
    for u in (anna, boris):
        await fake.start_bot(u)
    await call_me(fake, boris, GROUP)
    fake.remove_member(GROUP, boris, quietly=True)
    table = await new_table(fake, anna, GROUP)
    await fake.wait_for(lambda: calls_of(fake, boris), message="Boris called")
    answer = await press_label(fake, boris, calls_of(fake, boris)[0], "Сесть")
    # The refusal a stranger gets too: it names no group (the data is forgeable).
    assert answer["text"] == "Это место недоступно."
    await fake.wait_idle(quiet=0.05)
    assert "Борис" not in table.table_message().text
    assert subscribers(db_path, GROUP) == []


def answer_to(fake: FakeTelegram, chat_id: int, asked: dict[str, Any]) -> FakeMessage | None:
    """The bot's answer to the message ``asked``, as it stands now."""
    return next(
        (
            m
            for m in fake.chat_messages(chat_id)
            if m.reply_to is not None and m.reply_to.message_id == asked["message_id"]
        ),
        None,
    )


def ddl(db: Path, sql: str) -> None:
    con = sqlite3.connect(db, timeout=10)
    try:
        con.execute(sql)
        con.commit()
    finally:
        con.close()


def subscribers(db: Path, chat_id: int) -> list[int]:
    return [
        r[0] for r in rows(db, "SELECT user_id FROM call_me WHERE chat_id=? ORDER BY 1", chat_id)
    ]


async def test_call_me_toggles_and_its_off_button_is_for_its_person_alone(
    fake: FakeTelegram, db_path: Path, running_bot: InProcessBot
) -> None:
    anna, boris = fake.add_user(5801, "Анна"), fake.add_user(5802, "Борис")
    fake.add_group(GROUP, "Клуб", members=[anna, boris], admins=[anna])
    other = -5550003
    fake.add_group(other, "Дача", members=[anna, boris], admins=[anna])
    for u in (anna, boris):
        await fake.start_bot(u)
    await call_me(fake, anna, other)

    # /call_me: on, with one tap to turn it off under the answer.
    asked = await fake.send_text(anna, GROUP, "/call_me")
    on = await fake.wait_for(lambda: answer_to(fake, GROUP, asked))
    assert "Позову вас" in on.text and "/call_me off" in on.text
    off = fake.find_button(on, text_contains="Больше не звать").value
    assert off is not None
    # Boris cannot turn Anna's calls off, through her button or a forged one.
    answer = await (await fake.press_button(boris, on, text_contains="Больше не звать")).answer()
    assert "для того, кто просил звать" in answer["text"]
    forged = await fake.press_raw(boris, GROUP, on.message_id, f"co:{GROUP}:{anna.id}")
    assert "для того, кто просил звать" in (await forged.answer())["text"]
    # Nor does her button pressed on a message of another chat (her other group's calls).
    other_message = fake.chat_messages(other)[-1]
    forged = await fake.press_raw(anna, other, other_message.message_id, off)
    assert "устарела" in (await forged.answer())["text"]
    forged = await fake.press_raw(anna, GROUP, on.message_id, f"co:{other}:{anna.id}")
    assert "устарела" in (await forged.answer())["text"]
    await fake.wait_idle(quiet=0.05)
    assert subscribers(db_path, GROUP) == [anna.id]
    assert subscribers(db_path, other) == [anna.id]
    assert "Позову вас" in fake.message(GROUP, on.message_id).text

    # Anna's own tap (a double click): off, the answer says so and loses the button.
    presses = [await fake.press_button(anna, on, text_contains="Больше не звать") for _ in range(2)]
    answers = [(await p.answer())["text"] for p in presses]
    assert "Больше не зову" in answers[0]
    assert "Больше не зову" in answers[1] or "устарела" in answers[1]
    await fake.wait_for(lambda: "Больше не зову" in fake.message(GROUP, on.message_id).text)
    assert fake.message(GROUP, on.message_id).buttons() == []
    assert subscribers(db_path, GROUP) == []
    assert subscribers(db_path, other) == [anna.id]

    # /call_me off is off, whatever it was; /call_me again on, then off again.
    asked = await fake.send_text(anna, GROUP, "/call_me off")
    await fake.wait_for(reply_to(fake, GROUP, asked, "Больше не зову"))
    assert subscribers(db_path, GROUP) == []
    await call_me(fake, anna, GROUP)
    assert subscribers(db_path, GROUP) == [anna.id]
    await call_me(fake, anna, GROUP, "Больше не зову")
    assert subscribers(db_path, GROUP) == []
    # /call_me on stays on, however it is written (the words of every
    # language count, locales/*/social.ftl); a word it does not know changes nothing.
    for word in ("on", "Вкл", "yes"):
        asked = await fake.send_text(boris, GROUP, f"/call_me {word}")
        await fake.wait_for(reply_to(fake, GROUP, asked, "Позову вас"))
        assert subscribers(db_path, GROUP) == [boris.id]
    asked = await fake.send_text(boris, GROUP, "/call_me завтра")
    await fake.wait_for(reply_to(fake, GROUP, asked, "/call_me off — не звать"))
    assert subscribers(db_path, GROUP) == [boris.id]
    asked = await fake.send_text(boris, GROUP, "/call_me стоп")
    await fake.wait_for(reply_to(fake, GROUP, asked, "Больше не зову"))
    assert subscribers(db_path, GROUP) == []
    assert subscribers(db_path, other) == [anna.id]


async def test_a_table_and_its_calls_are_written_together(
    fake: FakeTelegram, db_path: Path, running_bot: InProcessBot
) -> None:
    """A failure while the calls are written (as a kill -9 there would be)
    leaves no table either: /newgame again opens it, and the calls go out."""
    anna, boris = fake.add_user(5901, "Анна"), fake.add_user(5902, "Борис")
    fake.add_group(GROUP, "Клуб", members=[anna, boris], admins=[anna])
    for u in (anna, boris):
        await fake.start_bot(u)
    await call_me(fake, boris, GROUP)
    # The database refuses to record a call (the bot runs in this event loop:
    # the schema is changed from a thread, so the bot goes on meanwhile).
    await asyncio.to_thread(
        ddl,
        db_path,
        "CREATE TRIGGER no_calls BEFORE UPDATE OF last_called_at ON call_me"
        " BEGIN SELECT RAISE(ABORT, 'the disk is gone'); END",
    )
    asked = await fake.send_text(anna, GROUP, "/newgame")
    await fake.wait_for(reply_to(fake, GROUP, asked, "Что-то пошло не так"))
    await fake.wait_idle(quiet=0.1)
    assert rows(db_path, "SELECT 1 FROM tables") == []
    assert rows(db_path, "SELECT 1 FROM seats") == []
    assert all(
        "открыли стол" not in r[0]
        for r in rows(db_path, "SELECT payload FROM outbox WHERE chat_id=?", boris.id)
    )
    assert all("Новый стол" not in t for t in fake.sent_texts(GROUP))
    await asyncio.to_thread(ddl, db_path, "DROP TRIGGER no_calls")
    table = await new_table(fake, anna, GROUP)
    await fake.wait_for(lambda: calls_of(fake, boris), message="Boris called")
    assert "Анна" in table.table_message().text
    assert len(rows(db_path, "SELECT 1 FROM tables")) == 1


async def test_a_group_the_bot_left_calls_nobody(
    fake: FakeTelegram, db_path: Path, running_bot: InProcessBot
) -> None:
    anna, boris = fake.add_user(6001, "Анна"), fake.add_user(6002, "Борис")
    fake.add_group(GROUP, "Клуб", members=[anna, boris], admins=[anna])
    other = -5550004
    fake.add_group(other, "Дача", members=[anna, boris], admins=[anna])
    for u in (anna, boris):
        await fake.start_bot(u)
    for chat in (GROUP, other):
        await call_me(fake, boris, chat)
    fake.remove_bot_from_group(GROUP, anna)
    await fake.wait_for(lambda: subscribers(db_path, GROUP) == [], message="calls ended")
    assert subscribers(db_path, other) == [boris.id]
    # Added back, a new table there calls nobody; the other group still calls Boris.
    fake.add_bot_to_group(GROUP, anna)
    await new_table(fake, anna, GROUP)
    await fake.wait_idle(quiet=0.2)
    assert calls_of(fake, boris) == []
    await new_table(fake, anna, other)
    await fake.wait_for(lambda: calls_of(fake, boris), message="Boris called to the other group")
    assert len(calls_of(fake, boris)) == 1 and "«Дача»" in calls_of(fake, boris)[0].text
