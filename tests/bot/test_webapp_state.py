"""What the Mini App tells one seat, built from the engine's view: cards face
down before a blind nil, the club exchange seen only by the two partners."""

from __future__ import annotations

import json
import random
from functools import partial
from typing import Any

import pytest
from live_tables import live_table

from bot.i18n import Texts, make_core
from bot.model import LiveTable, Pause, TableStatus
from bot.webapp.state import public_state, seat_state
from bot.webapp.watch import spectator_part
from engine import BID, BLIND, CLAIM, CLUB, Game
from engine.cards import card_label
from engine.game import BIDDING, EXCHANGE, PLAY

NOW = 1_800_000_000.0


async def texts() -> partial[str]:
    core = make_core("ru")
    await core.startup()
    return partial(Texts(core), "ru")


def table_at(game: Game) -> LiveTable:
    return live_table(game, due_at=NOW + 60)


def behind_by_150() -> Game:
    """A club game whose first hand finds North and South 150 behind: they may
    bid blind nil (and then pass cards)."""
    g = Game(CLUB, seed=11)
    d = g.to_dict()
    d["totals"] = [-150, 0]
    return Game.from_dict(d)


def cards_in(state: dict[str, Any]) -> set[int]:
    """Every card the answer names, in whatever field."""
    out = set(state["hand"]) | set(state["playable"])
    out |= {c for _, c in state["trick"]}
    if state["exchange"]:
        ex = state["exchange"]
        out |= set(ex["picking"]) | set(ex["passed"]) | set(ex["received"])
    return out


async def test_cards_stay_face_down_until_looked_at() -> None:
    tr = await texts()
    g = behind_by_150()
    live = table_at(g)
    for seat in (0, 2):
        state = seat_state(tr, live, seat, NOW)
        assert state["hand"] == [] and state["hidden"] == 13
        assert cards_in(state) == set()
        assert state["look"] == {"text": "👀 Открыть карты"}
        assert state["bids"] == []
        mine = state["to_move"] == seat
        assert (state["blind"] is not None) == mine
        assert state["blind"] is None or state["blind"]["a"] == BLIND
    live.looked.add(0)
    state = seat_state(tr, live, 0, NOW)
    assert sorted(state["hand"]) == g.hand_cards(0) and state["hidden"] == 0
    assert state["look"] is None and state["blind"] is None


async def test_the_exchange_is_seen_by_the_partners_only() -> None:
    tr = await texts()
    g = behind_by_150()
    declarer = None
    while g.phase is BIDDING:
        seat = g.to_move
        if seat % 2 == 0 and declarer is None and g.blind_allowed(seat):
            declarer = seat
            g.apply_action(BLIND)
        else:
            allowed = g.allowed_bids(seat)
            g.apply_action(BID + min(allowed, key=lambda b: abs(b - 3)))
    assert declarer is not None and g.phase is EXCHANGE
    live = table_at(g)
    live.looked = {0, 1, 2, 3} - {declarer}
    partner = (declarer + 2) % 4
    first = g.legal_actions()[0]
    g.apply_action(first)
    live.game = g
    state = seat_state(tr, live, declarer, NOW)
    assert state["phase"] == "exchange" and state["my_turn"]
    assert state["exchange"]["pass_to"] == partner and state["exchange"]["picking"] == [first]
    assert "Выбрана" in state["prompt"]
    for opponent in ((declarer + 1) % 4, (declarer + 3) % 4):
        theirs = seat_state(tr, live, opponent, NOW)
        assert cards_in(theirs) == set(g.hand_cards(opponent)) and theirs["hidden"] == 0
        assert theirs["exchange"]["picking"] == [] and not theirs["exchange"]["passed"]
    second = g.legal_actions()[0]
    g.apply_action(second)
    live.game = g
    state = seat_state(tr, live, partner, NOW)
    assert state["exchange"]["received"] == [first, second]
    assert state["exchange"]["received_text"].startswith("Вы получили:")
    while g.phase is EXCHANGE:
        g.apply_action(g.legal_actions()[0])
    live.game = g
    assert g.phase is PLAY
    for seat in range(4):
        state = seat_state(tr, live, seat, NOW)
        own = {c for e in g.exchanges if seat in (e["from"], e["to"]) for c in e["cards"]}
        assert cards_in(state) <= set(g.hand_cards(seat)) | own
        text = json.dumps(state, ensure_ascii=False)
        if seat % 2 != declarer % 2:
            assert state["exchange"] is None and "отдали" not in text and "получили" not in text


async def test_names_and_titles_are_plain_text() -> None:
    tr = await texts()
    g = Game(CLUB, seed=5)
    live = table_at(g)
    live.paused = True
    state = seat_state(tr, live, 0, NOW)
    assert state["seats"][2]["name"] == "Вера & Co"
    assert "«Клуб <по средам>»" in state["lines"]["status"]  # the group, as typed
    assert state["due_at"] is None and state["to_move"] == -1 and not state["my_turn"]
    assert state["score"][0]["line"] == "Анна + Вера & Co: 0 (0 мешков)"


async def test_no_card_to_play_while_a_claim_is_voted_on() -> None:
    """The Mini App holds the move as the chat does: the claimer waits for
    the vote, the others are told what play waits for."""
    tr = await texts()
    g = Game(CLUB, seed=5)
    while g.phase is not PLAY:
        g.apply_action(g.legal_actions()[0])
    live = table_at(g)
    live.looked = {0, 1, 2, 3}
    mover = g.to_move
    before = seat_state(tr, live, mover, NOW)
    assert before["my_turn"] and before["playable"]
    live.claim_vote = live.seq
    state = seat_state(tr, live, mover, NOW)
    assert not state["my_turn"] and state["playable"] == []
    assert "Вы сказали «Остальные мои»" in state["prompt"]
    other = seat_state(tr, live, (mover + 1) % 4, NOW)
    assert "голосование" in other["prompt"]
    live.claim_vote = live.seq - 1  # an old claim's: play goes on
    assert seat_state(tr, live, mover, NOW)["playable"] == before["playable"]


@pytest.mark.parametrize("seed", range(3))
async def test_a_spectator_sees_no_card_held_in_a_club_game(seed: int) -> None:
    """Blind nil, the exchange, a claim voted on: at every move of the first
    hands of a club game, what a spectator is sent names no card still held."""
    tr = await texts()
    rng = random.Random(seed)
    g = behind_by_150() if seed == 0 else Game(CLUB, seed=seed)
    live = table_at(g)
    live.looked = {0, 1, 2, 3}
    phases = set()
    while not g.finished and g.hand_no < 2:
        checks = [None, live.seq] if g.phase is PLAY and rng.random() < 0.2 else [None]
        for vote in checks:
            live.claim_vote = vote
            state = {**public_state(tr, live), **spectator_part(tr, live, NOW)}
            assert state["hand"] == [] and state["playable"] == [] and state["exchange"] is None
            assert state["bids"] == [] and state["blind"] is None and not state["my_turn"]
            text = json.dumps(state, ensure_ascii=False)
            for s in range(4):
                for c in g.hand_cards(s):
                    assert card_label(c) not in text, (g.phase, s, c)
        live.claim_vote = None
        phases.add(g.phase)
        legal = [a for a in g.legal_actions() if a != CLAIM]
        g.apply_action(BLIND if BLIND in legal else rng.choice(legal))
        live.game = g
    assert PLAY in phases and (seed != 0 or EXCHANGE in phases)


async def test_the_claim_is_offered_to_the_seat_to_move_in_play_only() -> None:
    """«Остальные мои» as the chat's button offers it: the seat to move, in
    play, two tricks or more left, no vote open, a person at the seat, two
    claims a hand; with the number the next claim carries."""
    tr = await texts()
    g = Game(CLUB, seed=5)
    live = table_at(g)
    live.seats = [1, 3, 2, 4]
    live.looked = {0, 1, 2, 3}
    while g.phase is not PLAY:
        assert seat_state(tr, live, g.to_move, NOW)["claim"] is None  # bidding
        g.apply_action(g.legal_actions()[0])
    mover = g.to_move
    states = [seat_state(tr, live, s, NOW) for s in range(4)]
    assert [s["claim"] for s in states] == [{"n": 1} if s == mover else None for s in range(4)]
    spectator = {**public_state(tr, live), **spectator_part(tr, live, NOW)}
    assert spectator["claim"] is None
    live.claims[(g.hand_no, mover)] = 1
    assert seat_state(tr, live, mover, NOW)["claim"] == {"n": 2}
    live.claims[(g.hand_no, mover)] = 2
    assert seat_state(tr, live, mover, NOW)["claim"] is None
    live.claims[(g.hand_no + 1, mover)] = 2  # another hand's: they do not count
    live.claims[(g.hand_no, mover)] = 0
    assert seat_state(tr, live, mover, NOW)["claim"] == {"n": 1}
    changes = {
        "a vote open": lambda: setattr(live, "claim_vote", live.seq),
        "paused": lambda: setattr(live, "paused", Pause.BOT_REMOVED),
        "the computer plays the seat": lambda: live.away.add(mover),
        "the table finished": lambda: setattr(live, "status", TableStatus.FINISHED),
    }
    for why, change in changes.items():
        saved = live.snapshot()
        change()
        assert seat_state(tr, live, mover, NOW)["claim"] is None, why
        live.restore(saved)
        assert seat_state(tr, live, mover, NOW)["claim"] == {"n": 1}
    # With one trick left the card is as quick: no claim.
    while g.hand_size - len(g.tricks) > 1:
        g.apply_action([a for a in g.legal_actions() if a != CLAIM][0])
    assert g.phase is PLAY
    assert seat_state(tr, live, g.to_move, NOW)["claim"] is None
