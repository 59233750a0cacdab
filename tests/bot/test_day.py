"""«Сдача дня» (issue #49) through the fake Telegram: turned on by an admin, the
day opening at its hour, three members (one finishing early, one the next
morning, one never), a stranger with the link, forged and stale presses,
the close with its table and comparison scores, the next day opening, and a
``kill -9`` mid-hand."""

from __future__ import annotations

import re
import sqlite3
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from bot_processes import BotProcesses
from fake_telegram import FakeMessage, FakeTelegram, FakeUser
from harness import InProcessBot, count, forget_me, rows

from bot.clock import FakeClock
from bot.services.day import better_than, matchpoints, next_opening
from bot.services.day_play import RULES, result
from engine.scoring import score_hand

GROUP = -1004949
HOUR = 3600.0
ZONE_NOTE = "Europe/Moscow"  # the tests' bot zone (the default)


def opening(fake: FakeTelegram, nth: int = -1) -> FakeMessage:
    found = [m for m in fake.chat_messages(GROUP) if "Сдача дня" in m.text and m.buttons()]
    found = [m for m in found if any(b.value and "start=day_" in b.value for b in m.buttons())]
    return found[nth]


def payload_of(message: FakeMessage) -> str:
    url = next(b.value for b in message.buttons() if b.value and "start=day_" in b.value)
    return url.split("start=", 1)[1]


def hand(fake: FakeTelegram, user: FakeUser) -> FakeMessage | None:
    for m in reversed(fake.chat_messages(user.id)):
        if "Сдача дня" in m.text:
            return m
    return None


def my_turn(fake: FakeTelegram, user: FakeUser) -> FakeMessage | None:
    m = hand(fake, user)
    if m is not None and any(b.value and b.value.startswith("dm:") for b in m.buttons()):
        return m
    return None


def finished(fake: FakeTelegram, user: FakeUser) -> bool:
    m = hand(fake, user)
    return m is not None and "сыграна" in m.text


def taken(fake: FakeTelegram, user: FakeUser, pressed: str) -> bool:
    """The press is taken once the hand no longer offers it (its move number moved on)."""
    m = hand(fake, user)
    return m is not None and not any(b.value == pressed for b in m.buttons())


async def play_moves(
    fake: FakeTelegram, user: FakeUser, moves: int | None = None, pick: int = 0
) -> None:
    """``user`` presses their allowed bid or card number ``pick`` (0: the
    first, -1: the last) ``moves`` times (None: to the end of the hand)."""
    made = 0
    while moves is None or made < moves:
        # The master's three moves between two of hers, on a loaded machine: generously.
        await fake.wait_for(
            lambda: my_turn(fake, user) is not None or finished(fake, user), timeout=90
        )
        if finished(fake, user):
            assert moves is None, "the hand ended before the moves asked for"
            return
        m = my_turn(fake, user)
        assert m is not None
        data = [b.value for b in m.buttons() if b.value and b.value.startswith("dm:")]
        pressed = data[pick]
        await (await fake.press(user, user.id, m.message_id, pressed)).answer()
        made += 1
        await fake.wait_for(lambda p=pressed: taken(fake, user, p), timeout=30)


def test_score_formula_hand_computed() -> None:
    """The day's score of a hand (docs/rules.md), against sums done by hand."""

    def line(bids: list[int], tricks: list[int]) -> Any:
        sides = score_hand(RULES, bids, [False] * 4, tricks, [0, 0], [0, 0])
        return SimpleNamespace(
            sheet=[{"bids": bids, "tricks": tricks, "sides": [s.to_dict() for s in sides]}]
        )

    # South (0) bid 3 with North 2: 5 bid, 6 taken: 50, one bag +1 −10 → 41.
    g = line([3, 4, 2, 4], [4, 4, 2, 3])
    assert result(g, 0).score == 41 and result(g, 0).bid == 3 and result(g, 0).tricks == 4
    # East and West bid 8 and took 7: set, −80.
    assert result(g, 1).score == -80
    # A nil made (+100) beside a partner's 4 made exactly (+40): 140.
    g = line([0, 3, 4, 5], [0, 4, 4, 5])
    assert result(g, 0).score == 140
    # A nil failed (−100) and the partner's 4 made with 2 bags (40 + 2 − 20): −78.
    g = line([0, 3, 4, 3], [1, 3, 6, 3])
    assert result(g, 2).score == -78


def test_matchpoints_and_percent() -> None:
    scores = [41, -80, 41, 140]
    assert matchpoints(scores, 140) == 3
    assert matchpoints(scores, 41) == 1.5  # one below, one equal
    assert matchpoints(scores, -80) == 0
    assert better_than(scores, 41) == 50
    assert better_than([41], 41) is None


def test_next_opening_is_strictly_later() -> None:
    from zoneinfo import ZoneInfo

    zone = ZoneInfo(ZONE_NOTE)
    t = 1_800_000_000.0  # 2027-01-15 11:00 in Moscow
    at = next_opening(t, 9 * 60, zone)
    assert at - t == 22 * HOUR
    assert next_opening(at, 9 * 60, zone) - at == 24 * HOUR


async def test_a_day_for_three_members(
    fake: FakeTelegram, clock: FakeClock, db_path: Path, clocked_bot: InProcessBot
) -> None:
    anna, boris = fake.add_user(4901, "Анна"), fake.add_user(4902, "Борис")
    vera, gleb = fake.add_user(4903, "Вера"), fake.add_user(4904, "Глеб")
    fake.add_group(GROUP, "Клуб", members=[anna, boris, vera], admins=[anna])
    for u in (anna, boris, vera, gleb):
        await fake.start_bot(u)
    # Only an admin (or the first table's creator) turns it on.
    await fake.send_text(boris, GROUP, "/day on")
    await fake.wait_for(lambda: any("админы группы" in t for t in fake.sent_texts(GROUP)))
    await fake.send_text(anna, GROUP, "/day on")
    await fake.wait_for(
        lambda: any("включена: каждый день в 09:00" in t for t in fake.sent_texts(GROUP))
    )
    # It opens at 09:00, not before.
    clock.advance(21 * HOUR)
    await fake.wait_idle(quiet=0.1)
    assert not any("до завтра" in t for t in fake.sent_texts(GROUP))
    clock.advance(1 * HOUR)
    await fake.wait_for(lambda: any("до завтра 09:00" in t for t in fake.sent_texts(GROUP)))
    link = payload_of(opening(fake))
    assert re.fullmatch(r"day_\d+_[0-9a-f]{16}", link)
    assert count(db_path, "SELECT COUNT(*) FROM day_deals") == 2  # today's and tomorrow's

    # A stranger with the link: the one refusal, nothing started.
    await fake.start_bot(gleb, link)
    await fake.wait_for(lambda: "недоступна" in fake.sent_texts(gleb.id)[-1])
    assert count(db_path, "SELECT COUNT(*) FROM day_plays") == 0

    # Anna plays the whole hand at once; she sees her own score and the count only.
    await fake.start_bot(anna, link)
    await play_moves(fake, anna)
    done = hand(fake, anna)
    assert done is not None and "Сыграли: 1." in done.text and "Борис" not in done.text
    # Boris starts and makes two moves; Vera never comes.
    await fake.start_bot(boris, link)
    await play_moves(fake, boris, 2, pick=-1)
    await fake.send_text(vera, GROUP, "/day")
    await fake.wait_for(lambda: "Играют (1): Борис" in fake.sent_texts(GROUP)[-1])
    state = fake.sent_texts(GROUP)[-1]
    assert "Сыграли (1): Анна" in state and "закроется в 09:00" in state
    assert "очки" not in state  # no score before the close
    # Anna cannot play it again: the link brings back her result, no new play.
    await fake.start_bot(anna, link)
    await fake.wait_idle(quiet=0.1)
    assert count(db_path, "SELECT COUNT(*) FROM day_plays WHERE user_id=?", anna.id) == 1

    # In private, /day: her own day, no one else's, results at the close.
    await fake.send_text(anna, anna.id, "/day")
    await fake.wait_for(lambda: "Ваши сдачи дня" in fake.sent_texts(anna.id)[-1])
    own = fake.sent_texts(anna.id)[-1]
    assert "сыграли 1" in own and "итоги — в 09:00" in own and "Борис" not in own
    # Boris finishes the next morning, before the close.
    clock.advance(23 * HOUR)
    await play_moves(fake, boris, pick=-1)
    assert "Сыграли: 2." in (hand(fake, boris) or opening(fake)).text

    # The close at 09:00: the table, the comparison, the next day's opening.
    clock.advance(1 * HOUR)
    await fake.wait_for(lambda: any("Итоги сдачи дня" in t for t in fake.sent_texts(GROUP)))
    await fake.wait_for(lambda: len([t for t in fake.sent_texts(GROUP) if "до завтра" in t]) == 2)
    close = next(m for m in fake.chat_messages(GROUP) if "Итоги сдачи дня" in m.text)
    plays = rows(
        db_path,
        "SELECT user_id, bid, tricks, score FROM day_plays WHERE finished_at IS NOT NULL"
        " ORDER BY score DESC, finished_at",
    )
    assert [p[0] for p in plays] == [anna.id, boris.id] or plays[0][3] > plays[1][3]
    names = {anna.id: "Анна", boris.id: "Борис"}
    (u1, b1, t1, s1), (u2, b2, t2, s2) = plays
    # Hand-computed: two players; the better one 1, the other 0; equal: ½ each.
    p1, p2 = ("1", "0") if s1 > s2 else ("½", "½")
    pc1, pc2 = (100, 0) if s1 > s2 else (50, 50)
    bid = lambda b: "ноль" if b == 0 else str(b)  # noqa: E731
    minus = lambda n: str(n).replace("-", "−")  # noqa: E731 (a true minus sign)
    assert (
        f"1. {names[u1]}: заказ {bid(b1)}, взяток {t1}, очки {minus(s1)}, сравнение {p1}"
        in close.text
    )
    assert (
        f"2. {names[u2]}: заказ {bid(b2)}, взяток {t2}, очки {minus(s2)}, сравнение {p2}"
        in close.text
    )
    assert f"лучше, чем у {pc1} % сыгравших" in close.text
    assert f"лучше, чем у {pc2} % сыгравших" in close.text
    assert "Вера" not in close.text
    await fake.send_text(anna, anna.id, "/day")
    await fake.wait_for(lambda: "лучше, чем у" in fake.sent_texts(anna.id)[-1])
    # The old link is closed now; the new day has a new one.
    await fake.start_bot(vera, link)
    await fake.wait_for(lambda: "недоступна" in fake.sent_texts(vera.id)[-1])
    assert payload_of(opening(fake)) != link
    # The best line's hand record, one tap away, in the presser's private chat.
    await (await fake.press_button(vera, close, text_contains="Лучшая")).answer()
    await fake.wait_for(lambda: "Сдача 1" in fake.sent_texts(vera.id)[-1])
    record = fake.sent_texts(vera.id)[-1]
    assert names[u1] in record


async def test_forged_and_stale_presses_change_nothing(
    fake: FakeTelegram, clock: FakeClock, db_path: Path, clocked_bot: InProcessBot
) -> None:
    anna, boris = fake.add_user(4911, "Анна"), fake.add_user(4912, "Борис")
    fake.add_group(GROUP, "Клуб", members=[anna, boris], admins=[anna])
    for u in (anna, boris):
        await fake.start_bot(u)
    await fake.send_text(anna, GROUP, "/day on")
    await fake.wait_for(lambda: any("включена" in t for t in fake.sent_texts(GROUP)))
    clock.advance(22 * HOUR)
    await fake.wait_for(lambda: any("до завтра" in t for t in fake.sent_texts(GROUP)))
    link = payload_of(opening(fake))
    await fake.start_bot(anna, link)
    await fake.wait_for(lambda: my_turn(fake, anna) is not None)
    m = my_turn(fake, anna)
    assert m is not None
    data = next(b.value for b in m.buttons() if b.value and b.value.startswith("dm:"))
    _, day, seq, action = data.split(":")
    before = count(db_path, "SELECT COUNT(*) FROM day_moves")
    # Boris forges Anna's press in his own chat (he has not started a play).
    await fake.send_text(boris, boris.id, "hi")
    b_msg = fake.chat_messages(boris.id)[-1]
    await (await fake.press_raw(boris, boris.id, b_msg.message_id, data)).answer()
    # Anna: another day's id, a wrong move number: stale.
    for forged in (f"dm:{int(day) + 1}:{seq}:{action}", f"dm:{day}:{int(seq) + 5}:{action}"):
        await (await fake.press_raw(anna, anna.id, m.message_id, forged)).answer()
    await fake.wait_idle(quiet=0.1)
    assert count(db_path, "SELECT COUNT(*) FROM day_moves") == before
    # Her own press counts once; the same press again is stale.
    await (await fake.press(anna, anna.id, m.message_id, data)).answer()
    await fake.wait_for(lambda: count(db_path, "SELECT COUNT(*) FROM day_moves") > before)
    after = count(db_path, "SELECT COUNT(*) FROM day_moves WHERE user_id=?", anna.id)
    await (await fake.press_raw(anna, anna.id, m.message_id, data)).answer()
    await fake.wait_idle(quiet=0.1)
    moves = count(
        db_path, "SELECT COUNT(*) FROM day_moves WHERE user_id=? AND seq=?", anna.id, int(seq)
    )
    assert moves == 1
    assert count(db_path, "SELECT COUNT(*) FROM day_moves WHERE user_id=?", anna.id) >= after
    # /forget_me removes her day.
    await forget_me(fake, anna)
    assert count(db_path, "SELECT COUNT(*) FROM day_plays WHERE user_id=?", anna.id) == 0
    assert count(db_path, "SELECT COUNT(*) FROM day_moves WHERE user_id=?", anna.id) == 0


def day_moves(db: Path, user_id: int) -> list[int]:
    return [
        a for (a,) in rows(db, "SELECT action FROM day_moves WHERE user_id=? ORDER BY seq", user_id)
    ]


@pytest.mark.slow
async def test_kill_9_mid_hand_loses_nothing(
    fake: FakeTelegram, bot_process: BotProcesses, db_path: Path
) -> None:
    """The master thinks in its worker process; the bot is killed right after
    a press was answered (while the computers may be thinking) and started
    again: every acknowledged move is there, and the hand goes on to its end."""
    proc = await bot_process(ai_workers=1, ai_level="master")
    anna = fake.add_user(4921, "Анна")
    fake.add_group(GROUP, "Клуб", members=[anna], admins=[anna])
    await fake.start_bot(anna)
    await fake.send_text(anna, GROUP, "/day on")
    await fake.wait_for(lambda: any("включена" in t for t in fake.sent_texts(GROUP)))
    # Today's day opens now rather than at 09:00 (the process runs on the
    # real clock): moved while the bot is down, read at its start.
    proc.kill()
    con = sqlite3.connect(db_path, timeout=10)
    with con:
        con.execute("UPDATE day_groups SET next_at=?", (time.time(),))
    con.close()
    proc = await bot_process.again(proc)
    await fake.wait_for(lambda: any("до завтра" in t for t in fake.sent_texts(GROUP)), timeout=30)
    await fake.start_bot(anna, payload_of(opening(fake)))
    await play_moves(fake, anna, 3)
    acknowledged = day_moves(db_path, anna.id)
    proc.kill()
    proc = await bot_process.again(proc)
    assert day_moves(db_path, anna.id)[: len(acknowledged)] == acknowledged
    await play_moves(fake, anna)
    assert count(db_path, "SELECT COUNT(*) FROM day_plays WHERE finished_at IS NOT NULL") == 1
    assert len(day_moves(db_path, anna.id)) == 52 + 4


GROUP_B = -1004950


async def test_who_left_is_not_listed_and_other_groups_only_counted(
    fake: FakeTelegram, clock: FakeClock, db_path: Path, clocked_bot: InProcessBot
) -> None:
    anna, boris = fake.add_user(4931, "Анна"), fake.add_user(4932, "Борис")
    carl = fake.add_user(4933, "Карл")
    fake.add_group(GROUP, "Клуб", members=[anna, boris], admins=[anna])
    fake.add_group(GROUP_B, "Другой клуб", members=[carl], admins=[carl])
    for u in (anna, boris, carl):
        await fake.start_bot(u)
    await fake.send_text(anna, GROUP, "/day on")
    await fake.send_text(carl, GROUP_B, "/day on 10:00")  # an hour after GROUP
    await fake.wait_for(lambda: any("включена" in t for t in fake.sent_texts(GROUP_B)))
    await fake.wait_for(lambda: any("включена" in t for t in fake.sent_texts(GROUP)))
    clock.advance(22 * HOUR)
    await fake.wait_for(lambda: any("до завтра" in t for t in fake.sent_texts(GROUP)))
    clock.advance(1 * HOUR)
    await fake.wait_for(lambda: any("до завтра" in t for t in fake.sent_texts(GROUP_B)))
    # One deal for the date, whichever group.
    assert count(db_path, "SELECT COUNT(DISTINCT date) FROM days") == 1
    link_b = payload_of(
        next(m for m in fake.chat_messages(GROUP_B) if "до завтра" in m.text and m.buttons())
    )
    for user, link, pick in (
        (anna, payload_of(opening(fake)), 0),
        (boris, payload_of(opening(fake)), -1),
        (carl, link_b, -1),
    ):
        await fake.start_bot(user, link)
        await play_moves(fake, user, pick=pick)
    # Carl's link is not Anna's: she is not in his group.
    await fake.start_bot(anna, link_b)
    await fake.wait_for(lambda: "недоступна" in fake.sent_texts(anna.id)[-1])
    fake.remove_member(GROUP, boris)
    clock.advance(23 * HOUR)  # GROUP's close at 09:00; GROUP_B's day goes on to 10:00
    await fake.wait_for(lambda: any("Итоги сдачи дня" in t for t in fake.sent_texts(GROUP)))
    close = next(m for m in fake.chat_messages(GROUP) if "Итоги сдачи дня" in m.text)
    # The best line shows every hand of the deal: not while another group plays it.
    early = await (await fake.press_button(anna, close, text_contains="Лучшая")).answer()
    assert "во всех группах" in early["text"]
    assert not any("Сдача 1" in t for t in fake.sent_texts(anna.id)[-1:])
    clock.advance(1 * HOUR)
    await fake.wait_for(lambda: any("Итоги сдачи дня" in t for t in fake.sent_texts(GROUP_B)))
    await (await fake.press_button(anna, close, text_contains="Лучшая")).answer()
    await fake.wait_for(lambda: "Сдача 1" in fake.sent_texts(anna.id)[-1])
    assert "Анна" in close.text and "сравнение 0" in close.text
    assert "Борис" not in close.text and "Карл" not in close.text
    scores = dict(rows(db_path, "SELECT user_id, score FROM day_plays"))
    mine = scores[anna.id]
    others = [s for u, s in scores.items() if u != anna.id]
    share = (sum(s < mine for s in others) + sum(s == mine for s in others) / 2) / len(others)
    assert f"лучше, чем у {round(100 * share)} % сыгравших" in close.text


SUPERGROUP = -1001234004949


async def test_who_turns_it_on_and_off(
    fake: FakeTelegram, clock: FakeClock, db_path: Path, clocked_bot: InProcessBot
) -> None:
    """An admin (also anonymously, as the group) or the creator of the
    group's first table: nobody else; the hour moves with ``/day 10:00``."""
    anna, boris, vera = (
        fake.add_user(4941, "Анна"),
        fake.add_user(4942, "Борис"),
        fake.add_user(4943, "Вера"),
    )
    fake.add_group(SUPERGROUP, "Клуб", members=[anna, boris, vera], admins=[anna], supergroup=True)
    for u in (anna, boris, vera):
        await fake.start_bot(u)

    def last() -> str:
        return fake.sent_texts(SUPERGROUP)[-1] if fake.sent_texts(SUPERGROUP) else ""

    await fake.send_text(boris, SUPERGROUP, "/day on")
    await fake.wait_for(lambda: "админы группы" in last())
    await fake.send_text(boris, SUPERGROUP, "/newgame")  # Boris opens the group's first table
    await fake.wait_for(lambda: "Новый стол" in last())
    await fake.send_text(boris, SUPERGROUP, "/day on 10:00")
    await fake.wait_for(lambda: "включена: каждый день в 10:00" in last())
    await fake.send_text(vera, SUPERGROUP, "/day off")
    await fake.wait_for(lambda: "админы группы" in last())
    await fake.send_text(vera, SUPERGROUP, "/day")
    await fake.wait_for(lambda: "открывается в 10:00" in last())
    await fake.send_as_group(anna, SUPERGROUP, "/day off")
    await fake.wait_for(lambda: "выключена" in last())
    await fake.send_text(anna, SUPERGROUP, "/day sometime")
    await fake.wait_for(lambda: "/day 10:00 — час открытия" in last())
    # Off: no day opens at its hour.
    clock.advance(26 * HOUR)
    await fake.wait_idle(quiet=0.1)
    assert count(db_path, "SELECT COUNT(*) FROM days") == 0


async def test_the_day_follows_the_group_to_its_supergroup(
    fake: FakeTelegram, clock: FakeClock, db_path: Path, clocked_bot: InProcessBot
) -> None:
    anna = fake.add_user(4951, "Анна")
    fake.add_group(-4949, "Клуб", members=[anna], admins=[anna])
    await fake.start_bot(anna)
    await fake.send_text(anna, -4949, "/day on")
    await fake.wait_for(lambda: any("включена" in t for t in fake.sent_texts(-4949)))
    new = fake.migrate_group(-4949)
    await fake.wait_idle(quiet=0.1)
    clock.advance(22 * HOUR)
    await fake.wait_for(lambda: any("до завтра" in t for t in fake.sent_texts(new)))
    assert rows(db_path, "SELECT chat_id FROM days") == [(new,)]


async def test_the_same_play_meets_the_same_computer(
    fake: FakeTelegram, clock: FakeClock, db_path: Path, clocked_bot: InProcessBot
) -> None:
    """Two people pressing the same bids and cards meet the same computer moves
    (each decided once, stored by the moves before it) and the same score."""
    anna, boris = fake.add_user(4961, "Анна"), fake.add_user(4962, "Борис")
    fake.add_group(GROUP, "Клуб", members=[anna, boris], admins=[anna])
    for u in (anna, boris):
        await fake.start_bot(u)
    await fake.send_text(anna, GROUP, "/day on")
    await fake.wait_for(lambda: any("включена" in t for t in fake.sent_texts(GROUP)))
    clock.advance(22 * HOUR)
    await fake.wait_for(lambda: any("до завтра" in t for t in fake.sent_texts(GROUP)))
    for user in (anna, boris):
        await fake.start_bot(user, payload_of(opening(fake)))
        await play_moves(fake, user)
    assert day_moves(db_path, anna.id) == day_moves(db_path, boris.id)
    scores = rows(db_path, "SELECT score FROM day_plays")
    assert len(scores) == 2 and scores[0] == scores[1]
    # Each computer decision was made once: one stored per point of the play.
    assert count(db_path, "SELECT COUNT(*) FROM day_decisions") == 52 + 4 - 13 - 1
