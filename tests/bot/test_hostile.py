"""A hostile member of the group: forged buttons, racing commands, reading other
groups' tables, and what ``/forget_me`` must leave behind (nothing)."""

from __future__ import annotations

import html
import json
import logging
import sqlite3
from pathlib import Path

import pytest
from fake_telegram import FakeTelegram, FakeUser
from harness import InProcessBot, MakeBot, Table, move_buttons, open_table, play_moves

from bot.clock import FakeClock
from bot.config import Settings
from bot.outbox import enqueue_send
from bot.outbox.sender import Outbox
from bot.services.afterword import AFTERWORD_SECONDS
from bot.services.club import name_forms
from bot.storage import repo_privacy

GROUP = -1007001
OTHER_GROUP = -1007002


async def started(fake: FakeTelegram, group: int, *people: FakeUser) -> Table:
    """A table in ``group`` with the first person North, the second South, started."""
    table = await open_table(fake, group, people)
    await fake.wait_idle(quiet=0.05)
    return table


def db_rows(db: Path, sql: str, args: tuple = ()) -> list[tuple]:
    con = sqlite3.connect(db)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


def snapshot(fake: FakeTelegram, chat_id: int, message_id: int) -> tuple[str, list[str | None]]:
    m = fake.message(chat_id, message_id)
    return m.text, [b.value for b in m.buttons()]


# ---------------------------------------------------------------- forged buttons


async def test_a_forged_forget_confirmation_defaces_nothing(
    fake: FakeTelegram, clocked_bot: InProcessBot, db_path: Path
) -> None:
    """``f:0``/``f:1`` belong to the /forget_me question in one's own private
    chat: sent on the group's table message they change nothing and erase nobody."""
    anna, boris, troll = (
        fake.add_user(301, "Анна"),
        fake.add_user(302, "Борис"),
        fake.add_user(303, "Тролль"),
    )
    fake.add_group(GROUP, "Группа", members=[anna, boris, troll], admins=[anna])
    for u in (anna, boris, troll):
        await fake.start_bot(u)
    table = await started(fake, GROUP, anna, boris)
    message = table.table_message()
    before = snapshot(fake, GROUP, message.message_id)
    for who in (troll, anna):
        for data in ("f:0", "f:1"):
            answer = await (await fake.press_raw(who, GROUP, message.message_id, data)).answer()
            assert "устарела" in (answer["text"] or "")
    # Also a button of another kind that is not on this message.
    _, hand = table.actionable()[0]
    forged = move_buttons(hand)[0]
    answer = await (await fake.press_raw(troll, GROUP, message.message_id, forged)).answer()
    assert "устарела" in (answer["text"] or "")
    await fake.wait_idle(quiet=0.1)
    assert snapshot(fake, GROUP, message.message_id) == before
    users = {r[0] for r in db_rows(db_path, "SELECT user_id FROM users")}
    assert {301, 302, 303} <= users


async def test_the_forget_question_in_another_private_chat_is_refused(
    fake: FakeTelegram, clocked_bot: InProcessBot, db_path: Path
) -> None:
    """A private message of the bot with a button, pressed with ``f:1`` data: the
    button is not on that message, nothing is erased."""
    anna = fake.add_user(311, "Анна")
    await fake.start_bot(anna)
    welcome = await fake.wait_for(lambda: fake.last_message(anna.id))
    answer = await (await fake.press_raw(anna, anna.id, welcome.message_id, "f:1")).answer()
    assert "устарела" in (answer["text"] or "")
    await fake.wait_idle(quiet=0.1)
    assert db_rows(db_path, "SELECT user_id FROM users WHERE user_id=311")


async def test_only_the_creator_answers_the_cancel_question(
    fake: FakeTelegram, clocked_bot: InProcessBot, db_path: Path
) -> None:
    anna, boris, troll = (
        fake.add_user(321, "Анна"),
        fake.add_user(322, "Борис"),
        fake.add_user(323, "Тролль"),
    )
    fake.add_group(GROUP, "Группа", members=[anna, boris, troll], admins=[anna])
    for u in (anna, boris, troll):
        await fake.start_bot(u)
    await started(fake, GROUP, anna, boris)
    await fake.send_text(anna, GROUP, "/cancel")
    question = await fake.wait_for(
        lambda: next(
            (m for m in fake.chat_messages(GROUP) if "Отменить" in m.text and m.buttons()), None
        )
    )
    before = snapshot(fake, GROUP, question.message_id)
    for label in ("Нет", "Да"):
        answer = await (await fake.press_button(troll, question, text_contains=label)).answer()
        assert answer["text"]
    await fake.wait_idle(quiet=0.1)
    assert snapshot(fake, GROUP, question.message_id) == before
    assert db_rows(db_path, "SELECT status FROM tables") == [("playing",)]


# --------------------------------------------------------------- racing commands


async def test_newgame_from_many_at_the_same_moment_opens_one_table(
    fake: FakeTelegram, clocked_bot: InProcessBot, db_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    people = [fake.add_user(330 + i, f"Игрок{i}") for i in range(6)]
    fake.add_group(GROUP, "Группа", members=people, admins=people[:1])
    for u in people:
        await fake.start_bot(u)
    await fake.wait_idle(quiet=0.05)
    with caplog.at_level(logging.WARNING):
        # One getUpdates answer carries them all: the bot handles them at once.
        for u in people:
            await fake.send_text(u, GROUP, "/newgame")
        await fake.wait_idle(quiet=0.2)
    assert db_rows(db_path, "SELECT COUNT(*) FROM tables") == [(1,)]
    assert not [t for t in fake.sent_texts(GROUP) if "пошло не так" in t]
    assert "IntegrityError" not in caplog.text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


# ------------------------------------------------------- other groups' tables


async def test_a_table_is_not_described_outside_its_group(
    fake: FakeTelegram, clocked_bot: InProcessBot, db_path: Path
) -> None:
    """Lookup data with another group's table id, forged onto this group's
    message or onto one Telegram no longer shows: no seats, bids or sheet."""
    anna, boris = fake.add_user(341, "Анна-Секрет"), fake.add_user(342, "Борис-Секрет")
    spy = fake.add_user(343, "Шпион")
    fake.add_group(GROUP, "Своя", members=[anna, boris], admins=[anna])
    fake.add_group(OTHER_GROUP, "Чужая", members=[spy], admins=[spy])
    for u in (anna, boris, spy):
        await fake.start_bot(u)
    secret = await started(fake, GROUP, anna, boris)
    (table_id,) = db_rows(db_path, "SELECT table_id FROM tables WHERE chat_id=?", (GROUP,))[0]
    mine = await open_table(fake, OTHER_GROUP, [spy], start=False)
    spy_message = mine.table_message()
    private_before = len(fake.chat_messages(spy.id))
    for kind in ("info", "score", "turn", "table", "sheet"):
        data = f"q:{table_id}:{kind}"
        for message_id in (spy_message.message_id, 999_999):
            answer = await (await fake.press_raw(spy, OTHER_GROUP, message_id, data)).answer()
            text = answer["text"] or ""
            assert "Секрет" not in text and "устарела" in text, (kind, message_id, text)
    await fake.wait_idle(quiet=0.1)
    assert len(fake.chat_messages(spy.id)) == private_before
    # The group's own members still get their answers (the sheet, in private).
    button = fake.find_button(secret.table_message(), data_startswith=f"q:{table_id}:sheet")
    said = len(fake.chat_messages(anna.id))
    answer = await (
        await fake.press(anna, GROUP, secret.table_message().message_id, button.value)
    ).answer()
    assert "личный чат" in (answer["text"] or "")
    await fake.wait_for(lambda: len(fake.chat_messages(anna.id)) > said)
    assert "«Своя»" in fake.chat_messages(anna.id)[-1].text


# ------------------------------------------------------------------ pop-ups


async def test_popups_are_plain_text(fake: FakeTelegram, clocked_bot: InProcessBot) -> None:
    """A refusal naming the group (paused: the bot was removed) reads the title
    as people wrote it, with no HTML codes."""
    title = 'Fault & <test> "q"'
    anna, boris = fake.add_user(351, "Анна"), fake.add_user(352, "Борис")
    fake.add_group(GROUP, title, members=[anna, boris], admins=[anna])
    for u in (anna, boris):
        await fake.start_bot(u)
    table = await started(fake, GROUP, anna, boris)
    fake.remove_bot_from_group(GROUP)
    await fake.wait_for(lambda: any("на паузе" in m.text for m in fake.chat_messages(anna.id)))
    user, hand = table.actionable()[0]
    answer = await (
        await fake.press(user, user.id, hand.message_id, move_buttons(hand)[0])
    ).answer()
    text = answer["text"] or ""
    assert title in text, text
    assert "&amp;" not in text and "&lt;" not in text and "<b>" not in text


# --------------------------------------------------------------- forget me

TRICKY = 'Ann"a<&>belle-Louise'


def personal_traces(db: Path, uid: int, forms: set[str]) -> list[tuple[str, str, str]]:
    con = sqlite3.connect(db)
    try:
        found = []
        for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type='table'"):
            cols = [c[1] for c in con.execute(f"PRAGMA table_info({name})")]
            for row in con.execute(f"SELECT * FROM {name}"):
                for col, value in zip(cols, row, strict=True):
                    if value == uid or (
                        isinstance(value, str)
                        and (str(uid) in value or any(f in value for f in forms))
                    ):
                        found.append((name, col, str(value)[:300]))
        return found
    finally:
        con.close()


async def test_forget_me_leaves_no_trace_whatever_the_name(
    fake: FakeTelegram, clocked_bot: InProcessBot, clock: FakeClock, db_path: Path
) -> None:
    """A name with quotes and HTML characters, longer than a button label: after
    /forget_me no column holds it (in any escaping) and no answer shows it."""
    uid = 987_650_001
    anna = fake.add_user(uid, TRICKY, username="annabelle_lou")
    boris = fake.add_user(362, "Борис")
    fake.add_group(GROUP, "Клуб", members=[anna, boris], admins=[boris])
    for u in (anna, boris):
        await fake.start_bot(u)
    table = await open_table(fake, GROUP, [boris, anna], club=True)
    await fake.wait_idle(quiet=0.05)
    await play_moves(table, table.game_over)
    # The afterword is open: Boris's picker carries the name shortened.
    await fake.wait_for(lambda: any("Послесловие" in m.text for m in fake.chat_messages(boris.id)))
    await fake.wait_idle(quiet=0.1)

    await fake.send_text(anna, anna.id, "/forget_me")
    confirm = await fake.wait_for(
        lambda: next(
            (m for m in fake.chat_messages(anna.id) if m.buttons() and "Удалить" in m.text), None
        )
    )
    await (await fake.press_button(anna, confirm, text_contains="Да")).answer()
    await fake.wait_for(lambda: "данные удалены" in fake.message(anna.id, confirm.message_id).text)
    await fake.wait_idle(quiet=0.2)

    forms = {TRICKY, html.escape(TRICKY, quote=False), html.escape(TRICKY), TRICKY[:12]}
    forms |= {json.dumps(f, ensure_ascii=False)[1:-1] for f in list(forms)}
    forms |= {"annabelle_lou", 'Ann\\"a', 'Ann"a'}
    assert personal_traces(db_path, uid, forms) == []

    # What the group is shown from now on: lookups, history, the afterword.
    shown_before = len(fake.sent_texts(GROUP))
    for command in ("/history", "/sheet", "/info", "/score", "/authority"):
        await fake.send_text(boris, GROUP, command)
    await fake.wait_for(lambda: len(fake.sent_texts(GROUP)) >= shown_before + 5)
    await fake.wait_idle(quiet=0.1)
    for text in fake.sent_texts(GROUP)[shown_before:]:
        assert not any(f in text for f in forms if len(f) > 3), text
    for chat in (GROUP, boris.id):
        for m in fake.chat_messages(chat):
            if "Послесловие" in m.text:
                labels = " ".join(b.text for b in m.buttons())
                assert "Ann" not in labels and "Ann" not in m.text, (labels, m.text)
    clock.advance(AFTERWORD_SECONDS + 1)
    await fake.wait_idle(quiet=0.1)
    assert personal_traces(db_path, uid, forms) == []


async def test_forget_me_scrubs_messages_still_queued(
    fake: FakeTelegram, clocked_bot: InProcessBot, db_path: Path
) -> None:
    """Rows still waiting in the outbox go out without the name."""
    app = clocked_bot.app
    anna = fake.add_user(987_650_002, TRICKY)
    await fake.start_bot(anna)
    await fake.wait_idle(quiet=0.05)
    async with app.db.tx() as conn:
        await enqueue_send(
            conn,
            GROUP,
            f"<b>{html.escape(TRICKY, quote=False)}</b> и {TRICKY[:12]}",
            not_before=10**12,
        )
    await app.db.run_tx(repo_privacy.erase_user, anna.id, name_forms({TRICKY}, {None}), "кто-то")
    (payload,) = db_rows(db_path, "SELECT payload FROM outbox WHERE chat_id=?", (GROUP,))[0]
    text = json.loads(payload)["text"]
    assert text == "<b>кто-то</b> и кто-то"


# ------------------------------------------------------------------- floods


@pytest.mark.slow
async def test_a_flood_of_commands_is_paced_and_throttled(
    fake: FakeTelegram, make_bot: MakeBot
) -> None:
    """140 commands in a moment from one member, with the bot's own limits:
    at most 20 messages in that group, every message within Telegram's pace,
    another member still answered there, and another group's /help at once."""
    limits = Settings.model_fields
    paced = await make_bot(
        group_messages_per_minute=20,
        private_messages_per_second=1,
        global_messages_per_second=30,
        command_limit=limits["command_limit"].default,
        command_window=limits["command_window"].default,
    )
    anna, troll = fake.add_user(371, "Анна"), fake.add_user(372, "Тролль")
    vera = fake.add_user(373, "Вера")
    fake.add_group(GROUP, "Группа", members=[anna, troll], admins=[anna])
    fake.add_group(GROUP - 1, "Другая группа", members=[vera], admins=[vera])
    for u in (anna, troll):
        await fake.start_bot(u)
    await fake.send_text(anna, GROUP, "/newgame")
    await fake.wait_for(lambda: fake.chat_messages(GROUP), timeout=30)
    await fake.wait_idle(quiet=0.3)
    before = len(fake.sent_texts(GROUP))
    flood_at = len(fake.calls)
    for i in range(140):
        await fake.send_text(troll, GROUP, ("/newgame", "/help", "/rules", "/history")[i % 4])
    elsewhere = await fake.send_text(vera, GROUP - 1, "/help")
    await fake.wait_for(
        lambda: any(
            m.reply_to is not None and m.reply_to.message_id == elsewhere["message_id"]
            for m in fake.chat_messages(GROUP - 1)
        ),
        timeout=30,
    )
    # At once: not queued behind the flood. Before her answer the flooded
    # group got at most its burst (what it may send without waiting for its
    # pace of one message in 3 s); the paced rest of its answers came after.
    # (An order, not a time: a loaded machine takes over a second to handle
    # the 141 updates before hers.)
    calls = fake.calls[flood_at:]
    answered = next(
        i for i, c in enumerate(calls) if c.chat_id == GROUP - 1 and c.method == "sendMessage"
    )
    before_hers = [
        c.method
        for c in calls[:answered]
        if c.chat_id == GROUP and c.method.startswith(("send", "edit", "delete"))
    ]
    assert len(before_hers) <= Outbox.group_burst, before_hers
    asked = await fake.send_text(anna, GROUP, "/score")
    await fake.wait_for(
        lambda: any(
            m.reply_to is not None and m.reply_to.message_id == asked["message_id"]
            for m in fake.chat_messages(GROUP)
        ),
        timeout=120,
    )
    await fake.wait_idle(quiet=1.0, timeout=120)
    await paced.stop()
    new = len(fake.sent_texts(GROUP)) - before
    assert new <= 20, fake.sent_texts(GROUP)[before:]
    assert fake.limit_violations() == []
