"""Longer stories tests start from, written once (the shorter ones, a table
opened, moves played, /forget_me done, are in harness.py).

- A game played to a chosen point, with new games at the same table when one
  ends without reaching it (``play_to``).
- «Остальные мои»: four people at a table (``four_people``), play to the
  first claim the engine does not prove (``to_first_claim``) or to one it
  proves (``to_proved_claim``), the claim made (``claim``), the vote open
  (``open_vote``), a voter's answer (``press_answer``), and what a test reads
  of it: the game as the database holds it, the question a voter holds, the
  claim's rows and its message in the group.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from fake_telegram import FakeMessage, FakeTelegram, FakeUser
from harness import Table, count, open_table, play_moves

from engine import Game
from engine.claim import check_claim
from engine.rules import Rules

T = TypeVar("T")

#: Seconds for what follows a claim (the engine's check runs first: a search
#: of its own, slower on a busy machine).
CHECK = 60
#: Games dealt, at most, until one reaches the point a test plays to (about
#: one game in 120 offers one person alone against the computer no claim the
#: engine proves).
GAMES_TRIED = 5


# ------------------------------------------------------------ play to a point


async def play_to(table: Table, found: Callable[[], T | None], what: str) -> T:
    """Play until ``found()`` gives something, and return it. A game that
    ends without it is followed by another at the same table, up to
    ``GAMES_TRIED`` games (``what`` names the point for the failure)."""
    for _ in range(GAMES_TRIED):
        await play_moves(table, lambda: found() is not None or table.game_over())
        hit = found()
        if hit is not None:
            return hit
        assert table.game_over()
        await table.fake.wait_idle(quiet=0.1)
        await open_table(table.fake, table.group, table.users)
    raise AssertionError(f"{GAMES_TRIED} games without {what}")


# ------------------------------------------------------------ what tests read


def game_of(db: Path) -> Game:
    """The latest game as the database holds it: what only the engine may know."""
    con = sqlite3.connect(db)
    try:
        seed, rules_json, dealer, game_id = con.execute(
            "SELECT seed, rules_json, first_dealer, game_id FROM games ORDER BY game_id DESC"
        ).fetchone()
        acts = [
            a
            for (a,) in con.execute(
                "SELECT action FROM actions WHERE game_id=? ORDER BY seq", (game_id,)
            )
        ]
    finally:
        con.close()
    return Game.replay(Rules.from_json(json.loads(rules_json)), seed, acts, dealer)


def n_actions(db: Path) -> int:
    """Actions recorded, of every game."""
    return count(db, "SELECT COUNT(*) FROM actions")


def button_data(msg: FakeMessage, prefix: str) -> str | None:
    """The data of the message's first button whose data starts with ``prefix``."""
    return next((b.value for b in msg.buttons() if (b.value or "").startswith(prefix)), None)


def first_text(m: FakeMessage) -> str:
    """The message's text as first sent (before any edit)."""
    return m.history[0].text if m.history else m.text


# ------------------------------------------------------------ «Остальные мои»


async def four_people(
    fake: FakeTelegram, group: int, daily: bool = True
) -> tuple[Table, list[FakeUser]]:
    """Four people at a table in ``group``, the game started; ``daily``: 24 h
    a move (so a test on the real clock, however slow the machine, never
    meets the move's deadline), else a minute."""
    users = [
        fake.add_user(4201, "Анна"),
        fake.add_user(4202, "Борис"),
        fake.add_user(4203, "Вика"),
        fake.add_user(4204, "Глеб"),
    ]
    seats = ["Восток", "Юг", "Запад"]
    table = await open_table(fake, group, users, seats=seats, daily=daily, timeout=CHECK)
    return table, users


def other_side(users: list[FakeUser], claimer: FakeUser) -> tuple[int, list[FakeUser]]:
    """The claimer's seat, and the two people of the other side: the voters."""
    seat = users.index(claimer)
    return seat, [users[(seat + 1) % 4], users[(seat + 3) % 4]]


def claim_offer(fake: FakeTelegram, users: list[FakeUser]) -> tuple[FakeUser, FakeMessage] | None:
    """Whose hand offers «Остальные мои» now, with that message."""
    for u in users:
        for m in reversed(fake.chat_messages(u.id)):
            if button_data(m, "m:") or button_data(m, "cl:"):
                if button_data(m, "cl:"):
                    return u, m
                break
    return None


def current_offer(
    fake: FakeTelegram, db: Path, users: list[FakeUser]
) -> tuple[FakeUser, FakeMessage, bool] | None:
    """Whose hand offers «Остальные мои» on the game as it stands (not a move
    behind it), that message, and whether the engine proves the claim."""
    found = claim_offer(fake, users)
    if found is None:
        return None
    g = game_of(db)
    offered_at = int((button_data(found[1], "cl:") or "").split(":")[2])
    if offered_at != len(g.actions):
        return None
    return found[0], found[1], check_claim(g, g.to_move).holds is True


def proved_offer(fake: FakeTelegram, db: Path, user: FakeUser) -> FakeMessage | None:
    """The user's hand offering «Остальные мои» where the engine proves the claim."""
    found = current_offer(fake, db, [user])
    return found[1] if found is not None and found[2] else None


async def to_proved_claim(
    table: Table, db: Path, user: FakeUser, watch: Callable[[], object] = lambda: None
) -> FakeMessage:
    """Play to a turn of the user's whose hand offers a claim the engine
    proves: that hand's message (``watch()`` runs at every look on the way).
    The user plays alone against the computer; now and then a whole game
    passes without such a turn, and a new one is dealt (``play_to``)."""

    def proved() -> FakeMessage | None:
        watch()
        return proved_offer(table.fake, db, user)

    return await play_to(table, proved, "a claim the engine proves")


async def to_first_claim(
    fake: FakeTelegram, table: Table, users: list[FakeUser], db: Path
) -> tuple[FakeUser, FakeMessage]:
    """Bid, and play to the first turn whose hand offers a claim the engine
    does not prove: one that goes to the other side. Usually the first lead;
    now and then a deal proves the leader's side takes all thirteen (the
    claim would end the hand at once), and play goes on to the next offer."""
    checked: dict[int, tuple[FakeUser, FakeMessage, bool] | None] = {}

    def unproved() -> tuple[FakeUser, FakeMessage] | None:
        # One engine check per position: the predicate is polled often.
        key = n_actions(db)
        if key not in checked or checked[key] is None:
            checked[key] = current_offer(fake, db, users)
        found = checked[key]
        return None if found is None or found[2] else (found[0], found[1])

    await play_moves(table, lambda: unproved() is not None)
    found = unproved()
    assert found is not None
    return found


async def claim(fake: FakeTelegram, user: FakeUser, msg: FakeMessage) -> dict[str, Any]:
    """The user presses «Остальные мои» on their hand ``msg``: the press's
    answer, once the engine's check is done."""
    data = button_data(msg, "cl:")
    assert data is not None
    return await (await fake.press(user, user.id, msg.message_id, data)).answer(timeout=CHECK)


def question(fake: FakeTelegram, user: FakeUser) -> FakeMessage | None:
    """The user's latest private question about a claim."""
    marks = (
        "заявляет, что возьмёт",
        "вы согласились закончить сдачу",
        "«Остальные мои» — голосование закрыто",
    )
    return next(
        (m for m in reversed(fake.chat_messages(user.id)) if any(k in m.text for k in marks)),
        None,
    )


async def asked(fake: FakeTelegram, voter: FakeUser) -> FakeMessage:
    """Wait until the voter holds the claim's question with its buttons: that message."""
    return await fake.wait_for(
        lambda: q if (q := question(fake, voter)) is not None and button_data(q, "cv:") else None,
        timeout=CHECK,
    )


async def open_vote(
    fake: FakeTelegram, claimer: FakeUser, hand: FakeMessage, voters: list[FakeUser]
) -> None:
    """Claim, and wait until every voter holds the question with its buttons."""
    await claim(fake, claimer, hand)
    for u in voters:
        await asked(fake, u)


async def press_answer(fake: FakeTelegram, user: FakeUser, label: str) -> dict[str, Any]:
    """Press the voter's button labelled ``label``: the press's answer."""
    q = question(fake, user)
    assert q is not None
    data = next(b.value for b in q.buttons() if label in b.text)
    return await (await fake.press(user, user.id, q.message_id, data)).answer(timeout=CHECK)


def claim_rows(db: Path) -> list[tuple[str, float | None]]:
    """Every claim's status and the time it left its claimer, oldest first."""
    con = sqlite3.connect(db)
    try:
        return [
            (str(st), t)
            for st, t in con.execute("SELECT status, time_left FROM claims ORDER BY rowid")
        ]
    finally:
        con.close()


def claim_message(fake: FakeTelegram, group: int) -> FakeMessage:
    """The group's latest claim message put to the vote, as it stands now."""
    found = [m for m in fake.chat_messages(group) if "решают соперники" in first_text(m)]
    assert found, "no claim put to the vote in the group"
    return found[-1]


async def play_goes_on(fake: FakeTelegram, db: Path, claimer: FakeUser, voter: FakeUser) -> None:
    """The claim refused: the claimer's hand offers cards again, without the
    vote's line, and the voter's question is closed (no cards, no buttons)."""
    await fake.wait_for(lambda: claim_rows(db)[0][0] == "refused", timeout=CHECK)
    await fake.wait_for(
        lambda: (
            button_data(fake.last_message(claimer.id), "m:") is not None
            and "Вы сказали «Остальные мои»" not in fake.last_message(claimer.id).text
        ),
        timeout=CHECK,
    )
    await fake.wait_for(lambda: "закрыто" in question(fake, voter).text, timeout=CHECK)
    assert not question(fake, voter).buttons()
