"""The hand record: its text for a known seeded hand, and through the fake Bot
API as people use it — the «📜 Запись сдачи» under a hand's result, ``/hand N``
in the group, a hand in play refused, forged presses, a press sent once."""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
from functools import partial
from pathlib import Path

import pytest
from bot_processes import BotProcesses
from fake_telegram import FakeMessage, FakeTelegram, FakeUser
from harness import MakeBot, Table, open_table, play_moves, press_label

from bot.i18n import Texts, make_core
from bot.model import LiveTable, TableStatus
from bot.views.common import cards_line
from bot.views.record import record_text
from bot.views.results import hand_result
from engine import Game, Rules
from engine.cards import card_label
from engine.record import HandRecord, hand_record

GROUP = -1005353
NAMES = ["Анна", "Борис", "🤖 Юг", "🤖 Запад"]


def _tr() -> partial[str]:
    core = make_core("ru")
    asyncio.run(core.startup())
    return partial(Texts(core), "ru")


def _first_hand(seed: int) -> Game:
    """Seed ``seed``, everyone bidding 3 and playing their lowest legal card."""
    g = Game(Rules(), seed)
    while not g.sheet:
        legal = g.legal_actions()
        bids = [a for a in legal if a == 55]
        g.apply_action(bids[0] if bids else legal[0])
    return g


def test_the_record_of_a_seeded_hand() -> None:
    tr = _tr()
    g = _first_hand(31337)
    live = LiveTable(
        table_id=3,
        chat_id=GROUP,
        chat_title="Пики <по> пятницам",
        creator_id=1,
        status=TableStatus.PLAYING,
        rules=g.rules,
        lang="ru",
        seats=[1, 2, None, None],
        names={1: "Анна", 2: "Борис"},
        game_id=7,
        game=g,
    )
    rec = hand_record(g, 0)
    text = record_text(tr, live, rec)
    lines = text.split("\n")
    dealer = NAMES[rec.dealer]
    assert lines[0] == (f"📜 <b>Сдача 1</b> · сдаёт {dealer} · «Пики &lt;по&gt; пятницам»")
    assert lines[2] == "<b>Карты при раздаче</b>"
    for seat in range(4):
        assert lines[3 + seat] == f"{NAMES[seat]}: {cards_line(Game(Rules(), 31337).dealt[seat])}"
    order = [(rec.dealer + 1 + i) % 4 for i in range(4)]
    assert lines[8] == "<b>Заявки:</b> " + " · ".join(f"{NAMES[s]} 3" for s in order)
    assert lines[10] == "<b>Взятки</b>"
    tricks = lines[11:24]
    plays = g.actions[4:56]
    leader = order[0]
    for k, line in enumerate(tricks):
        cards = plays[4 * k : 4 * k + 4]
        seats = [(leader + i) % 4 for i in range(4)]
        winner = rec.tricks[k].winner
        shown = " · ".join(f"{NAMES[s]} {card_label(c)}" for s, c in zip(seats, cards, strict=True))
        assert line == f"{k + 1}. {shown} → {NAMES[winner]}"
        leader = winner
    # The score as the group's result told it (without its title and last trick).
    result = hand_result(tr, live, g.sheet[0]).split("\n")[1:]
    assert lines[25:] == result
    # Phone-sized, forwardable: no monospace block, well under Telegram's 4096.
    assert "<pre>" not in text and "<code>" not in text and len(text) < 2000


@pytest.mark.parametrize(
    ("count", "text"),
    [
        (1, "В этой партии сыграна 1 сдача: напишите /hand 1."),
        (2, "В этой партии сыграно 2 сдачи: напишите номер от 1 до 2."),
        (5, "В этой партии сыграно 5 сдач: напишите номер от 1 до 5."),
        (21, "В этой партии сыграна 21 сдача: напишите номер от 1 до 21."),
    ],
)
def test_hands_counted_in_russian(count: int, text: str) -> None:
    assert _tr()("record-out-of-range", count=count) == text


def _game(db: Path) -> Game:
    con = sqlite3.connect(db)
    try:
        seed, rules, dealer = con.execute(
            "SELECT seed, rules_json, first_dealer FROM games ORDER BY game_id DESC"
        ).fetchone()
        actions = [a for (a,) in con.execute("SELECT action FROM actions ORDER BY seq")]
    finally:
        con.close()
    return Game.replay(Rules.from_json(json.loads(rules)), seed, actions, dealer)


def _result(fake: FakeTelegram, hand: int) -> FakeMessage | None:
    for m in fake.chat_messages(GROUP):
        if f"Сдача {hand} сыграна" in m.text:
            return m
    return None


def _records(fake: FakeTelegram, user: FakeUser) -> list[FakeMessage]:
    return [m for m in fake.chat_messages(user.id) if "Карты при раздаче" in m.text]


def _check_record(message: FakeMessage, rec: HandRecord) -> None:
    """The private record holds the hand as dealt and every trick as played."""
    lines = message.text.split("\n")
    assert lines[0].startswith(f"📜 Сдача {rec.hand_no + 1} · сдаёт {NAMES[rec.dealer]}")
    for seat in range(4):
        assert f"{NAMES[seat]}: {cards_line(rec.dealt[seat])}" in lines
    tricks = [line for line in lines if re.match(r"^\d+\. ", line)]
    assert len(tricks) == 13
    for k, trick in enumerate(rec.tricks):
        shown = " · ".join(f"{NAMES[s]} {card_label(c)}" for s, c in trick.cards)
        assert tricks[k] == f"{k + 1}. {shown} → {NAMES[trick.winner]}"


async def _first_hand_played(fake: FakeTelegram, table: Table) -> FakeMessage:
    await play_moves(table, until=lambda: _result(fake, 1) is not None)
    found = _result(fake, 1)
    assert found is not None
    return found


async def _reply(fake: FakeTelegram, user: FakeUser, text: str) -> str:
    """``user`` writes ``text`` in the group; the bot's reply to it."""
    sent = await fake.send_text(user, GROUP, text)
    found: list[FakeMessage] = []

    def replied() -> bool:
        found[:] = [
            m
            for m in fake.chat_messages(GROUP)
            if m.reply_to is not None and m.reply_to.message_id == sent["message_id"]
        ]
        return bool(found)

    await fake.wait_for(replied, message=f"the reply to {text}")
    return found[0].text


async def test_the_button_sends_the_record_privately_once(
    fake: FakeTelegram, make_bot: MakeBot, db_path: Path
) -> None:
    bot = await make_bot()
    anna, boris = fake.add_user(701, "Анна"), fake.add_user(702, "Борис")
    cyril, dima = fake.add_user(703, "Кирилл"), fake.add_user(704, "Дмитрий")
    table = await open_table(fake, GROUP, [anna, boris], seats=["Восток"], others=[cyril])
    result = await _first_hand_played(fake, table)
    button = fake.find_button(result, text_contains="📜 Запись сдачи")
    assert button.value is not None and re.fullmatch(r"hr:\d+:1", button.value)
    group_before = fake.sent_texts(GROUP)
    # Кирилл watches the group, not seated: the record comes to his private chat.
    press = await fake.press(cyril, GROUP, result.message_id, button.value)
    assert (await press.answer())["text"] == "Запись сдачи отправлена вам в личный чат."
    await fake.wait_for(lambda: len(_records(fake, cyril)) == 1, message="the record")
    rec = hand_record(_game(db_path), 0)
    _check_record(_records(fake, cyril)[0], rec)
    # Again at once: told, and nothing sent twice.
    press = await fake.press(cyril, GROUP, result.message_id, button.value)
    assert (await press.answer())["text"] == ("Запись этой сдачи уже отправлена вам в личный чат.")
    # A member who never opened the bot is told how.
    fake.add_member(GROUP, dima)
    press = await fake.press(dima, GROUP, result.message_id, button.value)
    assert "нажмите «Запустить»" in (await press.answer())["text"]
    # Forged: another hand, another table, on the same message.
    table_id = int(button.value.split(":")[1])
    for forged in (f"hr:{table_id}:2", f"hr:{table_id + 1}:1", f"hr:{table_id}:0", "hr:x:1"):
        press = await fake.press_raw(cyril, GROUP, result.message_id, forged)
        assert (await press.answer())["text"] == "Эта кнопка устарела."
    await fake.wait_idle(quiet=0.1)
    assert len(_records(fake, cyril)) == 1
    assert not _records(fake, dima)
    # Nothing of the hand went to the group.
    for text in fake.sent_texts(GROUP)[len(group_before) :]:
        assert "Карты при раздаче" not in text
    # The press is remembered across a restart: a second press is still once.
    await bot.stop()
    await make_bot()
    press = await fake.press(cyril, GROUP, result.message_id, button.value)
    assert (await press.answer(timeout=15))["text"] == (
        "Запись этой сдачи уже отправлена вам в личный чат."
    )
    await fake.wait_idle(quiet=0.1)
    assert len(_records(fake, cyril)) == 1


async def test_hand_n_in_the_group(fake: FakeTelegram, make_bot: MakeBot, db_path: Path) -> None:
    await make_bot()
    anna, boris = fake.add_user(711, "Анна"), fake.add_user(712, "Борис")
    table = await open_table(fake, GROUP, [anna, boris], seats=["Восток"])
    await _first_hand_played(fake, table)
    assert await _reply(fake, boris, "/hand 1") == "Запись сдачи отправлена вам в личный чат."
    await fake.wait_for(lambda: len(_records(fake, boris)) == 1, message="the record")
    _check_record(_records(fake, boris)[0], hand_record(_game(db_path), 0))
    # The hand in play: refused, and no card of it anywhere.
    game = _game(db_path)
    assert not game.finished and game.hand_no == 1
    assert await _reply(fake, anna, "/hand 2") == (
        "Эта сдача ещё играется: запись будет, когда она закончится."
    )
    assert await _reply(fake, anna, "/hand 7") == (
        "В этой партии сыграна 1 сдача: напишите /hand 1."
    )
    for bad in ("/hand", "/hand abc", "/hand -1", "/hand 99999999999999999999", "/hand 0"):
        answer = await _reply(fake, anna, bad)
        assert answer in (
            "Напишите номер сдачи, например: /hand 1",
            "В этой партии сыграна 1 сдача: напишите /hand 1.",
        ), (bad, answer)
    await fake.wait_idle(quiet=0.1)
    assert not _records(fake, anna)
    for text in fake.sent_texts(GROUP):
        assert "Карты при раздаче" not in text
    # In the private chat: where to ask.
    await fake.send_text(anna, anna.id, "/hand 1")
    await fake.wait_for(
        lambda: any("работает в группе" in m.text for m in fake.chat_messages(anna.id)),
        message="told to ask in the group",
    )
    assert not _records(fake, anna)
    # Cancelled, the game is still the group's last: its finished hands are
    # there, and the one cut short will never be.
    await fake.send_text(anna, GROUP, "/cancel")
    await fake.wait_for(lambda: "Отменить игру" in fake.last_message(GROUP).text)
    await press_label(fake, anna, fake.last_message(GROUP), "Да")
    await fake.wait_for(lambda: "игра отменена" in table.table_message().text)
    assert await _reply(fake, anna, "/hand 1") == "Запись сдачи отправлена вам в личный чат."
    await fake.wait_for(lambda: len(_records(fake, anna)) == 1, message="the record")
    _check_record(_records(fake, anna)[0], hand_record(_game(db_path), 0))
    assert await _reply(fake, anna, "/hand 2") == (
        "В этой партии сыграна 1 сдача: напишите /hand 1."
    )


async def test_long_names_keep_the_record_within_telegrams_limit(
    fake: FakeTelegram, make_bot: MakeBot, db_path: Path
) -> None:
    """Four players with 64-character names (Telegram's longest) and a long
    group title: the record still fits one message (4096 characters), each
    name cut to 16 with «…», and whole everywhere else."""
    await make_bot()
    names = [(first + "я" * 64)[:64] for first in ("Анна", "Борис", "Вера", "Глеб")]
    users = [fake.add_user(731 + i, name) for i, name in enumerate(names)]
    title = ("Пики & <по> пятницам " * 7)[:128]
    table = await open_table(
        fake, GROUP, users, seats=["Восток", "Юг", "Запад"], title=title, timeout=60
    )
    await _first_hand_played(fake, table)
    assert await _reply(fake, users[1], "/hand 1") == "Запись сдачи отправлена вам в личный чат."
    await fake.wait_for(lambda: len(_records(fake, users[1])) == 1, message="the record")
    text = _records(fake, users[1])[0].text
    assert len(text) <= 4096 and len(text.encode("utf-16-le")) // 2 <= 4096
    short = [name[:15] + "…" for name in names]
    rec = hand_record(_game(db_path), 0)
    lines = text.split("\n")
    assert lines[0] == f"📜 Сдача 1 · сдаёт {short[rec.dealer]} · «{title}»"
    for seat in range(4):
        assert f"{short[seat]}: {cards_line(rec.dealt[seat])}" in lines
    tricks = [line for line in lines if re.match(r"^\d+\. ", line)]
    assert len(tricks) == 13
    for k, trick in enumerate(rec.tricks):
        shown = " · ".join(f"{short[s]} {card_label(c)}" for s, c in trick.cards)
        assert tricks[k] == f"{k + 1}. {shown} → {short[trick.winner]}"
    assert not any(name in text for name in names)


async def test_hand_n_before_any_game(fake: FakeTelegram, make_bot: MakeBot) -> None:
    await make_bot()
    anna = fake.add_user(721, "Анна")
    fake.add_group(GROUP, "Пики", members=[anna], admins=[anna])
    await fake.start_bot(anna)
    answer = await _reply(fake, anna, "/hand 1")
    assert answer.startswith("В этой группе ещё не было игры")


async def test_a_press_answered_survives_kill_9(
    fake: FakeTelegram, bot_process: BotProcesses, db_path: Path
) -> None:
    """The press's answer comes after its record is committed with its
    message: a bot killed right then still sends the record after its
    restart; and a record sent is remembered, so a press again after a
    kill -9 is told it was sent, and nothing more is sent."""
    proc = await bot_process()
    anna, boris = fake.add_user(731, "Анна"), fake.add_user(732, "Борис")
    table = await open_table(fake, GROUP, [anna, boris], seats=["Восток"])
    result = await _first_hand_played(fake, table)
    button = fake.find_button(result, text_contains="📜 Запись сдачи")
    assert button.value is not None
    # Борис's record goes out before the kill.
    press = await fake.press(boris, GROUP, result.message_id, button.value)
    assert (await press.answer(timeout=15))["text"] == ("Запись сдачи отправлена вам в личный чат.")
    await fake.wait_for(lambda: len(_records(fake, boris)) == 1, message="the record")
    await fake.wait_idle(quiet=0.3)
    # Анна's is answered, and the bot killed at once.
    press = await fake.press(anna, GROUP, result.message_id, button.value)
    assert (await press.answer(timeout=15))["text"] == ("Запись сдачи отправлена вам в личный чат.")
    proc.kill()
    proc.stop()
    proc = await bot_process.again(proc)
    # (A message sent just before the kill, not yet marked sent, may go
    # out again: the outbox's at-least-once, as for every message.)
    await fake.wait_for(lambda: _records(fake, anna), timeout=15, message="Анна's record")
    press = await fake.press(boris, GROUP, result.message_id, button.value)
    assert (await press.answer(timeout=15))["text"] == (
        "Запись этой сдачи уже отправлена вам в личный чат."
    )
    await fake.wait_idle(quiet=0.2)
    assert len(_records(fake, boris)) == 1
    _check_record(_records(fake, boris)[0], hand_record(_game(db_path), 0))
    _check_record(_records(fake, anna)[0], hand_record(_game(db_path), 0))
