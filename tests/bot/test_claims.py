"""«Остальные мои» through the buttons, as people use it: a claim the engine
proves ends the hand; one it does not goes to the other side's vote in
private (accepted, refused, out of time, across a restart); a computer among
them refuses; the group sees the claimer's cards once the claim ends the
hand, and nothing more (tests/attacks/test_claim_secrecy.py: who sees them
while the vote is open)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from bot_processes import BotProcesses
from fake_telegram import FakeTelegram
from fake_telegram.models import FakeMessage, FakeUser
from fluent.runtime import FluentBundle, FluentResource
from harness import (
    MakeBot,
    action_of,
    forget_me,
    open_table,
    play_moves,
)
from scenarios import (
    CHECK,
    asked,
    button_data,
    claim,
    claim_message,
    claim_offer,
    claim_rows,
    four_people,
    game_of,
    n_actions,
    open_vote,
    other_side,
    play_goes_on,
    press_answer,
    question,
    to_first_claim,
    to_proved_claim,
)
from webapp_kit import FIRST_EVENT, Page, Stream, app_page, app_settings, signed_page

from bot.clock import FakeClock
from bot.views.common import cards_line
from engine import CLAIM
from engine.cards import SUIT_SYMBOLS
from engine.claim import check_claim, tricks_left

GROUP = -1004242
PACE = 60


def has_card(text: str) -> bool:
    return any(s in text for s in SUIT_SYMBOLS)


async def a_card_plays_after_refusals(
    fake: FakeTelegram,
    page: Page,
    state: dict[str, Any],
    db: Path,
    before: list[tuple[int, int, int]],
) -> None:
    """The refused requests changed no action, and the real card still plays
    from the page."""
    await fake.wait_idle(quiet=0.05)
    assert game_actions(db) == before
    status, _ = await page.move(state, state["playable"][0])
    assert status == 200
    assert len(game_actions(db)) == len(before) + 1


async def test_unproved_claim_goes_to_the_opponents_and_is_accepted(
    fake: FakeTelegram, make_bot: MakeBot, db_path: Path
) -> None:
    await make_bot()
    table, users = await four_people(fake, GROUP)
    claimer, hand = await to_first_claim(fake, table, users, db_path)
    g = game_of(db_path)
    seat = users.index(claimer)
    assert g.to_move == seat and tricks_left(g) == 13
    assert check_claim(g, seat).holds is not True
    mine = cards_line(g.hand_cards(seat))
    partner = users[(seat + 2) % 4]
    others = [users[(seat + 1) % 4], users[(seat + 3) % 4]]
    before = len(fake.sent_texts(GROUP))
    moves = n_actions(db_path)

    assert (await claim(fake, claimer, hand))["text"] is None
    note = await fake.wait_for(
        lambda: next((t for t in fake.sent_texts(GROUP)[before:] if "Остальные мои" in t), None),
        timeout=CHECK,
    )
    # Who decides, and no cards: the partner reads the group too.
    assert mine not in note and not has_card(note) and "решают соперники" in note
    for u in others:
        await asked(fake, u)
        assert mine in question(fake, u).text
    assert question(fake, partner) is None  # the partner is not asked
    # Meanwhile no card is played: the claimer is told why.
    hand = fake.last_message(claimer.id)
    await fake.wait_for(
        lambda: "Вы сказали «Остальные мои»" in fake.last_message(claimer.id).text, timeout=CHECK
    )
    hand = fake.last_message(claimer.id)
    assert button_data(hand, "cl:") is None
    card = button_data(hand, "m:")
    assert card is not None
    refused = await (await fake.press(claimer, claimer.id, hand.message_id, card)).answer(
        timeout=CHECK
    )
    assert "голосование" in refused["text"]
    # The partner cannot vote, even forging the button in their own chat.
    forged = await (
        await fake.press_raw(
            partner,
            partner.id,
            fake.last_message(partner.id).message_id,
            next(
                b.value for b in question(fake, others[0]).buttons() if "Да, заканчиваем" in b.text
            ),
        )
    ).answer(timeout=CHECK)
    assert "устарела" in forged["text"]

    first = question(fake, others[0])
    accept = next(b.value for b in first.buttons() if "Да, заканчиваем" in b.text)
    assert (
        await (await fake.press(others[0], others[0].id, first.message_id, accept)).answer(
            timeout=CHECK
        )
    )["text"] is None
    await fake.wait_for(lambda: "вы согласились" in question(fake, others[0]).text, timeout=CHECK)
    # A second press of the same button (it is gone): stale, nothing changes.
    again = await (await fake.press_raw(others[0], others[0].id, first.message_id, accept)).answer(
        timeout=CHECK
    )
    assert "устарела" in again["text"]
    assert n_actions(db_path) == moves

    second = question(fake, others[1])
    accept = next(b.value for b in second.buttons() if "Да, заканчиваем" in b.text)
    await (await fake.press(others[1], others[1].id, second.message_id, accept)).answer(
        timeout=CHECK
    )
    accepted = await fake.wait_for(
        lambda: next((t for t in fake.sent_texts(GROUP) if "Соперники согласились" in t), None),
        timeout=CHECK,
    )
    assert mine in accepted  # the claim ended the hand: now the group sees the cards
    await fake.wait_for(
        lambda: any("сыграна" in t for t in fake.sent_texts(GROUP)[before:]), timeout=CHECK
    )
    after = game_of(db_path)
    assert after.actions[moves] == CLAIM
    assert after.sheet[0]["tricks"][seat] == 13
    # The questions are closed: no cards, no buttons.
    for u in others:
        await fake.wait_for(lambda u=u: "закрыто" in question(fake, u).text, timeout=CHECK)
        assert not has_card(question(fake, u).text) and not question(fake, u).buttons()
    # The group saw the claimer's cards and no other hand.
    group = "\n".join(fake.sent_texts(GROUP)[before:])
    for s in range(4):
        if s != seat:
            assert cards_line(g.hand_cards(s)) not in group


async def test_refusal_lets_play_go_on_and_claims_are_limited(
    fake: FakeTelegram, make_bot: MakeBot, db_path: Path
) -> None:
    await make_bot()
    table, users = await four_people(fake, GROUP)
    claimer, hand = await to_first_claim(fake, table, users, db_path)
    seat = users.index(claimer)
    other = users[(seat + 1) % 4]
    moves = n_actions(db_path)
    before = len(fake.sent_texts(GROUP))
    for attempt in (1, 2):
        await claim(fake, claimer, hand)
        await asked(fake, other)
        q = question(fake, other)
        no = next(b.value for b in q.buttons() if "Играем дальше" in b.text)
        await (await fake.press(other, other.id, q.message_id, no)).answer(timeout=CHECK)
        await fake.wait_for(
            lambda a=attempt: (
                sum("против — играем дальше" in t for t in fake.sent_texts(GROUP)) == a
            ),
            timeout=CHECK,
        )
        refusal = [t for t in fake.sent_texts(GROUP) if "против — играем дальше" in t][-1]
        assert not has_card(refusal)
        await fake.wait_for(
            lambda: "Вы сказали «Остальные мои»" not in fake.last_message(claimer.id).text,
            timeout=CHECK,
        )
        await fake.wait_for(lambda: not button_data(question(fake, other), "cv:"), timeout=CHECK)
        assert not has_card(question(fake, other).text)
        hand = fake.last_message(claimer.id)
    assert n_actions(db_path) == moves
    # Two claims a hand: the button is gone, a forged one is refused.
    assert button_data(hand, "cl:") is None
    forged = await (
        await fake.press_raw(claimer, claimer.id, hand.message_id, f"cl:{1}:{moves}:3")
    ).answer(timeout=CHECK)
    assert "устарела" in forged["text"]
    # Play goes on: the claimer plays a card.
    card = button_data(hand, "m:")
    assert card is not None
    assert (
        await (await fake.press(claimer, claimer.id, hand.message_id, card)).answer(timeout=CHECK)
    )["text"] is None
    await fake.wait_for(lambda: n_actions(db_path) > moves, timeout=CHECK)
    assert sum("Остальные мои" in t for t in fake.sent_texts(GROUP)[before:]) == 2


async def test_no_answer_before_the_deadline_refuses(
    fake: FakeTelegram, make_bot: MakeBot, db_path: Path, clock: FakeClock
) -> None:
    await make_bot(clock=clock)
    table, users = await four_people(fake, GROUP, daily=False)
    claimer, hand = await to_first_claim(fake, table, users, db_path)
    moves = n_actions(db_path)
    await claim(fake, claimer, hand)
    await fake.wait_for(
        lambda: "Вы сказали «Остальные мои»" in fake.last_message(claimer.id).text, timeout=CHECK
    )
    clock.advance(PACE + 1)
    await fake.wait_for(
        lambda: any("Время вышло" in t for t in fake.sent_texts(GROUP)), timeout=CHECK
    )
    # Nobody moved for the claimer: the move is theirs again, with its time anew.
    await fake.wait_for(
        lambda: button_data(fake.last_message(claimer.id), "m:") is not None, timeout=CHECK
    )
    await fake.wait_idle(quiet=0.05)
    assert n_actions(db_path) == moves
    assert not any("время вышло" in t for t in fake.sent_texts(GROUP))  # no timeout move


async def test_a_vote_survives_a_restart(
    fake: FakeTelegram, make_bot: MakeBot, db_path: Path
) -> None:
    first = await make_bot()
    table, users = await four_people(fake, GROUP)
    claimer, hand = await to_first_claim(fake, table, users, db_path)
    seat, others = other_side(users, claimer)
    moves = n_actions(db_path)
    await open_vote(fake, claimer, hand, others)
    await press_answer(fake, others[0], "Да, заканчиваем")
    await fake.wait_for(lambda: "вы согласились" in question(fake, others[0]).text, timeout=CHECK)
    await fake.wait_idle(quiet=0.05)
    await first.stop()

    await make_bot()
    # Still voting after the restart: the claimer's card is refused.
    hand = await fake.wait_for(lambda: fake.last_message(claimer.id), timeout=CHECK)
    card = button_data(hand, "m:")
    assert card is not None
    refused = await (await fake.press(claimer, claimer.id, hand.message_id, card)).answer(
        timeout=CHECK
    )
    assert "голосование" in refused["text"]
    await press_answer(fake, others[1], "Да, заканчиваем")
    await fake.wait_for(
        lambda: any("Соперники согласились" in t for t in fake.sent_texts(GROUP)), timeout=CHECK
    )
    assert game_of(db_path).actions[moves] == CLAIM


async def test_a_computer_opponent_refuses(
    fake: FakeTelegram, make_bot: MakeBot, db_path: Path
) -> None:
    await make_bot()
    anna = fake.add_user(4211, "Анна")
    table = await open_table(fake, GROUP, [anna])
    claimer, hand = await to_first_claim(fake, table, [anna], db_path)
    moves = n_actions(db_path)
    await claim(fake, anna, hand)
    await fake.wait_for(
        lambda: any(
            "Компьютер без доказательства не соглашается" in t for t in fake.sent_texts(GROUP)
        ),
        timeout=CHECK,
    )
    hand = await fake.wait_for(
        lambda: m if button_data(m := fake.last_message(anna.id), "m:") else None, timeout=CHECK
    )
    card = button_data(hand, "m:")
    assert (await (await fake.press(anna, anna.id, hand.message_id, card)).answer(timeout=CHECK))[
        "text"
    ] is None
    await fake.wait_for(lambda: n_actions(db_path) > moves, timeout=CHECK)


async def test_a_proved_claim_ends_the_hand_and_one_trick_left_has_no_button(
    fake: FakeTelegram, make_bot: MakeBot, db_path: Path
) -> None:
    await make_bot()
    anna = fake.add_user(4221, "Анна")
    table = await open_table(fake, GROUP, [anna])
    seen_last_card = {"n": 0}

    def last_card_without_button() -> None:
        m = fake.last_message(anna.id)
        cards = [b for b in m.buttons() if (b.value or "").startswith(("m:", "w:"))]
        if len(cards) == 1 and action_of(cards[0].value) < 52:
            assert button_data(m, "cl:") is None
            seen_last_card["n"] += 1

    hand = await to_proved_claim(table, db_path, anna, watch=last_card_without_button)
    g = game_of(db_path)
    seat = g.to_move
    left, won = tricks_left(g), g.tricks_won[seat]
    before = len(fake.sent_texts(GROUP))
    await claim(fake, anna, hand)
    await fake.wait_for(
        lambda: any("Доказано" in t for t in fake.sent_texts(GROUP)[before:]), timeout=CHECK
    )
    await fake.wait_for(
        lambda: any("сыграна" in t for t in fake.sent_texts(GROUP)[before:]), timeout=CHECK
    )
    after = game_of(db_path)
    assert CLAIM in after.actions
    line = after.sheet[g.hand_no]
    assert line["tricks"][seat] == won + left
    # Play on to a last card of Anna's own: no claim is offered with one trick left.
    await play_moves(table, lambda: (last_card_without_button(), seen_last_card["n"] > 0)[1])


async def test_the_mini_app_refuses_a_card_during_the_vote(
    fake: FakeTelegram, make_bot: MakeBot, db_path: Path
) -> None:
    base, app = app_settings()
    await make_bot(**app)
    table, users = await four_people(fake, GROUP)
    claimer, hand = await to_first_claim(fake, table, users, db_path)
    page, table_id = app_page(fake, base, claimer)
    status, state = await page.state(table_id)
    assert status == 200 and state["my_turn"]
    moves = n_actions(db_path)
    await claim(fake, claimer, hand)
    await fake.wait_for(
        lambda: "Вы сказали «Остальные мои»" in fake.last_message(claimer.id).text, timeout=CHECK
    )
    status, answer = await page.move(state, state["playable"][0])
    assert (status, answer["error"]) == (409, "err-claim-voting")
    assert "голосование" in answer["text"]
    assert n_actions(db_path) == moves


@pytest.mark.parametrize(
    ("n", "word"), [(2, "взятки"), (5, "взяток"), (11, "взяток"), (13, "взяток"), (21, "взятка")]
)
def test_the_claim_line_declines_tricks(n: int, word: str) -> None:
    b = FluentBundle(["ru"], use_isolating=False)
    for path in sorted((Path(__file__).resolve().parents[2] / "locales" / "ru").glob("*.ftl")):
        b.add_resource(FluentResource(path.read_text(encoding="utf-8")))
    text, errors = b.format_pattern(
        b.get_message("claim-made").value,
        {"name": "Анна", "whose": "side", "left": n, "cards": "♠ A"},
    )
    assert not errors
    assert text == f"🙌 Анна: «Остальные мои» (вместе с партнёром) — {n} {word}. Карты: ♠ A"


@pytest.mark.slow
async def test_a_vote_survives_kill_9(
    fake: FakeTelegram, bot_process: BotProcesses, db_path: Path
) -> None:
    """Killed right after the claim was answered, and again right after the
    first acceptance: each press the bot answered stands, none counts twice."""
    db = db_path
    proc = await bot_process()
    table, users = await four_people(fake, GROUP)
    claimer, hand = await to_first_claim(fake, table, users, db)
    seat, others = other_side(users, claimer)
    moves = n_actions(db)
    assert (await claim(fake, claimer, hand))["text"] is None
    proc.kill()
    proc = await bot_process.again(proc)
    for u in others:
        await asked(fake, u)
    assert (await press_answer(fake, others[0], "Да, заканчиваем"))["text"] is None
    proc.kill()
    proc = await bot_process.again(proc)
    await fake.wait_for(
        lambda: any("Вы сказали «Остальные мои»" in m.text for m in fake.chat_messages(claimer.id)),
        timeout=CHECK,
    )
    await press_answer(fake, others[1], "Да, заканчиваем")
    await fake.wait_for(
        lambda: any("Соперники согласились" in t for t in fake.sent_texts(GROUP)),
        timeout=CHECK,
    )
    await fake.wait_idle(quiet=0.1)
    err = proc.stop()
    assert "Traceback" not in err, err
    assert game_of(db).actions[moves] == CLAIM
    # One claim, accepted by both (the outbox sends at least once: a message
    # the kill caught between Telegram and its mark may come twice, the same).
    con = sqlite3.connect(db)
    try:
        assert con.execute("SELECT status FROM claims").fetchall() == [("accepted",)]
        assert con.execute("SELECT COUNT(*) FROM claim_votes").fetchone()[0] == 2
    finally:
        con.close()
    # One claim: its vote's note (no cards) and the note that ended the hand.
    notes = {t for t in fake.sent_texts(GROUP) if "Остальные мои" in t}
    assert len(notes) == 2
    assert sum("решают соперники" in t for t in notes) == 1
    assert sum("Соперники согласились" in t for t in notes) == 1


async def test_with_a_nil_on_the_side_the_claim_is_the_claimers_alone(
    fake: FakeTelegram, make_bot: MakeBot, db_path: Path
) -> None:
    await make_bot()
    table, users = await four_people(fake, GROUP)

    def nil_bids(user: FakeUser, msg: FakeMessage, moves: list[str], looks: list[str]) -> str:
        nil = [m for m in moves if action_of(m) == 52]
        return nil[0] if nil else moves[0]

    await play_moves(table, lambda: claim_offer(fake, users) is not None, choose=nil_bids)
    found = claim_offer(fake, users)
    assert found is not None
    claimer, hand = found
    seat, others = other_side(users, claimer)
    assert game_of(db_path).bids == [0, 0, 0, 0]
    before = len(fake.sent_texts(GROUP))
    await claim(fake, claimer, hand)
    note = await fake.wait_for(
        lambda: next((t for t in fake.sent_texts(GROUP)[before:] if "Остальные мои" in t), None),
        timeout=CHECK,
    )
    assert "вместе с партнёром" not in note and "13 взяток" in note
    for u in others:
        await asked(fake, u)
        await press_answer(fake, u, "Да, заканчиваем")
    await fake.wait_for(
        lambda: any("сыграна" in t for t in fake.sent_texts(GROUP)[before:]), timeout=CHECK
    )
    line = game_of(db_path).sheet[0]
    # Every trick the claimer's: the partner's nil is made, the claimer's lost.
    assert line["tricks"][seat] == 13 and line["tricks"][(seat + 2) % 4] == 0


# ------------------------------------------------------- the review's defects


def game_actions(db: Path) -> list[tuple[int, int, int]]:
    """Every recorded action of the latest game: (seq, seat, action)."""
    con = sqlite3.connect(db)
    try:
        return [
            (int(q), int(s), int(a))
            for q, s, a in con.execute(
                "SELECT seq, seat, action FROM actions WHERE game_id="
                "(SELECT MAX(game_id) FROM games) ORDER BY seq"
            )
        ]
    finally:
        con.close()


def deadline(db: Path) -> tuple[int, int, float]:
    """The running deadline: (move, seat, due)."""
    con = sqlite3.connect(db)
    try:
        seq, seat, due = con.execute("SELECT seq, seat, due_at FROM deadlines").fetchone()
    finally:
        con.close()
    return int(seq), int(seat), float(due)


async def test_forged_moves_are_refused_and_change_nothing(
    fake: FakeTelegram, make_bot: MakeBot, db_path: Path
) -> None:
    """A card button's data, or the Mini App's move, carrying the claim (71)
    or no legal action at all: a short answer in Russian, nothing recorded."""
    base, app = app_settings()
    await make_bot(**app)
    table, users = await four_people(fake, GROUP)
    claimer, hand = await to_first_claim(fake, table, users, db_path)
    card = button_data(hand, "m:")
    assert card is not None
    t, s, _ = card.split(":")[1:]
    before = game_actions(db_path)
    forged = (CLAIM, 72, 999, -1, 52, 70)
    # On the hand's own message the data is not one of its buttons: stale.
    for action in forged:
        press = await fake.press_raw(claimer, claimer.id, hand.message_id, f"m:{t}:{s}:{action}")
        assert (await press.answer(timeout=CHECK))["text"] == "Эта кнопка устарела."
    # On a message Telegram no longer shows (nothing to check it against) the
    # engine refuses it.
    answers = {}
    for action in forged:
        press = await fake.press_raw(claimer, claimer.id, 10**6, f"m:{t}:{s}:{action}")
        answers[action] = (await press.answer(timeout=CHECK))["text"]
    assert "это кнопка 🙌, а не ход" in answers[CLAIM]
    for action in (72, 999, -1):
        assert answers[action] == "Такого хода нет."
    for action in (52, 70):  # a bid, blind nil: not while cards are played
        text = answers[action]
        assert text and len(text) < 120 and any("а" <= ch <= "я" for ch in text.lower())
    await fake.wait_idle(quiet=0.05)
    assert game_actions(db_path) == before
    assert claim_rows(db_path) == []

    page, table_id = app_page(fake, base, claimer)
    status, state = await page.state(table_id)
    assert status == 200 and state["my_turn"]
    # The app's server takes only bids and cards (0..BLIND): anything else,
    # a claim too, is refused before it reaches a service.
    for action in (CLAIM, 72, 10**6, -5):
        status, answer = await page.move(state, action)
        assert (status, answer["error"]) == (400, "webapp-err-request")
    status, answer = await page.move(state, 52)
    assert status == 409 and answer["error"] == "err-wrong_phase"
    await a_card_plays_after_refusals(fake, page, state, db_path, before)
    assert claim_rows(db_path) == []


async def test_a_refused_claim_shows_its_cards_no_more(
    fake: FakeTelegram, make_bot: MakeBot, db_path: Path
) -> None:
    """While the claim stands the voters see the claimer's cards, the group
    never; once play goes on the group's claim message says so and every
    question (accepted or not) shows neither cards nor buttons."""
    await make_bot()
    table, users = await four_people(fake, GROUP)
    claimer, hand = await to_first_claim(fake, table, users, db_path)
    seat, others = other_side(users, claimer)
    mine = cards_line(game_of(db_path).hand_cards(seat))
    await open_vote(fake, claimer, hand, others)
    await fake.wait_idle(quiet=0.05)
    assert mine not in claim_message(fake, GROUP).text and not has_card(
        claim_message(fake, GROUP).text
    )
    assert all(mine in question(fake, u).text for u in others)
    await press_answer(fake, others[0], "Да, заканчиваем")
    await fake.wait_for(lambda: "вы согласились" in question(fake, others[0]).text, timeout=CHECK)
    assert not has_card(question(fake, others[0]).text)
    await press_answer(fake, others[1], "Играем дальше")
    await fake.wait_for(
        lambda: "«Остальные мои» не приняли" in claim_message(fake, GROUP).text, timeout=CHECK
    )
    note = claim_message(fake, GROUP)
    assert not has_card(note.text) and "13 взяток" in note.text and not note.buttons()
    for u in others:
        await fake.wait_for(lambda u=u: "закрыто" in question(fake, u).text, timeout=CHECK)
        q = question(fake, u)
        assert not has_card(q.text) and not q.buttons()
    # Nowhere in the group does the claimer's hand stay shown.
    assert not any(mine in m.text for m in fake.chat_messages(GROUP))
    assert claim_rows(db_path)[0][0] == "refused"


async def test_the_vote_has_its_own_deadline_and_gives_the_claimers_time_back(
    fake: FakeTelegram, make_bot: MakeBot, db_path: Path, clock: FakeClock
) -> None:
    await make_bot(clock=clock)
    table, users = await four_people(fake, GROUP, daily=False)
    claimer, hand = await to_first_claim(fake, table, users, db_path)
    seat, others = other_side(users, claimer)
    moves = n_actions(db_path)
    _, _, due = deadline(db_path)
    clock.advance(due - clock.now() - 15)  # 15 s left on the move
    await fake.wait_idle(quiet=0.05)
    await open_vote(fake, claimer, hand, others)
    await fake.wait_idle(quiet=0.05)
    # The vote's deadline is a move's time from the claim, the claimer's 15 s kept.
    assert deadline(db_path) == (moves, seat, clock.now() + PACE)
    assert claim_rows(db_path) == [("vote", 15.0)]
    clock.advance(PACE - 5)  # long past the move's own deadline, not the vote's
    await fake.wait_idle(quiet=0.1)
    assert not any("Время вышло" in t for t in fake.sent_texts(GROUP))
    assert n_actions(db_path) == moves
    await press_answer(fake, others[0], "Играем дальше")
    await fake.wait_for(lambda: claim_rows(db_path)[0][0] == "refused", timeout=CHECK)
    await fake.wait_idle(quiet=0.05)
    # Play goes on with the 15 s the claimer had left, not a minute anew.
    assert deadline(db_path) == (moves, seat, clock.now() + 15)
    clock.advance(14)
    await fake.wait_idle(quiet=0.1)
    assert n_actions(db_path) == moves
    clock.advance(2)
    await fake.wait_for(lambda: n_actions(db_path) == moves + 1, timeout=CHECK)
    await fake.wait_for(
        lambda: any("время вышло" in t and claimer.first_name in t for t in fake.sent_texts(GROUP)),
        timeout=CHECK,
    )


async def test_the_votes_deadline_and_the_time_left_survive_a_restart(
    fake: FakeTelegram, make_bot: MakeBot, db_path: Path, clock: FakeClock
) -> None:
    first = await make_bot(clock=clock)
    table, users = await four_people(fake, GROUP, daily=False)
    claimer, hand = await to_first_claim(fake, table, users, db_path)
    seat, others = other_side(users, claimer)
    moves = n_actions(db_path)
    _, _, due = deadline(db_path)
    clock.advance(due - clock.now() - 25)
    await fake.wait_idle(quiet=0.05)
    await open_vote(fake, claimer, hand, others)
    await fake.wait_idle(quiet=0.05)
    vote_due = clock.now() + PACE
    assert deadline(db_path) == (moves, seat, vote_due)
    await first.stop()

    await make_bot(clock=clock)
    await fake.wait_idle(quiet=0.1)
    assert deadline(db_path)[2] == vote_due  # no downtime on this clock
    clock.advance(PACE + 1)
    await fake.wait_for(
        lambda: any("Время вышло" in t for t in fake.sent_texts(GROUP)), timeout=CHECK
    )
    await fake.wait_for(lambda: claim_rows(db_path) == [("expired", 25.0)], timeout=CHECK)
    await fake.wait_idle(quiet=0.05)
    assert deadline(db_path) == (moves, seat, clock.now() + 25)
    assert n_actions(db_path) == moves
    # The claim message says so once the vote expired, without cards still.
    await fake.wait_for(
        lambda: "«Остальные мои» не приняли" in claim_message(fake, GROUP).text, timeout=CHECK
    )
    assert not has_card(claim_message(fake, GROUP).text)


async def test_a_voter_who_blocked_the_bot_refuses_at_once(
    fake: FakeTelegram, make_bot: MakeBot, db_path: Path
) -> None:
    """Blocked before the claim: the claim is refused on the spot, nobody is
    asked, and its cards are not shown."""
    await make_bot()
    table, users = await four_people(fake, GROUP)
    claimer, hand = await to_first_claim(fake, table, users, db_path)
    seat, others = other_side(users, claimer)
    mine = cards_line(game_of(db_path).hand_cards(seat))
    moves = n_actions(db_path)
    fake.block_bot(others[1])
    await fake.wait_for(
        lambda: any("не может получать карты" in t for t in fake.sent_texts(GROUP)),
        timeout=CHECK,
    )
    before = len(fake.sent_texts(GROUP))
    await claim(fake, claimer, hand)
    note = await fake.wait_for(
        lambda: next(
            (t for t in fake.sent_texts(GROUP)[before:] if "не может ответить" in t), None
        ),
        timeout=CHECK,
    )
    assert others[1].first_name in note and mine not in note and not has_card(note)
    await fake.wait_idle(quiet=0.05)
    assert question(fake, others[0]) is None  # nobody was asked
    assert claim_rows(db_path)[0][0] == "refused"
    assert "Вы сказали «Остальные мои»" not in fake.last_message(claimer.id).text
    assert n_actions(db_path) == moves


async def test_a_voter_who_blocks_the_bot_during_the_vote_refuses(
    fake: FakeTelegram, make_bot: MakeBot, db_path: Path
) -> None:
    """Blocked while the question waits: the vote ends at once, not at its deadline."""
    await make_bot()
    table, users = await four_people(fake, GROUP)
    claimer, hand = await to_first_claim(fake, table, users, db_path)
    seat, others = other_side(users, claimer)
    moves = n_actions(db_path)
    await open_vote(fake, claimer, hand, others)
    fake.block_bot(others[0])
    await fake.wait_for(
        lambda: any("не может ответить" in t for t in fake.sent_texts(GROUP)), timeout=CHECK
    )
    await play_goes_on(fake, db_path, claimer, others[1])
    assert n_actions(db_path) == moves


@pytest.mark.parametrize("how", ["leave", "forget_me"])
async def test_a_voter_whose_seat_passes_to_the_computer_refuses(
    fake: FakeTelegram, make_bot: MakeBot, db_path: Path, how: str
) -> None:
    """A voter hands their seat to the computer during the vote (/leave,
    /forget_me): a computer refuses, so the vote ends at once rather than at
    its deadline, hours away in a game by the day."""
    await make_bot()
    table, users = await four_people(fake, GROUP)
    claimer, hand = await to_first_claim(fake, table, users, db_path)
    seat, others = other_side(users, claimer)
    moves = n_actions(db_path)
    await open_vote(fake, claimer, hand, others)
    await press_answer(fake, others[1], "Да, заканчиваем")  # an answer given stands
    await fake.wait_for(lambda: "согласились" in question(fake, others[1]).text, timeout=CHECK)
    assert claim_rows(db_path)[0][0] == "vote"
    if how == "leave":
        await fake.send_text(others[0], GROUP, "/leave")
    else:
        await forget_me(fake, others[0])
    note = await fake.wait_for(
        lambda: next(
            (t for t in fake.sent_texts(GROUP) if "теперь это место за компьютером" in t), None
        ),
        timeout=CHECK,
    )
    assert (others[0].first_name in note) == (how == "leave")
    await play_goes_on(fake, db_path, claimer, others[1])
    assert n_actions(db_path) == moves


def reminded(fake: FakeTelegram, user: FakeUser) -> bool:
    return any("ждём вашего ответа на «Остальные мои»" in t for t in fake.sent_texts(user.id))


def away(db: Path, seat: int) -> bool:
    """The seat is the computer's for now (the group's answer waits for the
    group's pace, which this test's clock holds)."""
    con = sqlite3.connect(db)
    try:
        rows = con.execute(
            "SELECT away FROM seats WHERE seat=? AND table_id=(SELECT MAX(table_id) FROM seats)",
            (seat,),
        ).fetchall()
    finally:
        con.close()
    return bool(rows and rows[0][0])


async def test_the_vote_keeps_its_deadline_whoever_leaves_or_comes_back(
    fake: FakeTelegram, make_bot: MakeBot, db_path: Path, clock: FakeClock
) -> None:
    """The claimer steps away and comes back during the vote: the vote's
    deadline stays where it was, the computer at the claimer's seat waits
    for the vote, the voters who have not answered are reminded before the
    deadline, and once a voter refuses the computer plays the claimer's move."""
    await make_bot(clock=clock)
    table, users = await four_people(fake, GROUP, daily=False)
    claimer, hand = await to_first_claim(fake, table, users, db_path)
    seat, others = other_side(users, claimer)
    moves = n_actions(db_path)
    await open_vote(fake, claimer, hand, others)
    await fake.wait_idle(quiet=0.05)
    vote = deadline(db_path)
    assert vote == (moves, seat, clock.now() + PACE)
    clock.advance(10)  # past a mover's early ping: voters were just asked
    await fake.wait_idle(quiet=0.1)
    assert not any(reminded(fake, u) for u in others)

    await fake.send_text(claimer, GROUP, "/leave")
    await fake.wait_for(lambda: away(db_path, seat), timeout=CHECK)
    await fake.wait_idle(quiet=0.2)
    assert deadline(db_path) == vote and n_actions(db_path) == moves
    await fake.send_text(claimer, GROUP, "/back")
    await fake.wait_for(lambda: not away(db_path, seat), timeout=CHECK)
    await fake.wait_idle(quiet=0.05)
    assert deadline(db_path) == vote

    await press_answer(fake, others[0], "Да, заканчиваем")
    clock.advance(vote[2] - PACE / 3 - clock.now() + 1)  # a third of the vote's time left
    await fake.wait_for(lambda: reminded(fake, others[1]), timeout=CHECK)
    assert not reminded(fake, others[0]) and not reminded(fake, claimer)

    await fake.send_text(claimer, GROUP, "/leave")
    await fake.wait_for(lambda: away(db_path, seat), timeout=CHECK)
    await fake.wait_idle(quiet=0.2)
    assert n_actions(db_path) == moves
    await press_answer(fake, others[1], "Играем дальше")
    await fake.wait_for(lambda: n_actions(db_path) == moves + 1, timeout=CHECK)
    assert game_actions(db_path)[-1][1] == seat  # the computer, for the claimer
    assert claim_rows(db_path)[0][0] == "refused"


async def test_the_services_are_wired_through_their_constructors(
    fake: FakeTelegram, make_bot: MakeBot
) -> None:
    """Issue 35: nothing patched after construction; the play service holds
    the claims' vote ends it was built with."""
    running = await make_bot()
    app = running.app
    assert app.services.play.votes is app.services.claims.votes
    assert not hasattr(app.services.play, "claim_timeout")


# ------------------------------------------------------------ from the Mini App


async def test_a_claim_from_the_mini_app_that_the_engine_proves_ends_the_hand(
    fake: FakeTelegram, make_bot: MakeBot, db_path: Path
) -> None:
    """The page's claim is the hand's button's: the same group message, the
    claimer's cards and the proof, and the CLAIM action ends the hand."""
    base, app = app_settings()
    await make_bot(**app)
    anna = fake.add_user(4231, "Анна")
    table = await open_table(fake, GROUP, [anna])
    await to_proved_claim(table, db_path, anna)
    g = game_of(db_path)
    seat = g.to_move
    left, won = tricks_left(g), g.tricks_won[seat]
    mine = cards_line(g.hand_cards(seat))
    page, table_id = app_page(fake, base, anna)
    status, state = await page.state(table_id)
    assert status == 200 and state["seq"] == len(g.actions) and state["my_turn"]
    assert state["claim"] == {"n": 1}
    before = len(fake.sent_texts(GROUP))

    status, after = await page.claim(state)
    assert status == 200, after
    assert after["seq"] > state["seq"] and after["claim"] is None
    note = await fake.wait_for(
        lambda: next((t for t in fake.sent_texts(GROUP)[before:] if "Доказано" in t), None),
        timeout=CHECK,
    )
    assert note.startswith("🙌 Анна: «Остальные мои»") and mine in note
    await fake.wait_for(
        lambda: any("сыграна" in t for t in fake.sent_texts(GROUP)[before:]), timeout=CHECK
    )
    assert game_actions(db_path)[state["seq"]] == (state["seq"], seat, CLAIM)
    assert [st for st, _ in claim_rows(db_path)] == ["proved"]
    line = game_of(db_path).sheet[g.hand_no]
    assert line["tricks"][seat] == won + left


async def test_an_unproved_claim_from_the_mini_app_goes_to_the_vote(
    fake: FakeTelegram, make_bot: MakeBot, db_path: Path
) -> None:
    """Only the seat to move is offered the claim (not the others, not a
    watcher); made from the page, the other side is asked in private, and
    meanwhile the page offers no card and no claim."""
    base, app = app_settings()
    await make_bot(**app)
    table, users = await four_people(fake, GROUP)
    claimer, _ = await to_first_claim(fake, table, users, db_path)
    seat, voters = other_side(users, claimer)
    partner = users[(seat + 2) % 4]
    watcher = fake.add_user(4239, "Зритель")
    fake.add_member(GROUP, watcher)
    page, table_id = app_page(fake, base, claimer)
    status, state = await page.state(table_id)
    assert status == 200 and state["my_turn"] and state["claim"] == {"n": 1}
    for u in (*voters, partner):
        status, theirs = await signed_page(fake, base, u).state(table_id)
        assert status == 200 and not theirs["my_turn"] and theirs["claim"] is None
    status, watched = await signed_page(fake, base, watcher).state(table_id)
    assert status == 200 and watched["spectator"] and watched["claim"] is None
    moves = n_actions(db_path)
    before = len(fake.sent_texts(GROUP))

    status, after = await page.claim(state)
    assert status == 200, after
    assert not after["my_turn"] and after["playable"] == [] and after["claim"] is None
    assert "Вы сказали «Остальные мои»" in after["prompt"]
    note = await fake.wait_for(
        lambda: next((t for t in fake.sent_texts(GROUP)[before:] if "решают соперники" in t), None),
        timeout=CHECK,
    )
    mine = cards_line(game_of(db_path).hand_cards(seat))
    assert mine not in note and not has_card(note)
    for u in voters:
        await asked(fake, u)
        assert mine in question(fake, u).text
    assert question(fake, partner) is None
    status, now = await page.state(table_id)
    assert status == 200 and now["playable"] == [] and now["claim"] is None
    # A second press meanwhile, and a card: the vote holds the move.
    status, answer = await page.claim(state, n=2)
    assert (status, answer["error"]) == (409, "err-claim-voting")
    status, answer = await page.move(state, state["playable"][0])
    assert (status, answer["error"]) == (409, "err-claim-voting")
    assert n_actions(db_path) == moves
    assert [st for st, _ in claim_rows(db_path)] == ["vote"]


async def test_forged_claims_from_the_mini_app_change_nothing(
    fake: FakeTelegram, make_bot: MakeBot, db_path: Path
) -> None:
    """Whoever sends it, whatever it holds: a claim that is not the one the
    seat to move is offered is refused with its reason and records nothing;
    two claims a hand, and then none."""
    base, app = app_settings()
    await make_bot(**app)
    table, users = await four_people(fake, GROUP)
    claimer, _ = await to_first_claim(fake, table, users, db_path)
    seat, voters = other_side(users, claimer)
    page, table_id = app_page(fake, base, claimer)
    status, state = await page.state(table_id)
    assert status == 200 and state["claim"] == {"n": 1}
    before = game_actions(db_path)
    body = {"t": table_id, "game": state["game"], "seq": state["seq"], "n": 1}

    async def refused(who: Page, sent: object, want: tuple[int, str]) -> None:
        async with (
            aiohttp.ClientSession() as http,
            http.post(f"{base}/api/claim", data=json.dumps(sent), headers=who.headers) as r,
        ):
            answer = await r.json()
            assert (r.status, answer["error"]) == want, (sent, answer)
            assert answer["text"]

    bad_request = (400, "webapp-err-request")
    for garbage in (
        [1, 2],
        "claim",
        {"t": table_id},
        {**body, "n": "1"},
        {**body, "n": True},
        {**body, "n": 1.0},
        {**body, "seq": None},
        {**body, "game": str(state["game"])},
    ):
        await refused(page, garbage, bad_request)
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{base}/api/claim", data=b"{not json", headers=page.headers) as r,
    ):
        assert r.status == 400 and (await r.json())["error"] == "webapp-err-request"
    stranger = fake.add_user(4238, "Чужой")  # not in the group
    watcher = fake.add_user(4239, "Зритель")
    fake.add_member(GROUP, watcher)
    for outsider in (stranger, watcher):
        await refused(signed_page(fake, base, outsider), body, (403, "err-not-at-table"))
    not_to_move = signed_page(fake, base, voters[0])
    await refused(not_to_move, body, (409, "err-not_your_turn"))
    for wrong in (
        {"seq": state["seq"] - 1},
        {"seq": state["seq"] + 1},
        {"n": 0},
        {"n": 2},
        {"n": 10**6},
        {"game": state["game"] + 1},
    ):
        await refused(page, {**body, **wrong}, (409, "err-stale"))
    await fake.wait_idle(quiet=0.05)
    assert game_actions(db_path) == before
    assert claim_rows(db_path) == []

    # Two claims, each refused by a voter: the third is refused for the limit.
    for n in (1, 2):
        status, state = await page.state(table_id)
        assert status == 200 and state["claim"] == {"n": n}
        status, _ = await page.claim(state)
        assert status == 200
        for u in voters:
            await asked(fake, u)
        await press_answer(fake, voters[0], "Играем дальше")
        await fake.wait_for(lambda n=n: len(claim_rows(db_path)) == n, timeout=CHECK)
        await fake.wait_for(
            lambda: not button_data(question(fake, voters[1]), "cv:"), timeout=CHECK
        )
    status, state = await page.state(table_id)
    assert status == 200 and state["my_turn"] and state["playable"] and state["claim"] is None
    for n in (3, 2):
        status, answer = await page.claim(state, n=n)
        assert (status, answer["error"]) == (409, "err-claim-limit")
        assert "уже заявляли" in answer["text"]
    await a_card_plays_after_refusals(fake, page, state, db_path, before)
    assert [st for st, _ in claim_rows(db_path)] == ["refused", "refused"]


async def test_the_stream_offers_the_claim_to_its_seat_alone(
    fake: FakeTelegram, make_bot: MakeBot, db_path: Path
) -> None:
    """The claim is the seat's own, like its cards: the player's stream has
    it, a watcher's never. A claim refused at once (the computers refuse)
    changes no move, and still reaches the page: the next is number two."""
    base, app = app_settings()
    await make_bot(**app)
    anna = fake.add_user(4241, "Анна")
    watcher = fake.add_user(4249, "Зритель")
    table = await open_table(fake, GROUP, [anna], others=[watcher])
    await to_first_claim(fake, table, [anna], db_path)
    page, table_id = app_page(fake, base, anna)
    watching = signed_page(fake, base, watcher)
    moves = n_actions(db_path)
    async with Stream(page, table_id) as mine, Stream(watching, table_id) as theirs:
        assert (mine.status, theirs.status) == (200, 200)
        kind, first = await asyncio.wait_for(mine.next(), FIRST_EVENT)
        assert kind == "state" and first["claim"] == {"n": 1}
        kind, seen = await asyncio.wait_for(theirs.next(), FIRST_EVENT)
        assert kind == "state" and seen["spectator"] and seen["claim"] is None
        status, after = await page.claim(first)
        assert status == 200 and after["claim"] == {"n": 2} and after["seq"] == first["seq"]
        await fake.wait_for(
            lambda: any(
                "Компьютер без доказательства не соглашается" in t for t in fake.sent_texts(GROUP)
            ),
            timeout=CHECK,
        )
        kind, event = await asyncio.wait_for(mine.next(), FIRST_EVENT)
        assert kind == "state" and event["seq"] == first["seq"] and event["claim"] == {"n": 2}
        kind, seen = await asyncio.wait_for(theirs.next(), FIRST_EVENT)
        assert kind == "state" and seen["claim"] is None and "hand" in seen and not seen["hand"]
    assert n_actions(db_path) == moves
