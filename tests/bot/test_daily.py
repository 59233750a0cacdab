"""Daily games with a fake clock: reminders, timeouts, the seat handed over and
taken back, a restart during a deadline, one player at two tables."""

from __future__ import annotations

import asyncio
import sqlite3
import time

import pytest
from fake_telegram import FakeTelegram
from harness import MakeBot, Table, move_buttons, open_table

from bot.clock import FakeClock

HOUR = 3600.0
GROUP_A, GROUP_B = -1002001, -1002002


async def open_daily_table(
    fake: FakeTelegram, group: int, title: str, users, seats=("Юг",)
) -> Table:
    table = await open_table(fake, group, users, seats=seats, title=title, daily=True)
    await fake.wait_for(lambda: "Сдача 1" in table.table_message().text)
    return table


async def play_until_deadline_of(fake: FakeTelegram, table: Table, user, db, seat, after) -> None:
    """``user`` moves whenever it is their turn until ``seat``'s deadline (due
    after ``after``) is set: waiting for either, not for a count of quiet spells
    (the computers' moves can take longer than that on a loaded machine)."""

    def set_() -> bool:
        d = deadline_of(db)
        return d is not None and d[0] == seat and d[1] > after

    while not set_():
        await fake.wait_for(
            lambda: set_() or turn_message(table, user) is not None,
            timeout=30,
            message=f"{user.first_name}'s turn or seat {seat}'s deadline",
        )
        await play_own_turns(fake, table, user, set_)


def turn_message(table: Table, user):
    for u, msg in table.actionable():
        if u.id == user.id and move_buttons(msg):
            return msg
    return None


async def play_own_turns(fake: FakeTelegram, table: Table, user, until) -> None:
    """``user`` moves whenever it is their turn, until ``until()`` holds."""
    for _ in range(200):
        await fake.wait_idle(quiet=0.03)
        if until():
            return
        msg = turn_message(table, user)
        if msg is None:
            return
        moves = move_buttons(msg)
        bids = [m for m in moves if 52 <= int(m.split(":")[3]) < 70]
        await (await fake.press(user, user.id, msg.message_id, (bids or moves)[0])).answer()
    raise AssertionError("too many moves")


def heartbeat(db) -> str | None:
    con = sqlite3.connect(db)
    try:
        row = con.execute("SELECT value FROM meta WHERE key='heartbeat_at'").fetchone()
        return row[0] if row else None
    finally:
        con.close()


def deadline_of(db) -> tuple[int, float] | None:
    con = sqlite3.connect(db)
    try:
        row = con.execute("SELECT seat, due_at FROM deadlines").fetchone()
        return row
    finally:
        con.close()


async def test_missed_deadlines_reminders_takeover_and_return(
    fake, db_path, clock: FakeClock, clocked_bot
) -> None:
    db = db_path
    anna, boris = fake.add_user(601, "Анна"), fake.add_user(602, "Борис")
    for u in (anna, boris):
        await fake.start_bot(u)
    table = await open_daily_table(fake, GROUP_A, "Часовые пояса", [anna, boris])
    group_before = len(fake.sent_texts(GROUP_A))

    def reminders_sent() -> int:
        return sum(t.startswith("⏰ Ваш ход") for t in fake.sent_texts(boris.id))

    last_due = 0.0
    for missed in (1, 2, 3):
        # Anna plays when it is her turn; Boris sleeps.
        await play_until_deadline_of(fake, table, anna, db, 2, last_due)
        seat, last_due = deadline_of(db)
        assert seat == 2
        await fake.wait_for(lambda: "до завтра" in table.table_message().text)
        reminders = reminders_sent()
        clock.advance(12 * HOUR + 1)  # half time
        await fake.wait_for(lambda r=reminders: reminders_sent() == r + 1)
        assert "осталось 12 ч" in fake.sent_texts(boris.id)[-1]
        clock.advance(11 * HOUR)  # an hour before the end
        await fake.wait_for(lambda r=reminders: reminders_sent() == r + 2)
        assert "осталось 1 ч" in fake.sent_texts(boris.id)[-1]
        clock.advance(HOUR)  # the deadline
        await fake.wait_for(
            lambda m=missed: sum("время вышло" in t for t in fake.sent_texts(GROUP_A)) == m
        )
    await fake.wait_for(lambda: any("третий раз подряд" in t for t in fake.sent_texts(GROUP_A)))
    back = await fake.wait_for(
        lambda: next(
            (m for m in fake.chat_messages(boris.id) if "Вернуться" in str(m.buttons())), None
        )
    )
    await fake.wait_for(lambda: "играет компьютер" in table.table_message().text)
    # While he is away his seat moves without waiting for any deadline.
    moves = {"n": 0}

    def counted() -> bool:
        moves["n"] += 1
        return moves["n"] > 4

    await play_own_turns(fake, table, anna, counted)
    assert deadline_of(db) is None or deadline_of(db)[0] != 2
    # One button and he is back; his hand comes again.
    answer = await (await fake.press_button(boris, back, text_contains="Вернуться")).answer()
    assert answer["text"] is None
    await fake.wait_for(lambda: any("снова за столом" in t for t in fake.sent_texts(GROUP_A)))
    await fake.wait_for(lambda: "играет компьютер" not in table.table_message().text)
    # Timeout notes are short and few: one line per missed move.
    notes = fake.sent_texts(GROUP_A)[group_before:]
    assert sum("время вышло" in t for t in notes) == 3


async def test_restart_during_a_deadline_does_not_charge_the_downtime(
    fake, db_path, clock: FakeClock, make_bot: MakeBot
) -> None:
    db = db_path
    bot = await make_bot(clock=clock)
    anna, boris = fake.add_user(611, "Анна"), fake.add_user(612, "Борис")
    for u in (anna, boris):
        await fake.start_bot(u)
    table = await open_daily_table(fake, GROUP_A, "Перезапуск", [anna, boris])
    await play_until_deadline_of(fake, table, anna, db, 2, 0.0)
    seat, due = deadline_of(db)
    assert seat == 2
    await bot.stop()

    clock.advance(10 * HOUR)  # the bot is down for ten hours
    await make_bot(clock=clock)
    await fake.wait_idle(quiet=0.1)
    seat2, due2 = deadline_of(db)
    assert seat2 == seat and due2 == pytest.approx(due + 10 * HOUR, abs=1)
    timeouts = sum("время вышло" in t for t in fake.sent_texts(GROUP_A))
    clock.advance(23 * HOUR)  # 33 h after the move began, 23 h of it counted
    await fake.wait_idle(quiet=0.1)
    assert sum("время вышло" in t for t in fake.sent_texts(GROUP_A)) == timeouts
    clock.advance(1.5 * HOUR)
    await fake.wait_for(
        lambda: sum("время вышло" in t for t in fake.sent_texts(GROUP_A)) == timeouts + 1
    )


@pytest.mark.slow
async def test_a_crash_credits_exactly_the_time_the_bot_was_down(
    fake, bot_process, db_path
) -> None:
    """``kill -9`` well after the bot's last regular beat (it beat every 15 s,
    and a 6 s restart was credited 19 s): what is credited is the downtime,
    to the second."""
    db = db_path
    bot = await bot_process()
    anna = fake.add_user(631, "Анна")
    await fake.start_bot(anna)
    await open_daily_table(fake, GROUP_A, "Авария", [anna])
    await fake.wait_for(lambda: deadline_of(db) is not None, timeout=30)
    _, due = deadline_of(db)
    # Ten seconds after a beat (the old beat came every 15 s).
    first = heartbeat(db)
    await fake.wait_for(lambda: heartbeat(db) != first, timeout=30)
    await asyncio.sleep(10)
    killed = time.time()
    bot.kill()
    await asyncio.sleep(6)
    restarted = time.time()
    bot = await bot_process.again(bot)
    ready = time.time()
    await fake.wait_for(lambda: deadline_of(db)[1] != due, timeout=30)
    credited = deadline_of(db)[1] - due
    # The beat before the kill is at most a second old.
    assert restarted - killed - 0.1 <= credited <= ready - killed + 1.5, (
        credited,
        restarted - killed,
        ready - killed,
    )


async def test_one_player_at_two_tables_in_two_groups(fake, running_bot) -> None:
    anna = fake.add_user(621, "Анна")
    await fake.start_bot(anna)
    fake.add_group(GROUP_A, "Работа", members=[anna], admins=[anna])
    fake.add_group(GROUP_B, "Дача", members=[anna], admins=[anna])
    tables = {}
    for group in (GROUP_A, GROUP_B):
        t = await open_table(fake, group, [anna])
        await fake.wait_for(lambda t=t: "Сдача 1" in t.table_message().text)
        tables[group] = t

    def turn_at(title: str):
        """Her hand at the table of the group ``title`` with its move buttons."""
        return next(
            (
                m
                for m in reversed(fake.chat_messages(anna.id))
                if title in m.text and move_buttons(m)
            ),
            None,
        )

    # Both tables come to her turn (on a loaded machine later than a quiet spell).
    await fake.wait_for(lambda: turn_at("Работа") and turn_at("Дача"), message="her turns")
    await fake.wait_idle(quiet=0.1)
    hands = [m for m in fake.chat_messages(anna.id) if "Сдача" in m.text]
    assert any("Работа" in m.text for m in hands) and any("Дача" in m.text for m in hands)
    # A move on the «Дача» message acts on that table only.
    msg = turn_at("Дача")
    assert msg is not None
    before_a = tables[GROUP_A].table_message().text
    await (await fake.press(anna, anna.id, msg.message_id, move_buttons(msg)[0])).answer()
    await fake.wait_for(lambda: "Анна …" not in tables[GROUP_B].table_message().text)
    await fake.wait_idle(quiet=0.1)
    assert tables[GROUP_A].table_message().text == before_a
    await fake.send_text(anna, anna.id, "/score")
    await fake.wait_for(lambda: "«Работа»" in fake.sent_texts(anna.id)[-1])
    assert "«Дача»" in fake.sent_texts(anna.id)[-1]
