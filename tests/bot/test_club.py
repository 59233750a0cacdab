"""The club: permanent partners, the afterword, Authority, forgetting oneself."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

import pytest
from aiogram.fsm.storage.memory import MemoryStorage
from fake_telegram import FakeMessage, FakeTelegram
from harness import InProcessBot, Table, forget_me, open_table, play_moves

from bot.clock import FakeClock
from bot.services.afterword import AFTERWORD_SECONDS

GROUP = -1004004


async def play_game(fake: FakeTelegram, users, seats: Sequence[str] = ()) -> Table:
    """A club-preset game (short: it ends at −200) with these people seated."""
    table = await open_table(fake, GROUP, users, seats=seats, club=True)
    await play_moves(table, table.game_over)
    return table


def afterword(fake: FakeTelegram):
    for m in reversed(fake.chat_messages(GROUP)):
        if "Послесловие" in m.text:
            return m
    return None


async def test_three_games_make_permanent_partners_seated_together(
    fake: FakeTelegram, clock: FakeClock, clocked_bot: InProcessBot
) -> None:
    anna, boris = fake.add_user(801, "Анна"), fake.add_user(802, "Борис")
    fake.add_group(GROUP, "Клуб", members=[anna, boris], admins=[anna])
    for u in (anna, boris):
        await fake.start_bot(u)
    for game in range(3):
        await play_game(fake, [anna, boris])
        clock.advance(AFTERWORD_SECONDS + 1)  # let the afterword close before the next table
        await fake.wait_idle(quiet=0.05)
        made = any("постоянные партнёры" in t for t in fake.sent_texts(GROUP))
        assert made == (game == 2)
    assert any("постоянные партнёры" in t for t in fake.sent_texts(boris.id))
    assert any("постоянные партнёры" in t for t in fake.sent_texts(anna.id))
    # The next table: Anna sits North (the creator), Boris asks for East and is
    # seated opposite her instead.
    table = await open_table(fake, GROUP, [anna, boris], seats=["Восток"], start=False)
    text = table.table_message().text
    assert "Новый стол" in text
    assert "Юг: Борис" in text and "Восток: свободно" in text
    await fake.send_text(anna, anna.id, "/partners")
    await fake.wait_for(lambda: "Постоянные партнёры" in fake.sent_texts(anna.id)[-1])
    assert "Борис: 3 партии вместе" in fake.sent_texts(anna.id)[-1]


def picker(fake: FakeTelegram, user) -> FakeMessage | None:
    """The user's private afterword picker."""
    for m in reversed(fake.chat_messages(user.id)):
        if "Послесловие" in m.text:
            return m
    return None


def nils_made(db, user_id: int) -> int:
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT nils_made FROM results WHERE user_id=?", (user_id,)).fetchone()[
            0
        ]
    finally:
        con.close()


async def test_afterword_gestures_and_authority(
    fake: FakeTelegram, clock: FakeClock, db_path: Path, clocked_bot: InProcessBot
) -> None:
    anna, boris, vera = (
        fake.add_user(811, "Анна"),
        fake.add_user(812, "Борис"),
        fake.add_user(813, "Вера"),
    )
    fake.add_group(GROUP, "Клуб", members=[anna, boris, vera], admins=[anna])
    for u in (anna, boris, vera):
        await fake.start_bot(u)
    # Anna North, Vera East, Boris South (Anna's partner), a computer West.
    await play_game(fake, [anna, boris, vera], seats=["Юг", "Восток"])  # Boris, Vera
    group_msg = await fake.wait_for(lambda: afterword(fake))
    assert [b.text for b in group_msg.buttons()] == ["💬 Сказать доброе слово"]
    await fake.wait_for(lambda: all(picker(fake, u) for u in (anna, boris, vera)))
    # Each person's own choice: a row per other person, never oneself, no computer.
    for me, others in (
        (anna, {"Борис", "Вера"}),
        (boris, {"Анна", "Вера"}),
        (vera, {"Анна", "Борис"}),
    ):
        assert {b.text for b in picker(fake, me).buttons()} == others
    game = picker(fake, anna).buttons()[0].value.split(":")[1]

    async def choose(user, name: str) -> FakeMessage:
        m = picker(fake, user)
        await (await fake.press_button(user, m, text_contains=name)).answer()
        await fake.wait_for(lambda: "что сказать?" in picker(fake, user).text)
        return picker(fake, user)

    async def say(user, name: str, gesture: str) -> str:
        m = await choose(user, name)
        answer = await (await fake.press_button(user, m, text_contains=gesture)).answer()
        await fake.wait_for(lambda: "Кому сказать" in picker(fake, user).text)
        return answer["text"] or ""

    # The gestures fit: a partner as a partner only, a nil only to who made one.
    for me, name, uid, mate in ((anna, "Борис", boris.id, True), (vera, "Анна", anna.id, False)):
        labels = " ".join(b.text for b in (await choose(me, name)).buttons())
        assert ("отличный партнёр" in labels) == mate
        assert ("красивый ноль" in labels) == (nils_made(db_path, uid) > 0)
        await (await fake.press_button(me, picker(fake, me), text_contains="К списку")).answer()
        await fake.wait_for(lambda me=me: "Кому сказать" in picker(fake, me).text)

    assert "Отправлено" in await say(anna, "Борис", "спасибо за игру")
    assert "Отправлено" in await say(boris, "Анна", "отличный партнёр")
    assert "Отправлено" in await say(vera, "Анна", "спасибо за игру")
    assert "Отправлено" in await say(vera, "Борис", "хорошо сыграно")
    assert "Борис ✓" in [b.text for b in picker(fake, anna).buttons()]
    m = await choose(anna, "Борис")
    dup = await (await fake.press_button(anna, m, text_contains="спасибо за игру")).answer()
    assert "уже сказали" in dup["text"]
    # Forged: to oneself, to the computer seat, a partner's word to a non-partner,
    # from someone who was not at the table (where the buttons cannot be compared).
    for who, data, expected in (
        (anna, f"g:{game}:0:0", "Себе"),
        (anna, f"g:{game}:3:0", "Компьютеру доброе слово не нужно"),
        (vera, f"g:{game}:0:1", "устарела"),
    ):
        answer = await (await fake.press_raw(who, who.id, 10**6, data)).answer()
        assert expected in answer["text"], (data, answer)
    stranger = fake.add_user(819, "Гость")
    await fake.start_bot(stranger)
    guest = await (await fake.press_raw(stranger, stranger.id, 10**6, f"g:{game}:0:0")).answer()
    assert "сидел за столом" in guest["text"]
    await fake.wait_for(lambda: afterword(fake).text.count("→") == 4)
    # When it closes: the group's last line says who thanked whom; the pickers close.
    clock.advance(AFTERWORD_SECONDS + 1)
    await fake.wait_for(lambda: "закрыто" in afterword(fake).text and not afterword(fake).buttons())
    closing = afterword(fake).text.splitlines()[-1]
    assert "Анна → Борис 🙏" in closing and "Вера → Борис 👏" in closing, closing
    for u in (anna, boris, vera):
        await fake.wait_for(lambda u=u: not picker(fake, u).buttons())
        assert "закрыто" in picker(fake, u).text
    late = await (await fake.press_raw(boris, boris.id, 10**6, f"g:{game}:1:0")).answer()
    assert "закрыто" in late["text"]
    # Authority counts exactly the accepted gestures; wins count for nothing.
    await fake.send_text(anna, GROUP, "/authority")
    await fake.wait_for(lambda: "Авторитет" in fake.sent_texts(GROUP)[-1])
    board = fake.sent_texts(GROUP)[-1]
    assert "Анна — ★2" in board and "Борис — ★2" in board and "Вера — ★0" in board
    con = sqlite3.connect(db_path)
    assert con.execute("SELECT COUNT(*) FROM gestures").fetchone()[0] == 4
    con.close()
    await fake.send_text(anna, GROUP, "/profile")
    await fake.wait_for(lambda: "Авторитет: 2" in fake.sent_texts(GROUP)[-1])


@pytest.mark.parametrize("when", ["after the afterword", "while it closes", "while it is open"])
async def test_forget_me_leaves_no_personal_data(
    fake: FakeTelegram, clock: FakeClock, db_path: Path, clocked_bot: InProcessBot, when: str
) -> None:
    """Also when her picker is open, or being closed by the bot's timer while
    she asks: no edit of it may write her chat's rows back."""
    uid, name = 987_654_321, "Зинаида-Уникальная"
    zina, boris = fake.add_user(uid, name, username="zina_unique"), fake.add_user(822, "Борис")
    fake.add_group(GROUP, "Клуб", members=[zina, boris], admins=[zina])
    for u in (zina, boris):
        await fake.start_bot(u)
    await play_game(fake, [zina, boris])
    await fake.wait_for(lambda: picker(fake, zina) and picker(fake, boris))
    for user, other in ((boris, "Зинаида"), (zina, "Борис")):
        await (await fake.press_button(user, picker(fake, user), text_contains=other)).answer()
        await fake.wait_for(lambda user=user: "что сказать?" in picker(fake, user).text)
        m = picker(fake, user)
        await (await fake.press_button(user, m, text_contains="спасибо")).answer()
    if when == "after the afterword":
        clock.advance(AFTERWORD_SECONDS + 1)
        # The bot's timer may come later than a quiet spell on a loaded machine.
        for u in (zina, boris):
            await fake.wait_for(lambda u=u: "закрыто" in picker(fake, u).text)
        await fake.wait_idle(quiet=0.1)
        await forget_me(fake, zina)
    elif when == "while it closes":
        clock.advance(AFTERWORD_SECONDS + 1)
        await forget_me(fake, zina)
    else:
        await forget_me(fake, zina)
        await fake.wait_idle(quiet=0.1)
        clock.advance(AFTERWORD_SECONDS + 1)
    await fake.wait_for(lambda: "закрыто" in picker(fake, boris).text)
    await fake.wait_idle(quiet=0.1)

    con = sqlite3.connect(db_path)
    try:
        found = []
        for (table,) in con.execute("SELECT name FROM sqlite_master WHERE type='table'"):
            cols = [c[1] for c in con.execute(f"PRAGMA table_info({table})")]
            for row in con.execute(f"SELECT * FROM {table}"):
                for col, value in zip(cols, row, strict=True):
                    if value == uid or (
                        isinstance(value, str)
                        and (name in value or "zina_unique" in value or str(uid) in value)
                    ):
                        found.append((table, col))
        assert not found, found
        # Finished games keep their results, anonymously.
        assert con.execute("SELECT COUNT(*) FROM results WHERE user_id IS NULL").fetchone()[0] >= 1
        assert con.execute("SELECT COUNT(*) FROM results WHERE user_id=822").fetchone()[0] == 1
    finally:
        con.close()
    # Nor does the bot's memory: aiogram's FSM would keep a record per
    # (chat, person) it ever saw (the bot keeps no conversation state).
    storage = clocked_bot.app.dp.fsm.storage
    assert isinstance(storage, MemoryStorage)
    assert not [key for key in storage.storage if uid in (key.user_id, key.chat_id)]
