"""Blind nil through the buttons: cards stay face down, and the club exchange."""

from __future__ import annotations

from harness import action_of, open_table, play_moves

GROUP = -1009999
BLIND = 70


async def test_chicago_blind_nil_is_declared_without_seeing_the_cards(fake, running_bot) -> None:
    anna = fake.add_user(501, "Анна")
    table = await open_table(fake, GROUP, [anna], title="Слепые", start=False)
    msg = table.table_message()
    await (await fake.press_button(anna, msg, text_contains="Настройки")).answer()
    await fake.wait_for(lambda: "Настройки стола" in table.table_message().text)
    await (
        await fake.press_button(anna, table.table_message(), text_contains="Слепой ноль")
    ).answer()
    await fake.wait_for(lambda: "чикагский" in str(table.table_message().buttons()))
    await (await fake.press_button(anna, table.table_message(), text_contains="Готово")).answer()
    await fake.wait_for(lambda: "Начать" in str(table.table_message().buttons()))
    await (await fake.press_button(anna, table.table_message(), text_contains="Начать")).answer()
    hand = await fake.wait_for(
        lambda: fake.last_message(anna.id) if fake.chat_messages(anna.id)[1:] else None
    )
    # Face down: no card is shown, however long she waits for her turn.
    assert "Карты закрыты" in hand.text and "Ваши карты" not in hand.text
    await fake.wait_for(
        lambda: any(
            action_of(b.value) == BLIND
            for b in fake.last_message(anna.id).buttons()
            if (b.value or "").startswith("m:")
        )
    )
    hand = fake.last_message(anna.id)
    assert "Карты закрыты" in hand.text
    blind = next(b.value for b in hand.buttons() if (b.value or "").startswith("m:"))
    assert (await (await fake.press(anna, anna.id, hand.message_id, blind)).answer())[
        "text"
    ] is None
    await fake.wait_for(lambda: "слепой ноль" in table.table_message().text)
    await fake.wait_for(lambda: "Ваши карты" in fake.last_message(anna.id).text)


async def test_club_blind_nil_exchange_between_partners(fake, running_bot) -> None:
    anna, boris = fake.add_user(511, "Анна"), fake.add_user(512, "Борис")
    table = await open_table(fake, GROUP, [anna, boris], club=True, title="Слепые")
    seen = {"blind": False, "passed": False}

    def choose(user, msg, moves, looks):
        blind = [m for m in moves if action_of(m) == BLIND]
        if blind:
            seen["blind"] = True
            return blind[0]
        if looks:
            return looks[0]
        bids = [m for m in moves if 52 <= action_of(m) < BLIND]
        if bids:
            # Bid 6 each: the team fails and falls 100 behind, not to -200.
            six = [m for m in bids if action_of(m) - 52 <= 6]
            return six[-1] if six else bids[0]
        return moves[0] if moves else None

    def exchanged() -> bool:
        return any(
            "Вы отдали партнёру" in m.text for u in (anna, boris) for m in fake.chat_messages(u.id)
        ) and any("Вы получили" in m.text for u in (anna, boris) for m in fake.chat_messages(u.id))

    # Deals are random: if a game ends before the team is 100 behind, play another.
    for _attempt in range(8):
        await play_moves(table, lambda: exchanged() or table.game_over(), choose=choose)
        if exchanged():
            break
        await open_table(fake, GROUP, [anna, boris], club=True, start=False)
        await (
            await fake.press_button(anna, table.table_message(), text_contains="Начать")
        ).answer()
        await fake.wait_for(
            lambda: (
                "Игра окончена" not in fake.last_message(GROUP).text
                and "Сдача 1" in table.table_message().text
            )
        )
    assert seen["blind"], "the team never fell 100 behind"
    assert exchanged()
    await fake.wait_for(lambda: "слепой ноль" in table.table_message().text or table.game_over())
