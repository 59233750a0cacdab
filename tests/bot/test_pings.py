"""Real-time games in a real client: an edited hand never notifies, so a turn
that waits gets a ping that does, and the ping goes when the player moves."""

from __future__ import annotations

import pytest
from fake_telegram import FakeMessage, FakeTelegram, FakeUser
from harness import InProcessBot, Table, move_buttons, open_table

from bot.clock import FakeClock

GROUP = -1008001


@pytest.fixture
async def game(
    fake: FakeTelegram, clock: FakeClock, clocked_bot: InProcessBot
) -> tuple[FakeTelegram, FakeClock, Table, FakeUser]:
    """Anna alone with three computer seats, one minute a move, game started."""
    anna = fake.add_user(801, "Анна")
    table = await open_table(fake, GROUP, [anna], title="Пинги")
    return fake, clock, table, anna


def pings(fake: FakeTelegram, user: FakeUser) -> list[FakeMessage]:
    """Every ping ever sent to the user (deleted ones too)."""
    return [
        m
        for m in fake.world.chat(user.id).all_messages
        if m.from_bot and "Ваш ход в" in (m.history[0].text if m.history else m.text)
    ]


async def my_turn(fake: FakeTelegram, table: Table, user: FakeUser) -> FakeMessage:
    await fake.wait_idle(quiet=0.05)
    return await fake.wait_for(
        lambda: next(
            (m for u, m in table.actionable() if u.id == user.id and move_buttons(m)), None
        )
    )


async def move(fake: FakeTelegram, user: FakeUser, hand: FakeMessage) -> None:
    moves = move_buttons(hand)
    await (await fake.press(user, user.id, hand.message_id, moves[-1])).answer()


async def test_a_slow_player_is_pinged_once_and_the_ping_goes_on_the_move(game) -> None:
    fake, clock, table, anna = game
    hand = await my_turn(fake, table, anna)
    assert not pings(fake, anna)
    clock.advance(9)
    await fake.wait_for(lambda: pings(fake, anna))
    await fake.wait_idle(quiet=0.1)
    (ping,) = pings(fake, anna)
    assert "«Пинги»" in ping.text and not ping.deleted
    # It notifies (a new message, not silent) and leads back to the cards.
    assert not fake.calls_to("sendMessage", anna.id)[-1].params.get("disable_notification")
    await move(fake, anna, fake.message(anna.id, hand.message_id))
    await fake.wait_for(lambda: fake.message(anna.id, ping.message_id).deleted)
    assert len(pings(fake, anna)) == 1


async def test_a_quick_player_is_never_pinged(game) -> None:
    fake, clock, table, anna = game
    for _ in range(6):
        hand = await my_turn(fake, table, anna)
        clock.advance(5)  # well within the wait
        await fake.wait_idle(quiet=0.05)
        await move(fake, anna, fake.message(anna.id, hand.message_id))
    await fake.wait_idle(quiet=0.1)
    assert pings(fake, anna) == []


async def test_quiet_turns_pings_off_and_on(game) -> None:
    fake, clock, table, anna = game
    await fake.send_text(anna, anna.id, "/quiet")
    await fake.wait_for(lambda: "выключены" in fake.sent_texts(anna.id)[-1])
    hand = await my_turn(fake, table, anna)
    clock.advance(30)
    await fake.wait_idle(quiet=0.1)
    assert pings(fake, anna) == []
    await move(fake, anna, fake.message(anna.id, hand.message_id))
    await fake.send_text(anna, anna.id, "/quiet")
    await fake.wait_for(lambda: "включены" in fake.sent_texts(anna.id)[-1])
    await my_turn(fake, table, anna)
    clock.advance(9)
    await fake.wait_for(lambda: pings(fake, anna))


async def test_the_ping_button_brings_the_cards_down(game) -> None:
    fake, clock, table, anna = game
    hand = await my_turn(fake, table, anna)
    clock.advance(9)
    ping = (await fake.wait_for(lambda: pings(fake, anna)))[0]
    await (await fake.press_button(anna, ping, text_contains="К картам")).answer()
    await fake.wait_for(lambda: fake.message(anna.id, ping.message_id).deleted)
    await fake.wait_idle(quiet=0.1)
    newest = [m for m in fake.chat_messages(anna.id) if move_buttons(m)]
    assert newest and newest[-1].message_id > ping.message_id
    assert fake.message(anna.id, hand.message_id).deleted
