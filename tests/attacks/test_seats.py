"""Attacks on the seats and on a table's admin buttons (issue #46): who is not
in a table's group gets no seat there, learns nothing of the group, and an
admin of one group decides nothing in another.

Every way to a seat asks Telegram whether the person is in the table's group
(one cached ``getChatMember``); a join link carries the table's secret key;
an admin's press counts only in the table's own group, for an admin of it;
and one person cannot make the bot ask Telegram about a stream of groups.
"""

from __future__ import annotations

from pathlib import Path

from fake_telegram import FakeMessage, FakeTelegram, FakeUser
from harness import InProcessBot, Table, open_table, play_moves, press_label, rows

from bot.clock import FakeClock

GROUP = -1008100000001  # «Секретная группа»: the victims' group
OTHER_GROUP = -1008100000002  # the attacker's own group, where he is an admin
TITLE = "Секретная группа"
UNAVAILABLE = "Это место недоступно."
TRY_AGAIN = "Не удалось проверить, что вы в группе. Попробуйте ещё раз чуть позже."
# bot.services.membership.MEMBER_QUOTA: distinct groups a person is asked about a minute.
QUOTA = 10
# A message id the fake does not have: Telegram sends such a press with an
# InaccessibleMessage, whose buttons the bot cannot compare with the data.
GONE = 10**6


def table_of(db: Path, chat_id: int) -> int:
    """The id of the newest table in ``chat_id``."""
    ((table_id,),) = rows(
        db, "SELECT table_id FROM tables WHERE chat_id=? ORDER BY table_id DESC LIMIT 1", chat_id
    )
    return int(table_id)


def join_key(db: Path, table_id: int) -> str:
    """The secret a table's join links carry."""
    ((key,),) = rows(db, "SELECT join_key FROM tables WHERE table_id=?", table_id)
    return str(key)


def seated(db: Path, table_id: int) -> list[int | None]:
    return [
        r[0] for r in rows(db, "SELECT user_id FROM seats WHERE table_id=? ORDER BY seat", table_id)
    ]


def member_questions(fake: FakeTelegram, user: FakeUser) -> int:
    """getChatMember calls the bot made about ``user``, in any group."""
    return sum(str(c.params.get("user_id")) == str(user.id) for c in fake.calls_to("getChatMember"))


async def start_link(fake: FakeTelegram, user: FakeUser, payload: str) -> str:
    """``user`` opens ``t.me/<bot>?start=<payload>``; the bot's answer."""
    await fake.wait_idle(quiet=0.05)  # what the bot had to say before is out
    before = len(fake.sent_texts(user.id))
    await fake.start_bot(user, payload)
    await fake.wait_for(lambda: len(fake.sent_texts(user.id)) > before, message="the answer")
    return fake.sent_texts(user.id)[-1]


async def forged(fake: FakeTelegram, user: FakeUser, chat_id: int, data: str) -> str:
    """``user`` sends button data of his choosing with a message the bot
    cannot check; the pop-up's text."""
    return (await (await fake.press_raw(user, chat_id, GONE, data)).answer())["text"] or ""


async def victims(fake: FakeTelegram, *, start: bool = False) -> tuple[Table, FakeUser, FakeUser]:
    """Анна opens a table in «Секретная группа» (Борис sits with her when
    ``start``: the game runs); a stranger, in no group of theirs, has
    pressed Start with the bot."""
    anna, boris = fake.add_user(8101, "Анна"), fake.add_user(8102, "Борис")
    stranger = fake.add_user(8109, "Чужак")
    fake.add_group(GROUP, TITLE, members=[anna, boris], admins=[anna], supergroup=True)
    await fake.start_bot(stranger)
    await fake.wait_for(lambda: fake.sent_texts(stranger.id), message="the greeting")
    people = [anna, boris] if start else [anna]
    table = await open_table(fake, GROUP, people, others=[boris], start=start, title=TITLE)
    await fake.wait_idle(quiet=0.05)
    return table, boris, stranger


async def test_a_stranger_with_a_deep_link_gets_no_seat_and_learns_nothing(
    fake: FakeTelegram, db_path: Path, running_bot: InProcessBot
) -> None:
    """Table numbers count up: ``join_<n>_<seat>`` once seated anyone at any
    table and named its group. Now the link needs the table's key, and even
    with it (a leaked link) only a member of the group sits; every refusal is
    the one a table that does not exist gets."""
    table, boris, stranger = await victims(fake)
    table_id = table_of(db_path, GROUP)
    before = seated(db_path, table_id)
    # The old link: a number anyone can guess.
    assert await start_link(fake, stranger, f"join_{table_id}_1") == UNAVAILABLE
    key = join_key(db_path, table_id)
    answers = [
        await start_link(fake, stranger, payload)
        for payload in (
            f"join_{table_id}_1_{'0' * 16}",  # a wrong key
            f"join_{table_id}_1_{key}",  # the right key, but not a member
            f"join_{table_id + 1000}_1_{key}",  # no such table
        )
    ]
    assert answers == [UNAVAILABLE] * 3
    assert not any(TITLE in t for t in fake.sent_texts(stranger.id))
    await fake.wait_idle(quiet=0.05)
    assert seated(db_path, table_id) == before
    assert "Чужак" not in table.table_message().text
    # A member with the same link sits (the answer names his group).
    assert "Вы за столом" in await start_link(fake, boris, f"join_{table_id}_1_{key}")
    await fake.wait_for(lambda: "Борис" in table.table_message().text)


async def test_the_seat_button_of_a_non_member_seats_nobody(
    fake: FakeTelegram, db_path: Path, running_bot: InProcessBot
) -> None:
    """The table message's seat button, pressed by someone not in the group
    (a public group can be read without joining), or its data sent from
    another chat: refused alike, nobody seated."""
    table, boris, stranger = await victims(fake)
    table_id = table_of(db_path, GROUP)
    before = seated(db_path, table_id)
    message = table.table_message()
    sit = fake.find_button(message, text_contains="Юг").value
    assert sit is not None
    press = await fake.press_raw(stranger, GROUP, message.message_id, sit)
    assert (await press.answer())["text"] == UNAVAILABLE
    assert await forged(fake, stranger, stranger.id, sit) == UNAVAILABLE
    # Boris left the group without the bot hearing of it: no seat either.
    fake.remove_member(GROUP, boris, quietly=True)
    await fake.start_bot(boris)
    press = await fake.press_raw(boris, GROUP, message.message_id, sit)
    assert (await press.answer())["text"] == UNAVAILABLE
    await fake.wait_idle(quiet=0.05)
    assert seated(db_path, table_id) == before
    assert "Чужак" not in table.table_message().text


async def test_the_calls_seat_button_of_a_non_member_seats_nobody(
    fake: FakeTelegram, db_path: Path, running_bot: InProcessBot
) -> None:
    """A call's «Сесть» (``cm:sit:<group>:<table>``) forged in one's own
    private chat: the same refusal whether the group and table match or not,
    and no group's title."""
    table, _, stranger = await victims(fake)
    table_id = table_of(db_path, GROUP)
    before = seated(db_path, table_id)
    for chat_id in (GROUP, OTHER_GROUP):
        text = await forged(fake, stranger, stranger.id, f"cm:sit:{chat_id}:{table_id}")
        assert text == UNAVAILABLE, chat_id
    await fake.wait_idle(quiet=0.05)
    assert not any(TITLE in t for t in fake.sent_texts(stranger.id))
    assert seated(db_path, table_id) == before


async def test_a_forged_cancel_from_another_groups_admin_changes_nothing(
    fake: FakeTelegram, db_path: Path, running_bot: InProcessBot
) -> None:
    """``t:<table>:cy:0`` sent from the attacker's own group, where he is an
    admin: the game in «Секретная группа» goes on."""
    table, _, stranger = await victims(fake, start=True)
    fake.add_group(OTHER_GROUP, "Своя", members=[], admins=[stranger], supergroup=True)
    table_id = table_of(db_path, GROUP)
    text = await forged(fake, stranger, OTHER_GROUP, f"t:{table_id}:cy:0")
    assert "устарела" in text and TITLE not in text
    # Nor from the group itself, where he is nobody.
    text = await forged(fake, stranger, GROUP, f"t:{table_id}:cy:0")
    assert "администратор" in text
    await fake.wait_idle(quiet=0.05)
    assert rows(db_path, "SELECT status FROM tables WHERE table_id=?", table_id) == [("playing",)]
    assert table.actionable()


async def test_forged_presses_from_another_chat_tell_nothing_of_a_tables_state(
    fake: FakeTelegram, db_path: Path, running_bot: InProcessBot
) -> None:
    """A table's buttons forged from another chat on a running table and on
    a closed one get the answer a table number that does not exist gets:
    "closed", "started" or "not the creator" would tell what goes on in a
    group one is not in."""
    table, _, stranger = await victims(fake, start=True)
    fake.add_group(OTHER_GROUP, "Своя", members=[], admins=[stranger], supergroup=True)
    running = table_of(db_path, GROUP)
    # A closed table: Анна cancels hers in a second group.
    anna = table.users[0]
    closed_group = GROUP - 10
    fake.add_group(closed_group, "Вторая", members=[anna], admins=[anna], supergroup=True)
    await open_table(fake, closed_group, [anna], start=False)
    closed = table_of(db_path, closed_group)
    await fake.send_text(anna, closed_group, "/cancel")
    await fake.wait_for(lambda: "Отменить" in fake.last_message(closed_group).text)
    await press_label(fake, anna, fake.last_message(closed_group), "Да")
    await fake.wait_for(
        lambda: (
            rows(db_path, "SELECT status FROM tables WHERE table_id=?", closed) == [("cancelled",)]
        ),
        message="the table cancelled",
    )
    absent = 999_999
    for op in ("cy:0", "cn:0", "pre:1", "go:0", "ok:0", "up:0"):
        nothing = await forged(fake, stranger, OTHER_GROUP, f"t:{absent}:{op}")
        for table_id in (running, closed):
            text = await forged(fake, stranger, OTHER_GROUP, f"t:{table_id}:{op}")
            assert text == nothing, (op, table_id, text)
    await fake.wait_idle(quiet=0.05)
    assert rows(db_path, "SELECT status FROM tables WHERE table_id=?", running) == [("playing",)]


async def test_a_stranger_cannot_set_up_a_table_without_a_creator(
    fake: FakeTelegram, db_path: Path, running_bot: InProcessBot
) -> None:
    """A table an anonymous admin opened may be set up by whoever sits at it
    or an admin of its group: a stranger can do neither, from anywhere."""
    anna = fake.add_user(8111, "Анна")
    stranger = fake.add_user(8119, "Чужак")
    fake.add_group(GROUP, TITLE, members=[anna], admins=[anna], supergroup=True)
    fake.add_group(OTHER_GROUP, "Своя", members=[], admins=[stranger], supergroup=True)
    await fake.start_bot(stranger)
    # The greeting out before the deep link is pressed (start_link counts answers).
    await fake.wait_for(lambda: fake.sent_texts(stranger.id), message="the greeting")
    await fake.send_as_group(anna, GROUP, "/newgame")
    table = Table(fake, GROUP, [anna])
    await fake.wait_for(lambda: table.find_table_message() is not None, message="the table")
    table_id = table_of(db_path, GROUP)
    rules = rows(db_path, "SELECT rules_json FROM tables WHERE table_id=?", table_id)
    assert await start_link(fake, stranger, f"join_{table_id}_0") == UNAVAILABLE
    for chat_id in (GROUP, OTHER_GROUP, stranger.id):
        for data in (f"t:{table_id}:pre:1", f"t:{table_id}:go:0"):
            text = await forged(fake, stranger, chat_id, data)
            assert "Клуб" not in text and TITLE not in text, (chat_id, data, text)
    await fake.wait_idle(quiet=0.05)
    assert rows(db_path, "SELECT rules_json FROM tables WHERE table_id=?", table_id) == rules
    assert rows(db_path, "SELECT status FROM tables WHERE table_id=?", table_id) == [("open",)]
    assert seated(db_path, table_id) == [None] * 4
    assert "«Клуб»" not in table.table_message().text


async def a_finished_game(
    fake: FakeTelegram, first_id: int
) -> tuple[tuple[FakeUser, FakeUser, FakeUser], FakeMessage, str]:
    """Анна, Борис and Вера (ids from ``first_id``) play a club game to its
    end in the group: the three, the game-over message and its rematch data."""
    anna, boris, vera = (
        fake.add_user(first_id + i, n) for i, n in enumerate(("Анна", "Борис", "Вера"))
    )
    table = await open_table(
        fake,
        GROUP,
        [anna, boris, vera],
        seats=["Восток", "Юг"],
        club=True,
        title=TITLE,
        supergroup=True,
    )
    await play_moves(table, table.game_over)
    await fake.wait_idle(quiet=0.1)
    over = next(m for m in fake.chat_messages(GROUP) if "Игра окончена!" in m.text)
    rematch = fake.find_button(over, text_contains="Ещё партию").value
    assert rematch is not None
    return (anna, boris, vera), over, rematch


async def test_the_rematch_seats_nobody_who_left_the_group(
    fake: FakeTelegram, db_path: Path, clock: FakeClock, clocked_bot: InProcessBot
) -> None:
    """«Ещё партию» after a game: Борис was banned (the bot saw it), Вера
    was removed unheard (a large group tells the bot nothing): neither is
    seated again, and neither may ask for the rematch."""
    (anna, boris, vera), over, rematch = await a_finished_game(fake, 8121)
    # Борис is banned: the bot hears it, and forgets what Telegram said of him
    # (his /call_me, ended by the same news, shows when the bot has heard it).
    await fake.send_text(boris, GROUP, "/call_me")
    subscribed = "SELECT 1 FROM call_me WHERE user_id=?"
    await fake.wait_for(lambda: rows(db_path, subscribed, boris.id), message="Борис called")
    fake.remove_member(GROUP, boris, by_user=anna)
    await fake.wait_for(lambda: not rows(db_path, subscribed, boris.id), message="the ban heard")
    press = await fake.press_raw(boris, GROUP, over.message_id, rematch)
    assert "играл" in ((await press.answer())["text"] or "")
    # Вера is removed unheard: once Telegram's answer about her is old, she is asked after.
    fake.remove_member(GROUP, vera, by_user=anna, quietly=True)
    clock.advance(61)
    press = await fake.press_raw(vera, GROUP, over.message_id, rematch)
    assert "играл" in ((await press.answer())["text"] or "")
    answer = await press_label(fake, anna, over, "Ещё партию")
    assert "Новый стол открыт" in answer["text"]
    new = table_of(db_path, GROUP)
    assert seated(db_path, new) == [anna.id, None, None, None]


async def test_the_rematch_asks_telegram_once_and_says_try_again_without_an_answer(
    fake: FakeTelegram, db_path: Path, clock: FakeClock, clocked_bot: InProcessBot
) -> None:
    """Telegram does not answer about the players: Борис, who played, is
    told to try again (not that only players may ask); Анна, who played
    and is the group's admin, opens the rematch, and Telegram is asked about
    each player once, not again because no answer came."""
    (anna, boris, vera), over, rematch = await a_finished_game(fake, 8151)
    clock.advance(61)  # what Telegram said at the seats is old
    fake.inject("500", method="getChatMember", count=3)
    press = await fake.press_raw(boris, GROUP, over.message_id, rematch)
    assert (await press.answer())["text"] == TRY_AGAIN
    await fake.wait_idle(quiet=0.05)
    asked = len(fake.calls_to("getChatMember"))
    fake.inject("500", method="getChatMember", count=3)
    answer = await press_label(fake, anna, over, "Ещё партию")
    assert "Новый стол открыт" in answer["text"]
    # Three players and whether Анна is an admin: four questions.
    assert len(fake.calls_to("getChatMember")) == asked + 4
    assert seated(db_path, table_of(db_path, GROUP)) == [None] * 4


async def test_one_person_cannot_make_the_bot_ask_about_a_stream_of_tables(
    fake: FakeTelegram, db_path: Path, clock: FakeClock, clocked_bot: InProcessBot
) -> None:
    """Forged call buttons for the tables of many groups: Telegram is asked
    about the first QUOTA groups in a minute, no more; an answer already
    known costs nothing; others are not held to this person's quota; a
    minute later he may ask again."""
    anna, vera = fake.add_user(8131, "Анна"), fake.add_user(8132, "Вера")
    stranger = fake.add_user(8139, "Чужак")
    await fake.start_bot(stranger)
    tables = []
    for i in range(QUOTA + 2):
        group = GROUP - 100 - i
        fake.add_group(group, f"Группа {i}", members=[anna, vera], admins=[anna], supergroup=True)
        table = await open_table(fake, group, [anna], others=[vera], start=False)
        tables.append((group, table_of(db_path, group), table))
    asked = member_questions(fake, stranger)
    for group, table_id, _ in tables[:QUOTA]:
        # Telegram says he is no member (the words: the tests above).
        text = await forged(fake, stranger, stranger.id, f"cm:sit:{group}:{table_id}")
        assert text != TRY_AGAIN
    assert member_questions(fake, stranger) == asked + QUOTA
    # The quota spent: no question to Telegram, and no seat; the refusal is
    # a stranger's, the same for a real table as for none ("try again" would
    # tell that the table exists).
    for group, table_id, _ in tables[QUOTA:]:
        assert (
            await forged(fake, stranger, stranger.id, f"cm:sit:{group}:{table_id}") == UNAVAILABLE
        )
    assert await forged(fake, stranger, stranger.id, f"cm:sit:{GROUP}:999999") == UNAVAILABLE
    # Asked again about a group Telegram has answered for: from memory, free.
    group, table_id, _ = tables[0]
    assert await forged(fake, stranger, stranger.id, f"cm:sit:{group}:{table_id}") == UNAVAILABLE
    assert member_questions(fake, stranger) == asked + QUOTA
    # Вера's seat is her own question: the stranger's quota is not hers.
    group, table_id, table = tables[-1]
    await press_label(fake, vera, table.table_message(), "Юг")
    await fake.wait_for(lambda: "Вера" in table.table_message().text, message="Вера seated")
    # A minute later the stranger may ask again (and is refused as a stranger).
    clock.advance(61)
    group, table_id, _ = tables[-2]
    assert await forged(fake, stranger, stranger.id, f"cm:sit:{group}:{table_id}") == UNAVAILABLE
    assert member_questions(fake, stranger) == asked + QUOTA + 1
    await fake.wait_idle(quiet=0.05)
    assert all(stranger.id not in seated(db_path, t) for _, t, _ in tables)


async def test_a_failed_membership_question_is_not_remembered(
    fake: FakeTelegram, db_path: Path, running_bot: InProcessBot
) -> None:
    """Telegram failing to answer whether someone is in the group is no
    answer: no seat, "try again", and the next press asks again."""
    table, boris, _ = await victims(fake)
    table_id = table_of(db_path, GROUP)
    await fake.start_bot(boris)
    asked = member_questions(fake, boris)
    fake.inject("500", method="getChatMember", count=1)
    answer = await press_label(fake, boris, table.table_message(), "Юг")
    assert answer["text"] == TRY_AGAIN
    await fake.wait_idle(quiet=0.05)
    assert boris.id not in seated(db_path, table_id)
    answer = await press_label(fake, boris, table.table_message(), "Юг")
    assert answer["text"] is None
    await fake.wait_for(lambda: "Борис" in table.table_message().text, message="Борис seated")
    assert member_questions(fake, boris) == asked + 2


async def test_someone_who_joins_is_seated_at_once(
    fake: FakeTelegram, db_path: Path, running_bot: InProcessBot
) -> None:
    """Вера, not yet in the group, is refused a seat (Telegram's "no" is
    remembered for a minute); she is added, the bot hears it, and her next
    press seats her at once."""
    table, _, _ = await victims(fake)
    table_id = table_of(db_path, GROUP)
    vera = fake.add_user(8141, "Вера")
    await fake.start_bot(vera)
    message = table.table_message()
    sit = fake.find_button(message, text_contains="Юг").value
    assert sit is not None
    press = await fake.press_raw(vera, GROUP, message.message_id, sit)
    assert (await press.answer())["text"] == UNAVAILABLE
    fake.add_member(GROUP, vera, by_user=table.users[0])
    await fake.wait_idle(quiet=0.1)
    answer = await press_label(fake, vera, table.table_message(), "Юг")
    assert answer["text"] is None
    await fake.wait_for(lambda: "Вера" in table.table_message().text, message="Вера seated")
    assert vera.id in seated(db_path, table_id)
