"""Teaching as people meet it: the table option «Подсказки», the 💡 in the hand
with the master's choice in a pop-up, the count in the results, and /review."""

from __future__ import annotations

import re

import pytest
from fake_telegram import FakeMessage, FakeTelegram, FakeUser
from fluent.runtime import FluentBundle, FluentResource
from harness import InProcessBot, MakeBot, Table, action_of, move_buttons, open_table, play_moves

from bot.i18n import LOCALES_DIR, SUPPORTED
from engine.ai import REASONS

GROUP = -1008301
BLIND = 70


def said(lang: str, key: str) -> str:
    bundle = FluentBundle([lang], use_isolating=False)
    for path in sorted((LOCALES_DIR / lang).glob("*.ftl")):
        bundle.add_resource(FluentResource(path.read_text(encoding="utf-8")))
    pattern = bundle.get_message(key).value
    assert pattern is not None, key
    text, errors = bundle.format_pattern(pattern, {})
    assert not errors, errors
    return str(text)


@pytest.fixture(scope="module")
def reasons_ru() -> list[str]:
    return [said("ru", f"teach-reason-{key}") for key in REASONS]


async def lesson(fake: FakeTelegram, users: list[FakeUser]) -> Table:
    """``users[0]`` opens a table in the group; the others sit down too."""
    return await open_table(fake, GROUP, users, start=False, title="Уроки")


async def settings(fake: FakeTelegram, table: Table, creator: FakeUser) -> None:
    await (
        await fake.press_button(creator, table.table_message(), text_contains="Настройки")
    ).answer()
    await fake.wait_for(lambda: "Настройки стола" in table.table_message().text)


async def done_and_start(fake: FakeTelegram, table: Table, creator: FakeUser) -> None:
    await (await fake.press_button(creator, table.table_message(), text_contains="Готово")).answer()
    await fake.wait_for(lambda: "Начать" in str(table.table_message().buttons()))
    await (await fake.press_button(creator, table.table_message(), text_contains="Начать")).answer()
    await fake.wait_for(lambda: "Сдача 1" in table.table_message().text)


async def turn_on_hints(fake: FakeTelegram, table: Table, creator: FakeUser) -> None:
    await settings(fake, table, creator)
    await (
        await fake.press_button(creator, table.table_message(), text_contains="Подсказки")
    ).answer()
    await fake.wait_for(lambda: "Подсказки мастера: да" in str(table.table_message().buttons()))


def hint_button(message: FakeMessage) -> str | None:
    return next((b.value for b in message.buttons() if (b.value or "").startswith("i:")), None)


async def my_turn(fake: FakeTelegram, table: Table, user: FakeUser) -> FakeMessage:
    """The user's hand once it is their move; the other people at the table
    play theirs meanwhile (the first move that offers cards to play or bids)."""

    def mine() -> FakeMessage | None:
        return next((m for u, m in table.actionable() if u.id == user.id and move_buttons(m)), None)

    def others(who: FakeUser, msg: FakeMessage, moves: list[str], looks: list[str]) -> str | None:
        if who.id == user.id:
            return None
        return looks[0] if looks else moves[-1] if moves else None

    await fake.wait_idle(quiet=0.05)  # a move just pressed shows in the hand first
    await play_moves(table, lambda: mine() is not None, choose=others)
    hand = mine()
    assert hand is not None
    return hand


async def popup(fake: FakeTelegram, user: FakeUser, chat: int, message: int, data: str) -> str:
    answered = await (await fake.press_raw(user, chat, message, data)).answer(timeout=30)
    return str(answered["text"] or "")


def named_move(text: str, hand: FakeMessage) -> str:
    """The move a pop-up names, checked to be one of the hand's move buttons."""
    m = re.match(r"💡 Мастер (?:сыграл|заявил|отдал) бы (\S+): .+", text)
    assert m, text
    labels = {b.text.lower() for b in hand.buttons() if (b.value or "").startswith("m:")}
    assert m[1].lower() in labels, (text, labels)
    return m[1]


def hint_line(texts: list[str]) -> str | None:
    return next(
        (line for t in texts for line in t.splitlines() if "Подсказок за игру" in line), None
    )


async def test_only_the_creator_turns_hints_on_and_the_table_says_so(
    fake: FakeTelegram, running_bot: InProcessBot
) -> None:
    anna, boris = fake.add_user(831, "Анна"), fake.add_user(832, "Борис")
    table = await lesson(fake, [anna, boris])
    assert "Подсказки мастера выключены" in table.table_message().text
    await settings(fake, table, anna)
    assert "Подсказки мастера: нет" in str(table.table_message().buttons())
    refused = await (
        await fake.press_button(boris, table.table_message(), text_contains="Подсказки")
    ).answer()
    assert refused["text"] == "Это может сделать только создатель стола."
    await (await fake.press_button(anna, table.table_message(), text_contains="Подсказки")).answer()
    await fake.wait_for(lambda: "Подсказки мастера: да" in str(table.table_message().buttons()))
    await fake.send_text(boris, GROUP, "/rules")
    await fake.wait_for(lambda: "Подсказки мастера: да" in fake.sent_texts(GROUP)[-1])
    await (await fake.press_button(anna, table.table_message(), text_contains="Готово")).answer()
    await fake.wait_for(lambda: "Подсказки мастера включены" in table.table_message().text)
    await (await fake.press_button(anna, table.table_message(), text_contains="Начать")).answer()
    await fake.wait_for(
        lambda: (
            "Сдача 1" in table.table_message().text
            and "Подсказки мастера включены" in table.table_message().text
        )
    )


async def test_the_bulb_shows_a_legal_move_with_a_reason_and_is_counted(
    fake: FakeTelegram, running_bot: InProcessBot, reasons_ru: list[str]
) -> None:
    anna, boris = fake.add_user(841, "Анна"), fake.add_user(842, "Борис")
    table = await lesson(fake, [anna, boris])
    await turn_on_hints(fake, table, anna)
    await done_and_start(fake, table, anna)
    hand = await my_turn(fake, table, anna)
    data = hint_button(hand)
    assert data is not None, hand.buttons()
    answered = await (await fake.press(anna, anna.id, hand.message_id, data)).answer(timeout=30)
    text = answered["text"]
    assert answered["show_alert"] and "<" not in text
    named_move(text, hand)
    assert text.split(": ", 1)[1] in reasons_ru, text
    # The same 💡 again: the same answer, counted once.
    assert await popup(fake, anna, anna.id, hand.message_id, data) == text

    # Refused: pressed in the group (even on a message that cannot be checked),
    # by a partner whose turn it is not, by someone who does not sit there, and
    # once the move has been made.
    assert await popup(fake, anna, GROUP, 999_999, data) == "Эта кнопка устарела."
    assert await popup(fake, boris, boris.id, 999_999, data) == "Эта кнопка устарела."
    vera = fake.add_user(843, "Вера")
    await fake.start_bot(vera)
    assert await popup(fake, vera, vera.id, 999_999, data) == "Вы не сидите за этим столом."
    moves = move_buttons(hand)
    await (await fake.press(anna, anna.id, hand.message_id, moves[-1])).answer()
    await fake.wait_for(lambda: hint_button(fake.message(anna.id, hand.message_id)) != data)
    assert await popup(fake, anna, anna.id, 999_999, data) == "Эта кнопка устарела."
    stale = await (await fake.press_raw(anna, anna.id, hand.message_id, data)).answer()
    assert stale["text"] == "Эта кнопка устарела."

    # Nobody hides it: the hand's result in the group and in private says how many.
    await play_moves(table, lambda: hint_line(fake.sent_texts(GROUP)) is not None)
    assert hint_line(fake.sent_texts(GROUP)) == "💡 Подсказок за игру: Анна 1"
    await fake.wait_idle(quiet=0.1)
    closed = [m.text for m in fake.chat_messages(anna.id) if "сыграна" in m.text]
    assert closed and hint_line(closed) == "💡 Подсказок за игру: Анна 1"


async def test_the_hint_is_thought_in_the_worker_processes(
    fake: FakeTelegram, make_bot: MakeBot
) -> None:
    """As deployed: the master searches in worker processes (the view, the hint
    and the review travel there and back)."""
    await make_bot(ai_workers=1, ai_level="master")
    anna = fake.add_user(845, "Анна")
    table = await lesson(fake, [anna])
    await turn_on_hints(fake, table, anna)
    await done_and_start(fake, table, anna)
    hand = await my_turn(fake, table, anna)
    data = hint_button(hand)
    assert data is not None
    named_move(await popup(fake, anna, anna.id, hand.message_id, data), hand)


async def test_the_count_survives_a_restart(fake: FakeTelegram, make_bot: MakeBot) -> None:
    """The count is kept in the database, not only in memory."""
    first = await make_bot()
    anna = fake.add_user(846, "Анна")
    table = await lesson(fake, [anna])
    await turn_on_hints(fake, table, anna)
    await done_and_start(fake, table, anna)
    hand = await my_turn(fake, table, anna)
    data = hint_button(hand)
    assert data is not None
    assert (await popup(fake, anna, anna.id, hand.message_id, data)).startswith("💡 Мастер")
    await first.stop()
    await make_bot()
    await play_moves(table, lambda: hint_line(fake.sent_texts(GROUP)) is not None)
    assert hint_line(fake.sent_texts(GROUP)) == "💡 Подсказок за игру: Анна 1"


async def test_the_game_results_count_the_hints(
    fake: FakeTelegram, running_bot: InProcessBot
) -> None:
    anna = fake.add_user(851, "Анна")
    table = await lesson(fake, [anna])
    # Club rules: the game ends at −200, so bidding high ends it soon.
    await (await fake.press_button(anna, table.table_message(), text_contains="Правила")).answer()
    await fake.wait_for(lambda: "«Клуб»" in table.table_message().text)
    await turn_on_hints(fake, table, anna)
    await done_and_start(fake, table, anna)
    for _ in range(2):
        hand = await my_turn(fake, table, anna)
        data = hint_button(hand)
        assert data is not None
        assert (await popup(fake, anna, anna.id, hand.message_id, data)).startswith("💡 Мастер")
        await (await fake.press(anna, anna.id, hand.message_id, move_buttons(hand)[-1])).answer()
        # Her hand is edited for the move made (its 💡 no longer for this move)
        # before the next turn is looked for: a quiet spell alone may come first.
        await fake.wait_for(lambda hand=hand, data=data: hint_button(hand) != data)
    await play_moves(table, table.game_over)
    await fake.wait_idle(quiet=0.1)
    over = next(t for t in fake.sent_texts(GROUP) if "Игра окончена" in t)
    assert hint_line([over]) == "💡 Подсказок за игру: Анна 2"
    mine = next(t for t in fake.sent_texts(anna.id) if "игра окончена" in t)
    assert hint_line([mine]) == "💡 Подсказок за игру: Анна 2"


async def test_with_hints_off_there_is_no_bulb_and_a_forged_one_is_refused(
    fake: FakeTelegram, running_bot: InProcessBot
) -> None:
    anna = fake.add_user(861, "Анна")
    table = await lesson(fake, [anna])
    await (await fake.press_button(anna, table.table_message(), text_contains="Начать")).answer()
    hand = await my_turn(fake, table, anna)
    assert hint_button(hand) is None
    move = move_buttons(hand)[0]
    t, seq = move.split(":")[1:3]
    forged = f"i:{t}:{seq}"
    assert await popup(fake, anna, anna.id, 999_999, forged) == (
        "Подсказки за этим столом выключены."
    )
    on_hand = await (await fake.press_raw(anna, anna.id, hand.message_id, forged)).answer()
    assert on_hand["text"] == "Эта кнопка устарела."  # not a button of that message
    await play_moves(table, lambda: "Сдача 1 сыграна" in "".join(fake.sent_texts(GROUP)))
    assert hint_line(fake.sent_texts(GROUP)) is None


async def test_the_blind_nil_hint_does_not_look_at_the_cards(
    fake: FakeTelegram, running_bot: InProcessBot
) -> None:
    anna = fake.add_user(871, "Анна")
    table = await lesson(fake, [anna])
    await turn_on_hints(fake, table, anna)
    await (
        await fake.press_button(anna, table.table_message(), text_contains="Слепой ноль")
    ).answer()
    await fake.wait_for(lambda: "чикагский" in str(table.table_message().buttons()))
    await done_and_start(fake, table, anna)
    hand = await fake.wait_for(
        lambda: next(
            (
                m
                for m in fake.chat_messages(anna.id)
                if any(action_of(v) == BLIND for v in move_buttons(m))
            ),
            None,
        ),
        message="the blind nil offer",
    )
    assert hand is not None and "Карты закрыты" in hand.text
    data = hint_button(hand)
    assert data is not None
    text = await popup(fake, anna, anna.id, hand.message_id, data)
    assert text in (
        "💡 Мастер открыл бы карты: слепой ноль здесь не нужен.",
        "💡 Мастер заявил бы слепой ноль: команда далеко позади: слепой ноль даёт шанс",
    ), text
    assert not re.search("[♠♥♦♣]", text)
    assert "Карты закрыты" in fake.message(anna.id, hand.message_id).text


async def test_review_after_a_hand(fake: FakeTelegram, running_bot: InProcessBot) -> None:
    anna = fake.add_user(881, "Анна")
    await fake.send_text(anna, anna.id, "/review")
    await fake.wait_for(lambda: "Разбирать пока нечего" in (fake.sent_texts(anna.id) or [""])[-1])
    await fake.start_bot(anna)  # a command is no Start: she is not seated without one
    table = await lesson(fake, [anna])
    await (await fake.press_button(anna, table.table_message(), text_contains="Начать")).answer()
    # The harness bids the most it may (13): a bid the master would not make.
    await play_moves(table, lambda: "Сдача 1 сыграна" in "".join(fake.sent_texts(GROUP)))
    before = len(fake.sent_texts(anna.id))
    await fake.send_text(anna, anna.id, "/review")
    reply = await fake.wait_for(
        lambda: next((t for t in fake.sent_texts(anna.id)[before:] if t.startswith("🔎")), None),
        timeout=60,
        message="the review",
    )
    assert reply is not None
    items = re.findall(r"^\d\. ", reply, flags=re.M)
    assert reply.startswith("🔎 Разбор: «Уроки», сдача 1"), reply
    assert 1 <= len(items) <= 3, reply
    assert "Вы заявили 13, мастер заявил бы" in reply, reply
    assert reply.count("Разница ≈") == len(items) and reply.count("Ваши карты:") == len(items)


async def test_review_is_in_the_private_menu(fake: FakeTelegram, running_bot: InProcessBot) -> None:
    await fake.wait_for(
        lambda: any(
            "review" in str(c.params.get("commands")) and "private" in str(c.params.get("scope"))
            for c in fake.calls_to("setMyCommands")
        ),
        message="/review in the private command menu",
    )


@pytest.mark.parametrize("lang", SUPPORTED)
def test_every_reason_has_words(lang: str) -> None:
    words = [said(lang, f"teach-reason-{key}") for key in REASONS]
    assert all(words) and len(set(words)) == len(REASONS)
