"""The table stays in view: posted anew when it has sunk, lookups that go away."""

from __future__ import annotations

import pytest
from fake_telegram import FakeTelegram, FakeUser
from harness import InProcessBot, Table, open_table, play_moves

from bot.clock import FakeClock
from bot.services.replies import GROUP_LOOKUP_SECONDS

GROUP = -1008201


@pytest.fixture
async def game(
    fake: FakeTelegram, clock: FakeClock, clocked_bot: InProcessBot
) -> tuple[FakeTelegram, FakeClock, Table, FakeUser, FakeUser]:
    anna, boris = fake.add_user(831, "Анна"), fake.add_user(832, "Борис")
    table = await open_table(fake, GROUP, [anna, boris], title="Вид")
    return fake, clock, table, anna, boris


def results(fake: FakeTelegram) -> int:
    return sum("сыграна" in t for t in fake.sent_texts(GROUP))


async def test_the_table_message_stays_among_the_last_three(game) -> None:
    fake, clock, table, anna, boris = game
    sent_before = len(fake.sent_texts(GROUP))
    # Six hands; now and then (about one game in 1,450) the deals end the game
    # sooner: then what counts is the hands played with the game going on.
    hands, sent = 0, sent_before
    for hand in range(1, 6):
        await play_moves(table, lambda hand=hand: results(fake) >= hand or table.game_over())
        # Someone looks something up during each hand: more under the table.
        await fake.send_text(boris, GROUP, "/score")
        await fake.wait_idle(quiet=0.1)
        if table.game_over():
            break
        live = [m.message_id for m in fake.chat_messages(GROUP)]
        assert table.table_message().message_id in live[-3:], (hand, live)
        hands, sent = hand, len(fake.sent_texts(GROUP))
    else:
        # The sixth hand's result comes before the end of the game, if any.
        await play_moves(table, lambda: results(fake) >= 6)
        await fake.wait_idle(quiet=0.1)
        hands, sent = 6, len(fake.sent_texts(GROUP))
    # Never two table messages at once: the old one goes when it is posted anew.
    tables = [m for m in fake.chat_messages(GROUP) if "Пики</b>" in m.html or "🃏" in m.text]
    assert len(tables) == 1, [m.text[:40] for m in tables]
    # New group messages per hand: the result, the table when posted anew,
    # a lookup answer here (each hand had one).
    per_hand = (sent - sent_before) / max(hands, 1)
    assert per_hand <= 3, (hands, per_hand)


async def test_lookups_in_the_group_go_away_after_a_while(game) -> None:
    fake, clock, table, anna, boris = game
    asked = await fake.send_text(boris, GROUP, "/score")
    answer = await fake.wait_for(
        lambda: next(
            (
                m
                for m in fake.chat_messages(GROUP)
                if m.reply_to is not None and m.reply_to.message_id == asked["message_id"]
            ),
            None,
        )
    )
    assert "Счёт" in answer.text
    clock.advance(GROUP_LOOKUP_SECONDS - 5)
    await fake.wait_idle(quiet=0.1)
    assert not fake.message(GROUP, answer.message_id).deleted
    clock.advance(10)
    await fake.wait_for(lambda: fake.message(GROUP, answer.message_id).deleted)
    # In private, the answer stays.
    await fake.send_text(anna, anna.id, "/score")
    await fake.wait_for(lambda: "Счёт" in fake.sent_texts(anna.id)[-1])
    mine = fake.chat_messages(anna.id)[-1]
    clock.advance(GROUP_LOOKUP_SECONDS * 2)
    await fake.wait_idle(quiet=0.1)
    assert not fake.message(anna.id, mine.message_id).deleted
