"""The game state as a value: copies that never share what changes, phases
that serialise as the plain strings stored in databases and records."""

from __future__ import annotations

import json
import random

from test_rules import DEAL, act, deal, new_game

from engine.game import EXCHANGE, Game, Phase
from engine.rules import Rules


def _state(g: Game) -> str:
    return json.dumps(g.to_dict(), sort_keys=True)


def _walk(g: Game, rng: random.Random, steps: int) -> None:
    for _ in range(steps):
        if g.finished:
            return
        g.apply_action(rng.choice(g.legal_actions()))


def test_copy_equals_the_original_and_shares_no_list() -> None:
    rng = random.Random(7)
    for seed in range(40):
        g = Game(Rules.from_json("club" if seed % 2 else "classic"), seed)
        _walk(g, rng, rng.randrange(120))
        c = g.copy()
        assert _state(c) == _state(g)
        for name in Game.__slots__:
            if isinstance(getattr(g, name), list):
                assert getattr(c, name) is not getattr(g, name), name


def test_a_copy_and_its_original_change_apart() -> None:
    """Copies taken at random steps (bidding, mid-trick, at a hand's end),
    then both sides played on: neither sees the other's moves."""
    rng = random.Random(11)
    for seed in range(40):
        g = Game(Rules.from_json("classic", 3 + seed % 4), seed)
        _walk(g, rng, rng.randrange(150))
        c = g.copy()
        before = _state(g)
        _walk(c, rng, 80)  # past the end of a hand
        assert _state(g) == before
        copied = _state(c)
        _walk(g, rng, 80)
        assert _state(c) == copied


def test_copy_during_the_club_exchange() -> None:
    g = new_game("club", totals=[0, 200])
    deal(g, DEAL)
    act(g, "blind", 4, 3, 3)
    assert g.phase == EXCHANGE and g.to_move == 0
    act(g, "2C")
    c = g.copy()
    act(c, "3C")  # the declarer's pass is complete in the copy only
    assert g.exchange_pick == [0] and g.exchanges == [] and g.to_move == 0
    assert c.exchanges and c.to_move == 2
    act(g, "4C")
    assert [e["cards"] for e in c.exchanges] == [[0, 1]]
    assert [e["cards"] for e in g.exchanges] == [[0, 2]]


def test_phases_are_stored_as_plain_strings() -> None:
    g = Game(Rules(), 3)
    assert g.phase is Phase.BIDDING and g.phase == "bid"
    d = json.loads(json.dumps(g.to_dict()))
    assert d["phase"] == "bid"
    loaded = Game.from_dict(d)
    assert loaded.phase is Phase.BIDDING
    assert [p.value for p in Phase] == ["deal", "bid", "exchange", "play", "over"]
