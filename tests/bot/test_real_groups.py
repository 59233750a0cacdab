"""Groups as people have them: forum topics, anonymous admins, posts on behalf
of channels, a run of lookups, a press at a restart, names written right to left.

Each test drives the real bot over HTTP through the fake Telegram, as people
would, and reads only what Telegram would show them (and the database).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from bot_processes import BotProcesses
from fake_telegram import FakeMessage, FakeTelegram, FakeUser
from harness import (
    InProcessBot,
    MakeBot,
    Table,
    forget_me,
    game_over_in,
    move_buttons,
    open_table,
    play_moves,
    rows,
)

from bot.config import Settings

FORUM = -1001234007700
GROUP = -1001234007800
GROUP_ANONYMOUS_BOT = 1087968824
CHANNEL_BOT = 136817688


def live_tables(fake: FakeTelegram, chat_id: int, thread: int | str | None = None) -> list[Any]:
    """Table messages that still carry the table's buttons (seats, settings, lookups)."""
    return [
        m
        for m in fake.chat_messages(chat_id, thread=thread)
        if any((b.value or "").startswith(("t:", "q:")) for b in m.buttons())
    ]


def answer_to(fake: FakeTelegram, chat_id: int, asked: dict[str, Any]) -> FakeMessage | None:
    for m in fake.chat_messages(chat_id):
        if m.reply_to is not None and m.reply_to.message_id == asked["message_id"]:
            return m
    return None


async def answered(
    fake: FakeTelegram, chat_id: int, asked: dict[str, Any], timeout: float = 10
) -> FakeMessage:
    found = await fake.wait_for(lambda: answer_to(fake, chat_id, asked), timeout=timeout)
    assert isinstance(found, FakeMessage)
    return found


async def press(fake: FakeTelegram, user: FakeUser, message: FakeMessage, label: str) -> str:
    answer = await (await fake.press_button(user, message, text_contains=label)).answer()
    return str(answer.get("text") or "")


# ---------------------------------------------------------------- forum topics


async def test_a_forum_topic_holds_its_own_table_from_start_to_end(
    fake: FakeTelegram, running_bot: InProcessBot, db_path: Path
) -> None:
    anna, boris = fake.add_user(801, "Анна"), fake.add_user(802, "Борис")
    fake.add_group(FORUM, "Клуб", members=[anna, boris], admins=[anna], supergroup=True, forum=True)
    cards = fake.create_topic(FORUM, anna, "Пики по средам")
    talk = fake.create_topic(FORUM, boris, "Болталка")
    for u in (anna, boris):
        await fake.start_bot(u)

    await fake.send_text(anna, FORUM, "/newgame", thread=cards)
    table = Table(fake, FORUM, [anna], thread=cards)
    await fake.wait_for(lambda: table.find_table_message(), timeout=10)
    # Another topic gets a table of its own; the first stays where it is.
    await fake.send_text(boris, FORUM, "/newgame", thread=talk)
    other = Table(fake, FORUM, [boris], thread=talk)
    await fake.wait_for(lambda: other.find_table_message(), timeout=10)
    await fake.wait_idle(quiet=0.2)
    assert rows(db_path, "SELECT thread_id FROM tables ORDER BY table_id") == [(cards,), (talk,)]
    assert len(live_tables(fake, FORUM, cards)) == 1
    assert len(live_tables(fake, FORUM, talk)) == 1

    # A lookup in a topic is about its author, not about whoever opened the
    # topic (every message in a topic implicitly replies to its first one).
    asked = await fake.send_text(anna, FORUM, "/stats", thread=talk)
    stats = await answered(fake, FORUM, asked)
    assert "Анна" in stats.text and "Борис" not in stats.text
    assert stats.thread_id == talk
    # /score in the other topic is about that topic's table.
    asked = await fake.send_text(boris, FORUM, "/score", thread=talk)
    assert "не началась" in (await answered(fake, FORUM, asked)).text

    assert await press(fake, anna, table.table_message(), "Начать") == ""
    await play_moves(table, until=game_over_in(fake, FORUM, cards))
    await fake.wait_idle(quiet=0.5, timeout=30)

    # Everything of the game went to its topic: the table and its re-posts,
    # hand results, the end, the afterword and the chart. Nothing to General.
    assert fake.chat_messages(FORUM, thread="general") == []
    texts = fake.sent_texts(FORUM, thread=cards)
    assert sum("сыграна" in t for t in texts) >= 1
    assert not any(
        "сыграна" in t or "Игра окончена" in t for t in fake.sent_texts(FORUM, thread=talk)
    )
    await fake.wait_for(lambda: fake.calls_to("sendPhoto", FORUM), timeout=60)  # drawn after
    photos = fake.calls_to("sendPhoto", FORUM)
    assert photos and all(c.params.get("message_thread_id") == cards for c in photos)
    sends = fake.calls_to("sendMessage", FORUM)
    assert all(c.params.get("message_thread_id") in (cards, talk) for c in sends)
    # The private messages name the topic.
    assert any("Пики по средам" in t for t in fake.sent_texts(anna.id))


async def test_an_answer_stays_in_its_topic_when_the_command_is_gone(
    fake: FakeTelegram, running_bot: InProcessBot
) -> None:
    anna = fake.add_user(811, "Анна")
    fake.add_group(FORUM, "Клуб", members=[anna], admins=[anna], supergroup=True, forum=True)
    topic = fake.create_topic(FORUM, anna, "Пики")
    with fake.hold_updates():
        asked = await fake.send_text(anna, FORUM, "/rules", thread=topic)
        fake.chat(FORUM).messages.pop(asked["message_id"])  # deleted before the bot answers
    await fake.wait_for(lambda: fake.sent_texts(FORUM), timeout=10)
    await fake.wait_idle(quiet=0.2)
    assert [m.thread_id for m in fake.chat_messages(FORUM)] == [topic]


async def game_in_a_topic(fake: FakeTelegram, anna: FakeUser) -> tuple[Table, int]:
    """A forum with one topic, and a game started there by ``anna`` alone."""
    fake.add_group(FORUM, "Клуб", members=[anna], admins=[anna], supergroup=True, forum=True)
    topic = fake.create_topic(FORUM, anna, "Пики")
    await fake.start_bot(anna)
    await fake.send_text(anna, FORUM, "/newgame", thread=topic)
    table = Table(fake, FORUM, [anna], thread=topic)
    await fake.wait_for(lambda: table.find_table_message(), timeout=10)
    await press(fake, anna, table.table_message(), "Начать")
    await fake.wait_for(lambda: table.actionable(), timeout=10)
    return table, topic


async def test_a_closed_topic_pauses_its_game_until_reopened(
    fake: FakeTelegram, running_bot: InProcessBot, db_path: Path
) -> None:
    anna = fake.add_user(821, "Анна")
    table, topic = await game_in_a_topic(fake, anna)

    fake.close_topic(FORUM, topic, anna)
    await fake.wait_for(lambda: any("тему закрыли" in t for t in fake.sent_texts(anna.id)))
    assert rows(db_path, "SELECT paused FROM tables") == [(2,)]
    user, msg = table.actionable()[0]
    refused = await (await fake.press(user, user.id, msg.message_id, move_buttons(msg)[0])).answer()
    assert "закрыли" in (refused["text"] or "")
    before = rows(db_path, "SELECT COUNT(*) FROM actions")

    fake.reopen_topic(FORUM, topic, anna)
    await fake.wait_for(
        lambda: any("снова открыта" in t for t in fake.sent_texts(FORUM, thread=topic))
    )
    assert rows(db_path, "SELECT paused FROM tables") == [(0,)]
    assert rows(db_path, "SELECT COUNT(*) FROM actions") == before
    user, msg = table.actionable()[0]
    assert (await (await fake.press(user, user.id, msg.message_id, move_buttons(msg)[0])).answer())[
        "text"
    ] in (None, "")


async def test_a_deleted_topic_pauses_its_game_with_a_clear_line(
    fake: FakeTelegram, running_bot: InProcessBot, db_path: Path
) -> None:
    anna = fake.add_user(831, "Анна")
    table, topic = await game_in_a_topic(fake, anna)

    fake.delete_topic(FORUM, topic)  # Telegram tells the bot nothing
    user, msg = table.actionable()[0]
    await (await fake.press(user, user.id, msg.message_id, move_buttons(msg)[0])).answer()
    await fake.wait_for(lambda: any("тему удалили" in t for t in fake.sent_texts(anna.id)))
    assert rows(db_path, "SELECT paused FROM tables") == [(3,)]
    assert fake.chat_messages(FORUM, thread="general") == []


# ------------------------------------------------- anonymous admins, channels


async def test_an_anonymous_admin_opens_a_table_anyone_seated_can_start(
    fake: FakeTelegram, running_bot: InProcessBot, db_path: Path
) -> None:
    anna, boris = fake.add_user(841, "Анна"), fake.add_user(842, "Борис")
    vera = fake.add_user(843, "Вера")
    fake.add_group(GROUP, "Клуб", members=[anna, boris, vera], admins=[anna], supergroup=True)
    for u in (boris, vera):
        await fake.start_bot(u)

    asked = await fake.send_as_group(anna, GROUP, "/newgame")
    table = Table(fake, GROUP, [boris])
    await fake.wait_for(lambda: table.find_table_message(), timeout=10)
    assert "от имени группы" in (await answered(fake, GROUP, asked)).text
    assert rows(db_path, "SELECT creator_id FROM tables") == [(0,)]

    # Someone not seated (and not an admin) may not start it; Борис, seated, may.
    await press(fake, boris, table.table_message(), "Восток")
    await fake.wait_for(lambda: "Борис" in table.table_message().text)
    assert "сидит за столом" in await press(fake, vera, table.table_message(), "Начать")
    assert await press(fake, boris, table.table_message(), "Начать") == ""
    await fake.wait_for(lambda: table.actionable(), timeout=10)

    # The anonymous admin cancels it (as an admin), confirming with their own press.
    asked = await fake.send_as_group(anna, GROUP, "/cancel")
    confirm = await answered(fake, GROUP, asked)
    await press(fake, anna, confirm, "Да")
    await fake.wait_for(lambda: rows(db_path, "SELECT status FROM tables") == [("cancelled",)])
    people = {uid for (uid,) in rows(db_path, "SELECT user_id FROM users")}
    assert GROUP_ANONYMOUS_BOT not in people


async def test_a_channel_is_never_a_person(
    fake: FakeTelegram, running_bot: InProcessBot, db_path: Path
) -> None:
    anna = fake.add_user(851, "Анна")
    fake.add_group(GROUP, "Клуб", members=[anna], admins=[anna], supergroup=True)
    for command in ("/stats", "/profile", "/partners", "/leave", "/newgame"):
        asked = await fake.send_as_channel(-1001234550001, "Канал новостей", GROUP, command)
        reply = await answered(fake, GROUP, asked)
        assert "Channel" not in reply.text and "Канал" not in reply.text, (command, reply.text)
    people = {uid for (uid,) in rows(db_path, "SELECT user_id FROM users")}
    assert not people & {CHANNEL_BOT, GROUP_ANONYMOUS_BOT, -1001234550001}
    assert rows(db_path, "SELECT creator_id FROM tables") == [(0,)]
    assert rows(db_path, "SELECT COUNT(*) FROM seats WHERE user_id IS NOT NULL") == [(0,)]


# ----------------------------------------------------------------- lookups

LOOKUPS = (
    "/score",
    "/turn",
    "/table",
    "/info",
    "/sheet",
    "/history",
    "/stats",
    "/rules",
    "/profile",
    "/partners",
)


async def test_ten_lookups_in_a_row_are_all_answered(fake: FakeTelegram, make_bot: MakeBot) -> None:
    limits = Settings.model_fields
    await make_bot(
        command_limit=limits["command_limit"].default,
        command_window=limits["command_window"].default,
    )
    anna = fake.add_user(861, "Анна")
    fake.add_group(GROUP, "Клуб", members=[anna], admins=[anna], supergroup=True)
    await open_table(fake, GROUP, [anna], timeout=10)
    asked = [await fake.send_text(anna, GROUP, c) for c in LOOKUPS]
    for a in asked:
        await answered(fake, GROUP, a)
    assert not any("быстро" in t for t in fake.sent_texts(GROUP))


async def test_a_flood_of_one_question_is_one_answer(fake: FakeTelegram, make_bot: MakeBot) -> None:
    """The same lookup asked again and again: one answer stays in the chat."""
    await make_bot(group_messages_per_minute=20)
    anna = fake.add_user(871, "Анна")
    fake.add_group(GROUP, "Клуб", members=[anna], admins=[anna], supergroup=True)
    for _ in range(8):
        await fake.send_text(anna, GROUP, "/rules")
    await fake.wait_idle(quiet=1.0, timeout=30)
    sent = [t for t in fake.sent_texts(GROUP) if "Правила" in t]
    shown = [m for m in fake.chat_messages(GROUP) if "Правила" in m.text]
    assert len(shown) == 1 and len(sent) <= 3, sent


# --------------------------------------------------------------- restarts


MADE = "SELECT COUNT(*) FROM actions WHERE seq=? AND by_user=?"


async def test_a_press_fetched_just_before_a_kill_counts_once(
    fake: FakeTelegram, bot_process: BotProcesses, db_path: Path
) -> None:
    """The move was committed, the press not yet marked handled when the bot
    died: after the restart the same press is handled again and the person
    is told their move stands (never «устарела», never a second move)."""
    db = db_path
    anna = fake.add_user(881, "Анна")
    fake.add_group(GROUP, "Клуб", members=[anna], admins=[anna], supergroup=True)
    proc = await bot_process()
    errors: list[str] = []
    table = await open_table(fake, GROUP, [anna])
    for _ in range(3):
        await fake.wait_for(lambda: table.actionable(), timeout=30)
        await fake.wait_idle(quiet=0.1, timeout=30)
        user, msg = table.actionable()[0]
        data = move_buttons(msg)[-1]
        seq = int(data.split(":")[2])
        # The answer to the press hangs: the handler is still running
        # (the update not marked done) when the kill comes.
        fake.inject("timeout", method="answerCallbackQuery", count=1)
        pressed = await fake.press_raw(user, user.id, msg.message_id, data)
        await fake.wait_for(
            lambda seq=seq, uid=user.id: rows(db, MADE, seq, uid) == [(1,)], timeout=30
        )
        proc.kill()
        fake.clear_faults()  # the killed bot may not have reached its answer
        errors.append(proc.stop())
        proc = await bot_process.again(proc)
        told = await pressed.answer(timeout=30)
        # Answered after the restart: «уже принят»; (rarely) the killed bot
        # got its answer out first: no text. Never «устарела».
        assert "устарела" not in (told["text"] or ""), told
        assert rows(db, MADE, seq, user.id) == [(1,)]
    errors.append(proc.stop())
    assert not any("Traceback" in e for e in errors), errors


# --------------------------------------------------- one live table message


async def test_two_newgames_in_one_batch_leave_one_table_message(
    fake: FakeTelegram, running_bot: InProcessBot, db_path: Path
) -> None:
    for n in range(5):
        chat = GROUP - n
        anna, boris = fake.add_user(890 + 2 * n, "Анна"), fake.add_user(891 + 2 * n, "Борис")
        fake.add_group(chat, f"Группа {n}", members=[anna, boris], admins=[anna], supergroup=True)
        with fake.hold_updates():
            await fake.send_text(anna, chat, "/newgame")
            await fake.send_text(boris, chat, "/newgame")
    # Every group's table message is out (a quiet spell alone came first on a
    # loaded machine), then nothing more comes: one each, not two.
    await fake.wait_for(lambda: all(live_tables(fake, GROUP - n) for n in range(5)), timeout=30)
    await fake.wait_idle(quiet=0.5, timeout=30)
    for n in range(5):
        assert len(live_tables(fake, GROUP - n)) == 1, fake.chat_messages(GROUP - n)
    assert rows(db_path, "SELECT COUNT(*) FROM tables") == [(5,)]


async def test_a_group_upgraded_mid_game_shows_one_live_table(
    fake: FakeTelegram, running_bot: InProcessBot
) -> None:
    anna = fake.add_user(901, "Анна")
    fake.add_group(-4001, "Клуб", members=[anna], admins=[anna])
    table = await open_table(fake, -4001, [anna], timeout=10)
    # The bot learns of the move from a refused call first; the service
    # messages come once the table shows in the new chat.
    new = fake.migrate_group(-4001, announce="manual")
    table.group = new
    user, msg = table.actionable()[0]
    await (await fake.press(user, user.id, msg.message_id, move_buttons(msg)[0])).answer()
    await fake.wait_for(lambda: live_tables(fake, new), timeout=10)
    await fake.wait_idle(quiet=0.2, timeout=30)
    fake.announce_migration(-4001)
    for _ in range(4):
        await fake.wait_idle(quiet=0.2, timeout=30)
        await fake.wait_for(lambda: table.actionable(), timeout=30)  # the computer may think
        user, msg = table.actionable()[0]
        await (await fake.press(user, user.id, msg.message_id, move_buttons(msg)[0])).answer()
    await fake.wait_idle(quiet=0.5, timeout=30)
    assert len(live_tables(fake, new)) == 1, fake.chat_messages(new)


# ------------------------------------------------------------ after /forget_me


async def test_lookups_after_forget_me_are_answered_promptly(
    fake: FakeTelegram, make_bot: MakeBot
) -> None:
    """Two people hand their seats to the computer, one asks to be forgotten;
    the other's lookups in the group are answered within 3 s, at the group's
    real pace, while four computers play on."""
    await make_bot(group_messages_per_minute=20, ai_move_delay=1.0)
    anna, boris = fake.add_user(911, "Аннушка"), fake.add_user(912, "Борис")
    fake.add_group(GROUP, "Клуб", members=[anna, boris], admins=[anna], supergroup=True)
    await open_table(fake, GROUP, [anna, boris], seats=["Восток"], timeout=10)
    left = [await fake.send_text(u, GROUP, "/leave") for u in (anna, boris)]
    for asked in left:
        await answered(fake, GROUP, asked, timeout=30)
    await forget_me(fake, anna)
    await asyncio.sleep(4)  # the computers play on: edits of the table queue up
    loop = asyncio.get_running_loop()
    asked_at = []
    for command in ("/history", "/sheet", "/info"):
        asked_at.append((command, await fake.send_text(boris, GROUP, command), loop.time()))
    for command, asked, at in asked_at:
        reply = await answered(fake, GROUP, asked, timeout=10)
        assert loop.time() - at <= 3.0, (command, loop.time() - at)
        assert "Аннушка" not in reply.text


# -------------------------------------------------------------------- names


async def test_a_right_to_left_name_is_isolated(
    fake: FakeTelegram, running_bot: InProcessBot
) -> None:
    david = fake.add_user(921, "דוד")
    fake.add_group(GROUP, "Клуб", members=[david], admins=[david], supergroup=True)
    await fake.start_bot(david)
    await fake.send_text(david, GROUP, "/newgame")
    table = Table(fake, GROUP, [david])
    await fake.wait_for(lambda: table.find_table_message(), timeout=10)
    assert "\u2068דוד\u2069" in table.table_message().text
