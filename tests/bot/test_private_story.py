"""The private chat tells the whole story: the trick just taken, and the end
of the game with one's own record."""

from __future__ import annotations

import re

from fake_telegram import FakeTelegram
from harness import Table, open_table, play_moves

GROUP = -1008101


async def open_club_game(fake: FakeTelegram, users) -> Table:
    """Club rules (the game ends at −200, so it is short), these people seated."""
    return await open_table(fake, GROUP, users, club=True, title="История")


def versions(fake: FakeTelegram, chat_id: int) -> list[str]:
    """Every text every bot message in the chat has shown."""
    out = []
    for m in fake.world.chat(chat_id).all_messages:
        if m.from_bot:
            out += [v.text for v in m.history] or [m.text]
    return out


async def test_the_trick_just_taken_shows_in_private(fake: FakeTelegram, running_bot) -> None:
    anna = fake.add_user(811, "Анна")
    table = await open_club_game(fake, [anna])
    await play_moves(table, lambda: any("Прошлая взятка →" in t for t in versions(fake, anna.id)))
    shown = next(t for t in versions(fake, anna.id) if "Прошлая взятка →" in t)
    assert "Ваши карты" in shown


async def test_each_player_gets_the_result_in_private(fake: FakeTelegram, running_bot) -> None:
    anna, boris = fake.add_user(821, "Анна"), fake.add_user(822, "Борис")
    table = await open_club_game(fake, [anna, boris])
    await play_moves(table, table.game_over)
    await fake.wait_idle(quiet=0.1)
    for user in (anna, boris):
        # The result, then the afterword's picker after it.
        results = [t for t in fake.sent_texts(user.id) if "«История»: игра окончена" in t]
        assert len(results) == 1, fake.sent_texts(user.id)[-3:]
        last = results[0]
        assert "Победа:" in last and "Ваша игра:" in last and "«🔁 Ещё партию»" in last
        assert ("Вы победили" in last) != ("не вышло" in last)
    # One minus sign everywhere: the true one (−60), never a hyphen.
    for text in fake.sent_texts(GROUP):
        assert not re.search(r"(?<![\w-])-\d", text), text
