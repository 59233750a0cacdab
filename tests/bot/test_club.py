"""The club: permanent partners, the afterword, Authority, forgetting oneself."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest
from fake_telegram import FakeTelegram
from harness import InProcessBot, Table, play_moves, settings_for

from bot.clock import FakeClock

GROUP = -1004004


@pytest.fixture
async def fake():
    async with FakeTelegram(bot_username="piki_test_bot") as f:
        yield f


@pytest.fixture
async def env(fake: FakeTelegram, tmp_path):
    clock = FakeClock()
    db = tmp_path / "spades.db"
    bot = InProcessBot(settings_for(fake, db), clock=clock)
    await bot.start(fake)
    yield fake, clock, db
    await bot.stop()


async def play_game(fake: FakeTelegram, users, seats: dict[int, str] | None = None) -> Table:
    """A club-preset game (short: it ends at −200) with these people seated."""
    creator = users[0]
    await fake.send_text(creator, GROUP, "/newgame")
    table = Table(fake, GROUP, list(users))
    before = len(fake.sent_texts(GROUP))
    await fake.wait_for(
        lambda: (
            (m := table.find_table_message())
            and m.buttons()
            and len(fake.sent_texts(GROUP)) > before
        )
    )
    for user in users[1:]:
        label = (seats or {}).get(user.id, "Юг")
        await (await fake.press_button(user, table.table_message(), text_contains=label)).answer()
        await fake.wait_for(lambda user=user: user.first_name in table.table_message().text)
    await (
        await fake.press_button(creator, table.table_message(), text_contains="Правила")
    ).answer()
    await fake.wait_for(lambda: "«Клуб»" in table.table_message().text)
    await (await fake.press_button(creator, table.table_message(), text_contains="Начать")).answer()
    await play_moves(table, lambda: "Победа" in table.table_message().text)
    return table


def afterword(fake: FakeTelegram):
    for m in reversed(fake.chat_messages(GROUP)):
        if "Послесловие" in m.text:
            return m
    return None


async def test_three_games_make_permanent_partners_seated_together(env) -> None:
    fake, clock, db = env
    anna, boris = fake.add_user(801, "Анна"), fake.add_user(802, "Борис")
    fake.add_group(GROUP, "Клуб", members=[anna, boris], admins=[anna])
    for u in (anna, boris):
        await fake.start_bot(u)
    for game in range(3):
        await play_game(fake, [anna, boris])
        clock.advance(91)  # let the afterword close before the next table
        await fake.wait_idle(quiet=0.05)
        made = any("постоянные партнёры" in t for t in fake.sent_texts(GROUP))
        assert made == (game == 2)
    assert any("постоянные партнёры" in t for t in fake.sent_texts(boris.id))
    assert any("постоянные партнёры" in t for t in fake.sent_texts(anna.id))
    # The next table: Anna sits North (the creator), Boris asks for East and is
    # seated opposite her instead.
    await fake.send_text(anna, GROUP, "/newgame")
    table = Table(fake, GROUP, [anna, boris])
    await fake.wait_for(lambda: (m := table.find_table_message()) and "Новый стол" in m.text)
    await (await fake.press_button(boris, table.table_message(), text_contains="Восток")).answer()
    await fake.wait_for(lambda: "Борис" in table.table_message().text)
    text = table.table_message().text
    assert "Юг: Борис" in text and "Восток: свободно" in text
    await fake.send_text(anna, anna.id, "/partners")
    await fake.wait_for(lambda: "Постоянные партнёры" in fake.sent_texts(anna.id)[-1])
    assert "Борис: 3 партии вместе" in fake.sent_texts(anna.id)[-1]


async def test_afterword_gestures_and_authority(env) -> None:
    fake, clock, db = env
    anna, boris, vera = (
        fake.add_user(811, "Анна"),
        fake.add_user(812, "Борис"),
        fake.add_user(813, "Вера"),
    )
    fake.add_group(GROUP, "Клуб", members=[anna, boris, vera], admins=[anna])
    for u in (anna, boris, vera):
        await fake.start_bot(u)
    await play_game(fake, [anna, boris, vera], seats={boris.id: "Юг", vera.id: "Восток"})
    msg = await fake.wait_for(lambda: afterword(fake))
    labels = [b.text for b in msg.buttons()]
    assert any("Анна" in t for t in labels) and not any("🤖" in t for t in labels)
    seat_of = {"Анна": 0, "Вера": 1, "Борис": 2}
    game = msg.buttons()[0].value.split(":")[1]

    def data(to: str, kind: int) -> str:
        return f"g:{game}:{seat_of[to]}:{kind}"

    # Several people at once.
    presses = [
        await fake.press_raw(anna, GROUP, msg.message_id, data("Борис", 0)),
        await fake.press_raw(boris, GROUP, msg.message_id, data("Анна", 1)),
        await fake.press_raw(vera, GROUP, msg.message_id, data("Анна", 0)),
        await fake.press_raw(vera, GROUP, msg.message_id, data("Борис", 3)),
    ]
    answers = await asyncio.gather(*(p.answer() for p in presses))
    assert all("Отправлено" in a["text"] for a in answers)
    # A duplicate, one to oneself, one to the computer seat, one from a stranger.
    dup = await (await fake.press_raw(anna, GROUP, msg.message_id, data("Борис", 0))).answer()
    assert "уже отправили" in dup["text"]
    me = await (await fake.press_raw(anna, GROUP, msg.message_id, data("Анна", 2))).answer()
    assert "Себе" in me["text"]
    robot = await (await fake.press_raw(anna, GROUP, msg.message_id, f"g:{game}:3:0")).answer()
    assert "устарела" in robot["text"]  # there is no such button
    robot = await (await fake.press_raw(anna, GROUP, 10**6, f"g:{game}:3:0")).answer()
    assert "Клубный игрок" in robot["text"]  # where it cannot be compared
    stranger = fake.add_user(819, "Гость")
    fake.chat(GROUP).members[stranger.id] = "member"
    guest = await (await fake.press_raw(stranger, GROUP, msg.message_id, data("Анна", 0))).answer()
    assert "сидел за столом" in guest["text"]
    await fake.wait_for(lambda: afterword(fake).text.count("→") == 4)
    # After 90 seconds the buttons close and presses are refused.
    clock.advance(91)
    await fake.wait_for(lambda: "закрыто" in afterword(fake).text and not afterword(fake).buttons())
    late = await (await fake.press_raw(boris, GROUP, msg.message_id, data("Вера", 0))).answer()
    assert "устарела" in late["text"]  # the message has no buttons now
    late = await (await fake.press_raw(boris, GROUP, 10**6, data("Вера", 0))).answer()
    assert "закрыто" in late["text"]
    # Authority counts exactly the accepted gestures; wins count for nothing.
    await fake.send_text(anna, GROUP, "/authority")
    await fake.wait_for(lambda: "Авторитет" in fake.sent_texts(GROUP)[-1])
    board = fake.sent_texts(GROUP)[-1]
    assert "Анна — ★2" in board and "Борис — ★2" in board and "Вера — ★0" in board
    con = sqlite3.connect(db)
    assert con.execute("SELECT COUNT(*) FROM gestures").fetchone()[0] == 4
    con.close()
    await fake.send_text(anna, GROUP, "/profile")
    await fake.wait_for(lambda: "Авторитет: 2" in fake.sent_texts(GROUP)[-1])


async def test_forget_me_leaves_no_personal_data(env) -> None:
    fake, clock, db = env
    uid, name = 987_654_321, "Зинаида-Уникальная"
    zina, boris = fake.add_user(uid, name, username="zina_unique"), fake.add_user(822, "Борис")
    fake.add_group(GROUP, "Клуб", members=[zina, boris], admins=[zina])
    for u in (zina, boris):
        await fake.start_bot(u)
    await play_game(fake, [zina, boris])
    msg = await fake.wait_for(lambda: afterword(fake))
    game = msg.buttons()[0].value.split(":")[1]
    await (await fake.press_raw(boris, GROUP, msg.message_id, f"g:{game}:0:0")).answer()
    await (await fake.press_raw(zina, GROUP, msg.message_id, f"g:{game}:2:0")).answer()
    clock.advance(91)
    await fake.wait_idle(quiet=0.1)

    await fake.send_text(zina, zina.id, "/forget_me")
    confirm = await fake.wait_for(
        lambda: next(
            (m for m in fake.chat_messages(zina.id) if m.buttons() and "Удалить" in m.text), None
        )
    )
    await (await fake.press_button(zina, confirm, text_contains="Да")).answer()
    await fake.wait_for(lambda: "данные удалены" in fake.message(zina.id, confirm.message_id).text)
    await fake.wait_idle(quiet=0.1)

    con = sqlite3.connect(db)
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
