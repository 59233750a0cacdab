"""Inline mode (issue #50): «@бот» in any chat lists the person's own
running games, «@бот статистика» their record, «@бот <группа>» narrows to
that group; a result picked goes into the chat as a card with no hidden
card, naming only the table's people. Through the fake Telegram's
``inline_query``, ``answerInlineQuery`` and ``chosen_inline_result``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
import scenarios as kit
from aiogram import Bot
from aiogram.exceptions import TelegramBadRequest
from aiogram.types import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InputTextMessageContent,
    WebAppInfo,
)
from fake_telegram import FakeTelegram
from fake_telegram.models import FakeUser
from harness import MakeBot, Table, forget_me, open_table, play_moves

from bot.clock import FakeClock
from engine import Game
from engine.cards import card_label

GROUP_A = -1001234505001
GROUP_B = -1001234505002
GROUP_C = -1001234505003
CHAT = -1001234505009
VOTE_GROUP = -5006  # a basic group: its messages have no links


def inline_on(fake: FakeTelegram) -> None:
    """@BotFather's /setinline and /setinlinefeedback."""
    fake.world.inline_mode = True
    fake.world.inline_feedback = True


async def ask(fake: FakeTelegram, user: FakeUser, query: str = "") -> dict[str, Any]:
    """The answer the person sees to ``@bot query`` (Telegram's cache or the bot's)."""
    return await (await fake.inline_query(user, query)).answer(timeout=10)


def texts_of(answer: dict[str, Any]) -> list[str]:
    """Everything an answer can show: titles, descriptions, the cards, the buttons."""
    out: list[str] = []
    for r in answer["results"]:
        out += [r.get("title", ""), r.get("description", "")]
        out.append(r["input_message_content"]["message_text"])
        out.append(json.dumps(r.get("reply_markup") or {}, ensure_ascii=False))
    out.append(json.dumps(answer.get("button") or {}, ensure_ascii=False))
    return out


def hidden_cards_in(texts: list[str], game: Game) -> list[str]:
    """The labels of cards still in any hand that a text shows."""
    labels = {card_label(c) for s in range(game.rules.players) for c in game.hand_cards(s)}
    return [label for text in texts for label in labels if label in text]


def whose_turn(table: Table) -> list[FakeUser]:
    return [u for u, _ in table.actionable()]


async def test_own_games_most_urgent_first_and_the_card_sent(
    fake: FakeTelegram, make_bot: MakeBot
) -> None:
    """Two running games and one finished: the running ones, the person's
    own move first; the finished one only in the record; a card picked in a
    group holds the score and whose move, with a link to the table."""
    inline_on(fake)
    bot = await make_bot()
    assert {"inline_query", "chosen_inline_result"} <= set(fake.world.allowed_updates or ())
    anna, boris = fake.add_user(5101, "Анна"), fake.add_user(5102, "Борис")
    vika = fake.add_user(5103, "Вика")

    # Finished: Анна alone against the computer, the club's short game.
    done = await open_table(fake, GROUP_C, [anna], club=True, title="Прошлые", supergroup=True)
    await play_moves(done, done.game_over)
    # Running, Борис to move: Анна bids, then he is waited for.
    shared = await open_table(fake, GROUP_B, [anna, boris], title="Пятница", supergroup=True)
    await play_moves(shared, lambda: whose_turn(shared) == [boris])
    # Running, Анна to move.
    mine = await open_table(fake, GROUP_A, [anna], title="Дача", supergroup=True)
    await fake.wait_for(lambda: whose_turn(mine) == [anna])

    answer = await ask(fake, anna)
    assert answer["is_personal"] is True and 0 < answer["cache_time"] <= 10
    titles = [r["title"] for r in answer["results"]]
    assert titles == ["«Дача»", "«Пятница»"], titles
    first, second = answer["results"]
    assert first["description"].startswith("▶️ ваш ход · до ")
    assert "Сдача 1" in first["description"] and "Анна" in first["description"]
    assert "Борис" in second["description"] and "ваш ход" not in second["description"]
    assert "Вика" not in json.dumps(answer, ensure_ascii=False)

    # Narrowed by the group's name (any case, a part of it).
    narrowed = await ask(fake, anna, "пятн")
    assert [r["title"] for r in narrowed["results"]] == ["«Пятница»"]
    assert (await ask(fake, anna, "нет такой группы"))["results"] == []

    # The record: the finished game counts there.
    stats = await ask(fake, anna, "Статистика")
    (record,) = stats["results"]
    assert record["id"] == "stats" and "1 партия" in record["description"]
    assert "Партий: 1" in record["input_message_content"]["message_text"]

    # Picked in another group: the card, the link to the table's message.
    fake.add_group(CHAT, "Болтовня", members=[anna, vika], supergroup=True)
    card = await fake.choose_inline(anna, answer, second["id"], CHAT)
    assert card.via_bot is not None and card.via_bot.id == fake.bot_id
    assert "«Пятница»" in card.text and "Борис" in card.text and "Анна" in card.text
    (link,) = card.buttons()
    table_msg = shared.table_message()
    assert link.value == f"https://t.me/c/{str(GROUP_B)[4:]}/{table_msg.message_id}"
    inline = bot.app.services.inline
    await fake.wait_for(lambda: inline.counts["chosen_game"] == 1)


async def test_a_strangers_query_shows_nothing_of_anyone(
    fake: FakeTelegram, make_bot: MakeBot
) -> None:
    """Someone who never played: how to start, and their own empty record;
    the group's name finds nothing of the games there."""
    inline_on(fake)
    await make_bot()
    anna, stranger = fake.add_user(5201, "Анна"), fake.add_user(5202, "Чужой")
    table = await open_table(fake, GROUP_A, [anna], title="Дача", supergroup=True)
    await fake.wait_for(lambda: whose_turn(table) == [anna])

    empty = await ask(fake, stranger)
    (start,) = empty["results"]
    assert start["id"] == "start" and "/newgame" in start["input_message_content"]["message_text"]
    assert empty["button"]["start_parameter"] == "inline"
    assert (await ask(fake, stranger, "Дача"))["results"] == []
    stats = await ask(fake, stranger, "статистика")
    assert "0 партий" in stats["results"][0]["description"]
    for answer in (empty, stats):
        assert not any("Анна" in t or "Дача" in t for t in texts_of(answer))
    # The start button's /start inline: the greeting, which says how to start.
    await fake.start_bot(stranger, "inline")
    await fake.wait_for(lambda: any("/newgame" in t for t in fake.sent_texts(stranger.id)))


async def test_no_hidden_card_during_bidding_or_a_claims_vote(
    fake: FakeTelegram, make_bot: MakeBot, db_path: Path
) -> None:
    """Every answer each player gets, during the bidding and while a claim is
    voted on, holds no card of any hand (checked against the real hands)."""
    inline_on(fake)
    await make_bot()
    table, users = await kit.four_people(fake, VOTE_GROUP)
    for user in users:
        answer = await ask(fake, user)
        assert len(answer["results"]) == 1
        assert "Сдача 1 · заявки" in answer["results"][0]["description"]
        assert hidden_cards_in(texts_of(answer), kit.game_of(db_path)) == []

    claimer, hand = await kit.to_first_claim(fake, table, users, db_path)
    _, voters = kit.other_side(users, claimer)
    await kit.open_vote(fake, claimer, hand, voters)
    await fake.wait_idle(quiet=0.05)
    game = kit.game_of(db_path)
    assert sum(len(game.hand_cards(s)) for s in range(4)) > 0
    await asyncio.sleep(5.5)  # past Telegram's cache of the answers above
    for user in users:
        answer = await ask(fake, user)
        (result,) = answer["results"]
        assert "голосование" in result["description"]
        assert hidden_cards_in(texts_of(answer), game) == []
        card = await fake.choose_inline(user, answer, result["id"], VOTE_GROUP)
        assert hidden_cards_in([card.text], game) == []


async def test_a_flood_is_answered_from_memory_and_paced(
    fake: FakeTelegram, make_bot: MakeBot, clock: FakeClock
) -> None:
    """Forty key presses at once: one read of the database; eight answered at
    once, then only the newest, once the window has passed (the bot's clock,
    moved by the test); others are not slowed."""
    inline_on(fake)
    bot = await make_bot(clock=clock)
    inline = bot.app.services.inline
    anna, boris = fake.add_user(5301, "Анна"), fake.add_user(5302, "Борис")
    table = await open_table(fake, GROUP_A, [anna], title="Дача", supergroup=True)
    await fake.wait_for(lambda: whose_turn(table) == [anna])
    typed = "Дача пятничная долгая партия в пики!!"
    asked = [await fake.inline_query(anna, typed[: i + 1]) for i in range(len(typed))]
    other = await (await fake.inline_query(boris, "")).answer(timeout=2)
    assert other["results"][0]["id"] == "start"
    # The bot has every query, and has answered what the window lets through.
    await fake.wait_for(lambda: fake.updates_pending() == 0 and asked[7].answered)
    await fake.wait_idle(quiet=0.3)
    assert [a.answered for a in asked] == [True] * 8 + [False] * (len(asked) - 8)
    clock.advance(2.0)
    newest = await asked[-1].answer(timeout=9)
    assert newest["results"] == []  # no group is called that
    await fake.wait_idle(quiet=0.3)
    assert [a.answered for a in asked] == [True] * 8 + [False] * (len(asked) - 9) + [True]
    assert len(fake.calls_to("answerInlineQuery")) == 9 + 1
    assert inline.counts["read"] == 2  # Анна once, Борис once
    assert inline.counts["remembered"] >= 9 - 2
    # Within the memory, a query typed again is the answer given before.
    again = await fake.inline_query(anna, "Д")
    assert again.cached is not None  # Telegram's cache: the bot never saw it


async def test_forget_me_leaves_nothing_to_show(fake: FakeTelegram, make_bot: MakeBot) -> None:
    inline_on(fake)
    bot = await make_bot()
    anna = fake.add_user(5401, "Анна")
    table = await open_table(fake, GROUP_A, [anna], title="Дача", supergroup=True)
    await fake.wait_for(lambda: whose_turn(table) == [anna])
    assert [r["title"] for r in (await ask(fake, anna))["results"]] == ["«Дача»"]
    assert bot.app.services.inline.remembers(anna.id)
    await forget_me(fake, anna)
    assert not bot.app.services.inline.remembers(anna.id)
    fake.world.inline_cache.clear()  # Telegram's own cache aside: the bot is asked
    after = await ask(fake, anna, "Дача")
    assert after["results"] == []
    stats = await ask(fake, anna, "статистика")
    assert "0 партий" in stats["results"][0]["description"]


async def test_english_words(fake: FakeTelegram, make_bot: MakeBot) -> None:
    """An English client reads English; either language's word asks for the record."""
    inline_on(fake)
    await make_bot()
    anna = fake.add_user(5502, "Анна")
    jane = fake.add_user(5501, "Jane", language_code="en")
    await open_table(fake, GROUP_A, [anna, jane], title="Cottage", supergroup=True)
    games = await ask(fake, jane)
    (game,) = games["results"]
    assert game["title"] == '"Cottage"' and "Hand 1 · bidding" in game["description"]
    assert "Open the table" in json.dumps(game["reply_markup"])
    card = game["input_message_content"]["message_text"]
    assert "Jane" in card and "Анна" in card
    for word in ("stats", "Statistics", "статистика"):
        (record,) = (await ask(fake, jane, word))["results"]
        assert record["title"] == "📈 Your record" and "0 games" in record["description"]


async def test_the_fake_keeps_telegrams_limits(fake: FakeTelegram, bot: Bot) -> None:
    """The fake refuses what Telegram refuses: over 50 results, an id over 64
    bytes or twice, a web_app button, an answer given twice or after 10 s."""
    inline_on(fake)
    anna = fake.add_user(5601, "Анна")

    def article(rid: str, **extra: Any) -> InlineQueryResultArticle:
        content = InputTextMessageContent(message_text="<b>x</b>", parse_mode="HTML")
        return InlineQueryResultArticle(id=rid, title="t", input_message_content=content, **extra)

    asked = await fake.inline_query(anna, "q")
    refusals = {
        "RESULTS_TOO_MUCH": [article(str(i)) for i in range(51)],
        "RESULT_ID_INVALID": [article("x" * 65)],
        "RESULT_ID_DUPLICATE": [article("a"), article("a")],
        "BUTTON_TYPE_INVALID": [
            article(
                "w",
                reply_markup=InlineKeyboardMarkup(
                    inline_keyboard=[
                        [InlineKeyboardButton(text="app", web_app=WebAppInfo(url="https://a.b"))]
                    ]
                ),
            )
        ],
    }
    for word, results in refusals.items():
        with pytest.raises(TelegramBadRequest, match=word):
            await bot.answer_inline_query(asked.query_id, results)
    assert await bot.answer_inline_query(asked.query_id, [article("x" * 64)], cache_time=0)
    assert (await asked.answer())["results"][0]["id"] == "x" * 64
    with pytest.raises(TelegramBadRequest, match="query is too old"):
        await bot.answer_inline_query(asked.query_id, [])  # once only

    late = await fake.inline_query(anna, "q")
    assert late.update is not None  # cache_time 0: nothing kept, the bot is asked
    start = fake.now()
    fake.clock = lambda: start + 10.5
    with pytest.raises(TelegramBadRequest, match="query is too old"):
        await bot.answer_inline_query(late.query_id, [])
