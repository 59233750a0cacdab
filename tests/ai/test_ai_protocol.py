"""The agent protocol: views rebuilt from hidden-card requests, and the JSON-lines process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from helpers_ai import RULE_SETS

from engine.ai import choose_action
from engine.ai.policy import choose as rule_choose
from engine.ai.protocol import answer, game_from_request, own_view, request_for
from engine.cards import card_str, parse_card
from engine.game import BLIND, EXCHANGE, Game
from engine.rules import CLUB
from engine.view import view

ROOT = Path(__file__).resolve().parents[2]


def _walk(rules, seed, hands=2, force_blind=True):
    """Yield (game, seat) at each decision of a rule-played game."""
    g = Game(rules, seed)
    while not g.finished and g.hand_no < hands:
        yield g, g.to_move
        acts = g.legal_actions()
        g.apply_action(BLIND if force_blind and BLIND in acts else rule_choose(g))


def test_request_view_equals_true_view() -> None:
    checked = exchanges = 0
    sets = [CLUB, CLUB, *RULE_SETS[:4], RULE_SETS[7], RULE_SETS[9], RULE_SETS[10]]
    for i, rules in enumerate(sets):
        for g, seat in _walk(rules, i, hands=4 if rules == CLUB else 2):
            if g.exchange_pick:
                continue
            req = json.loads(json.dumps(request_for(g, seat)))
            assert own_view(req) == view(g, seat)
            checked += 1
            exchanges += g.phase == EXCHANGE
    assert checked > 500 and exchanges > 0


def test_hidden_cards_given_anyway_are_ignored() -> None:
    for g, seat in _walk(CLUB, 7, hands=2):
        if g.exchange_pick or g.phase != "play" or len(g.tricks) != 4:
            continue
        req = request_for(g, seat)
        full = json.loads(json.dumps(req))
        last = len(full["hands"]) - 1
        full["hands"][last]["deal"] = [[card_str(c) for c in d] for d in g.dealt]
        hidden = json.loads(json.dumps(req))
        choose = lambda v, lv, sd: choose_action(v, lv, sd, budget_ms=10)  # noqa: E731
        assert answer(full, choose) == answer(hidden, choose)
        assert own_view(full) == own_view(hidden)


def test_exchange_answer_is_two_cards_of_the_hand() -> None:
    walks = (w for seed in range(6) for w in _walk(CLUB, seed, hands=5))  # lazily: g mutates
    for g, seat in walks:
        if g.phase == EXCHANGE and not g.exchange_pick:
            out = answer(request_for(g, seat), lambda v, lv, sd: choose_action(v, "amateur", sd))
            a, b = out["action"]
            assert a != b and {parse_card(a), parse_card(b)} <= set(g.hand_cards(seat))
            return
    raise AssertionError("no exchange came up")


def test_bad_requests_are_errors() -> None:
    g = Game(CLUB, 5)
    req = request_for(g, g.to_move)
    choose = lambda v, lv, sd: choose_action(v, lv, sd, budget_ms=5)  # noqa: E731
    wrong = request_for(g, (g.to_move + 1) % 4)
    assert answer(wrong, choose)["error"]["code"] == "not_your_turn"
    no_cards = dict(req, seat=(g.to_move + 1) % 4)
    assert answer(no_cards, choose)["error"]["code"] == "bad_request"
    assert answer([], choose)["error"]["code"] == "bad_request"
    assert answer({"hands": []}, choose)["error"]["code"] == "bad_request"
    broken = json.loads(json.dumps(req))
    broken["hands"][0]["bids"] = [99]
    assert answer(broken, choose)["error"]["code"] == "bid_out_of_range"
    game, seat = game_from_request(req)
    assert seat == g.to_move and game.phase == "bid"


def test_agent_process_round_trip() -> None:
    g = Game(CLUB, 9)
    lines = []
    for _ in range(6):
        lines.append(json.dumps(request_for(g, g.to_move)))
        g.apply_action(rule_choose(g))
    lines.insert(2, "this is not json")
    lines.insert(3, json.dumps({"seat": 0}))
    proc = subprocess.run(
        [sys.executable, "-m", "engine", "agent", "--level", "amateur"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(x) for x in proc.stdout.splitlines()]
    assert len(out) == len(lines)
    assert out[2]["error"]["code"] == "bad_json"
    assert "error" in out[3]
    replies = [o for i, o in enumerate(out) if i not in (2, 3)]
    assert all("action" in o for o in replies), replies
    assert all(isinstance(o["action"], int) for o in replies[:4])  # four bids
