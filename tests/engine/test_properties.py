"""Property tests: > 10,000 seeded random hands over every preset, option and
player count, the engine run in lockstep with the reference implementation.

Per step: same seat to move, same legal set. Per hand: every card played once,
tricks add up to the hand size, each side's score/bags/total equal the
reference's, totals are the sum of the hand scores. Per game: serialise →
load → continue, ``Game.replay``, ``record_of`` → ``replay`` (and the reference
on that record) all agree; views never show another seat's cards.
"""

from __future__ import annotations

import functools
import json
import random
import re
from typing import Any

import pytest
import reference as ref
import spades_scenarios as sc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import EngineError
from engine.game import Game
from engine.replay import ReplayError, record_of, replay
from engine.rules import Rules
from engine.scoring import decide_end, score_hand
from engine.view import view

TOTAL_HANDS = 10_200
MAX_HANDS_PER_GAME = 40
CONFIGS: list[tuple[Any, int]] = sc.valid_rule_sets() + [
    sc.random_rule_set(random.Random(1000 + i)) for i in range(40)
]
QUOTA = -(-TOTAL_HANDS // len(CONFIGS))


def _key(actions: list[Any]) -> list[tuple[int, str]]:
    return sorted((0, str(a)) if isinstance(a, int) else (1, str(a)) for a in actions)


CARD_TOKEN = re.compile(r'"([2-9TJQKA][CDHS])"')


def check_views(g: Game, rg: ref.RefGame, gave: dict[int, set[str]]) -> None:
    """No view holds a card of another seat's current hand (cards it passed itself excepted)."""
    for seat in range(g.n):
        d = view(g, seat).to_dict()
        seen = set(CARD_TOKEN.findall(json.dumps(d)))
        assert sorted(d["hand"]) == sorted(rg.hands[seat])
        for other in range(g.n):
            if other == seat:
                continue
            hidden = set(rg.hands[other]) - gave.get(seat, set())
            leak = seen & hidden
            assert not leak, f"view of seat {seat} shows {sorted(leak)} of seat {other}"


def _peek_tricks(g: Game, play_seed: int) -> list[int]:
    """How the coming random play will go (bids do not change legal plays)."""
    c = g.copy()
    lines = len(c.sheet)
    while c.phase == "bid":
        c.apply_action(c.legal_actions()[0])
    prng = random.Random(play_seed)
    while len(c.sheet) == lines and c.phase == "play":
        legal = c.legal_actions()
        c.apply_action(legal[prng.randrange(len(legal))])
    return c.sheet[-1]["tricks"] if len(c.sheet) > lines else [0] * g.n


def play_lockstep(rules_value: Any, n: int, seed: int, view_games: int) -> tuple[Game, int]:
    """One seeded engine game against the reference; returns the game and its hand count."""
    rng = random.Random(seed * 7919 + 17)
    rules = Rules.from_json(rules_value, n)
    r = ref.make_rules(rules_value, n)
    explicit_dealer = seed % 3 == 0
    g = Game(rules, seed, (seed // 3) % n) if explicit_dealer else Game(rules, seed)
    rg = ref.RefGame(r, g.first_dealer)
    hs = ref.hand_size(n)
    snap_hand = rng.randrange(4)
    snapshot: tuple[int, str] | None = None
    hands = 0
    while not g.finished and hands < MAX_HANDS_PER_GAME:
        where = f"{rules_value!r} players={n} seed={seed} hand={hands}"
        deal = [[sc.int_to_card(c) for c in h] for h in g.dealt]
        rg.start_hand(deal)  # the reference checks deck, dropped cards and hand sizes
        assert (g.dealer, g.to_move, g.phase) == (rg.dealer, rg.turn, "bid"), where
        play_seed = rng.getrandbits(32)
        expect = _peek_tricks(g, play_seed)
        prng = random.Random(play_seed)
        lines = len(g.sheet)
        played: list[str] = []
        gave: dict[int, set[str]] = {}
        # views are slow (the whole sheet is copied): a sample of steps, denser in the first hand
        view_rate = 0.3 if hands == 0 and seed % view_games == 0 else 0.002
        snap_step = rng.randrange(hs * n + n) if hands == snap_hand else -1
        step = 0
        while len(g.sheet) == lines:
            if step == snap_step:
                snapshot = (len(g.actions), json.dumps(g.to_dict()))
            step += 1
            assert g.to_move == rg.turn, where
            legal_e = g.legal_actions()
            legal_r = rg.legal()
            assert _key([sc.eng_to_ref(a) for a in legal_e]) == _key(legal_r), (where, step)
            if rng.random() < view_rate or rg.phase == "exchange":
                check_views(g, rg, gave)
            phase = rg.phase
            if phase == "bid":
                partner = expect[(rg.turn + 2) % 4] if n == 4 else None
                action = sc.ref_to_eng(sc._choose_bid(rng, legal_r, expect[rg.turn], partner))
            elif phase == "exchange":
                action = rng.choice(legal_e)
                gave.setdefault(rg.turn, set()).add(sc.int_to_card(action))
            else:
                action = legal_e[prng.randrange(len(legal_e))]
                played.append(sc.int_to_card(action))
            g.apply_action(action)
            rg.act(sc.eng_to_ref(action))
        hands += 1
        # every card once, tricks add up, the score sheet equals the reference's
        assert sorted(played) == sorted(ref.deck(n)), where
        line = g.sheet[-1]
        assert sum(line["tricks"]) == hs, where
        mine = rg.results[-1]
        assert line["tricks"] == mine["tricks"], where
        assert [s["score"] for s in line["sides"]] == mine["score"], (where, line)
        assert [s["bags"] for s in line["sides"]] == mine["bags"], (where, line)
        assert [s["total"] for s in line["sides"]] == mine["totals"], (where, line)
        sums = [sum(ln["sides"][i]["score"] for ln in g.sheet) for i in range(len(g.totals))]
        assert g.totals == sums == rg.totals, where
        assert (g.finished, g.winner) == (rg.phase == "over", rg.winner), where
    if g.finished:
        check_views(g, rg, {})

    # serialise → json → load, then the same actions: the same state
    if snapshot is not None:
        at, text = snapshot
        loaded = Game.from_dict(json.loads(text))
        assert loaded.to_dict() == json.loads(text)
        for a in g.actions[at:]:
            loaded.apply_action(a)
        assert loaded.to_dict() == g.to_dict()
    # (rules, seed, actions) rebuilds it
    again = Game.replay(rules, seed, list(g.actions), g.first_dealer if explicit_dealer else None)
    assert again.to_dict() == g.to_dict()
    # the game's record replays to the same totals, and the reference agrees
    rec = record_of(g)
    out = replay(json.loads(json.dumps(rec)))
    assert len(out["hands"]) == len(g.sheet) + (0 if g.finished else 1)
    for line, h in zip(g.sheet, out["hands"], strict=False):
        assert h["totals"] == [s["total"] for s in line["sides"]]
        assert h["score"] == [s["score"] for s in line["sides"]]
    assert (out["finished"], out["winner"]) == (g.finished, g.winner)
    assert out == ref.run_record(rec)
    return g, hands


@pytest.mark.parametrize(
    ("rules_value", "players"),
    CONFIGS,
    ids=[f"{i}-{json.dumps(c, sort_keys=True)}-{n}p" for i, (c, n) in enumerate(CONFIGS)],
)
def test_random_hands_lockstep(rules_value: Any, players: int) -> None:
    done = 0
    seed = 0
    finished = 0
    while done < QUOTA:
        g, hands = play_lockstep(rules_value, players, seed, view_games=1000)
        done += hands
        finished += g.finished
        seed += 1
    assert done >= QUOTA


def test_hand_count_reaches_ten_thousand() -> None:
    assert QUOTA * len(CONFIGS) >= 10_000


# ------------------------------------------------------ hypothesis: scoring
OPTION_STRATEGY = st.fixed_dictionaries(
    {k: st.sampled_from(v) for k, v in ref.OPTION_VALUES.items()}
    | {"players": st.sampled_from([3, 4, 5, 6])}
)


def _valid(opts: dict) -> bool:
    return ref.rules_problem(ref.Rules(**opts)) is None


@st.composite
def scoring_cases(draw: st.DrawFn) -> tuple[dict, list[int], list[bool], list[int], list[int]]:
    opts = draw(OPTION_STRATEGY.filter(_valid))
    n = opts["players"]
    hs = ref.hand_size(n)
    low = 1 if opts["bicycle"] else 0
    bids = draw(st.lists(st.integers(low, hs), min_size=n, max_size=n))
    blind = [
        b == 0 and opts["blind_nil"] != "off" and draw(st.booleans()) for b in bids
    ]  # a blind nil is a bid of 0
    winners = draw(st.lists(st.integers(0, n - 1), min_size=hs, max_size=hs))
    tricks = [winners.count(s) for s in range(n)]
    sides = 2 if n == 4 else n
    top = 9 if opts["bag_penalty"] else 60
    bags = draw(st.lists(st.integers(0, top), min_size=sides, max_size=sides))
    return opts, bids, blind, tricks, bags


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scoring_cases(), st.lists(st.integers(-1000, 2500), min_size=6, max_size=6))
def test_score_hand_matches_reference(case: tuple, totals6: list[int]) -> None:
    opts, bids, blind, tricks, bags = case
    n = opts["players"]
    totals = totals6[: len(bags)]
    mine = ref.score_hand(ref.Rules(**opts), bids, blind, tricks, bags, totals)
    theirs = score_hand(Rules(**opts), bids, blind, tricks, bags, totals)
    assert [s.score for s in theirs] == mine["score"]
    assert [s.bags for s in theirs] == mine["bags"]
    assert [s.total for s in theirs] == mine["totals"]
    assert len(theirs) == (2 if n == 4 else n)


@settings(max_examples=500, deadline=None)
@given(
    OPTION_STRATEGY.filter(_valid),
    st.lists(st.integers(-400, 2200), min_size=2, max_size=6),
    st.booleans(),
)
def test_decide_end_matches_reference(opts: dict, totals: list[int], tiebreak: bool) -> None:
    r = ref.Rules(**opts)
    assert decide_end(Rules(**opts), totals, tiebreak) == ref.game_end(r, totals, tiebreak)


JSONISH = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-300, 2500),
    st.sampled_from([500.0, "500", "x", "off", "club", "chicago", "bags", -200]),
)


@settings(max_examples=1500, deadline=None)
@given(
    st.sampled_from(["classic", "club"]),
    st.dictionaries(
        st.sampled_from(list(ref.OPTION_VALUES) + ["colour"]),
        st.one_of(JSONISH, st.sampled_from([v for vs in ref.OPTION_VALUES.values() for v in vs])),
        max_size=5,
    ),
    st.sampled_from([3, 4, 5, 6]),
)
def test_rule_validation_matches_reference(preset: str, opts: dict, players: int) -> None:
    value = {"preset": preset, **opts}
    try:
        expected: Any = ref.make_rules(value, players)
    except ref.RefError as e:
        expected = e.code
    try:
        got: Any = Rules.from_json(value, players)
    except EngineError as e:
        got = e.code
    if isinstance(expected, str):
        assert got == expected == "bad_rules", value
    else:
        assert not isinstance(got, str), (value, got)
        assert ref.Rules(**got.to_dict()) == expected


# ------------------------------------------------- illegal records vs reference
@functools.cache
def _mutated_records(count: int) -> list[dict]:
    rng = random.Random(77)
    bases = [
        sc.random_ref_game(rules, n, 500 + i, max_hands=3)[0]
        for i, (rules, n) in enumerate(sc.valid_rule_sets())
    ]
    out = []
    for _ in range(count):
        rec = json.loads(json.dumps(rng.choice(bases)))
        hand = rng.choice(rec["hands"])
        n = rec["players"]
        kind = rng.random()
        if kind < 0.45 and hand["plays"]:
            i = rng.randrange(len(hand["plays"]))
            hand["plays"][i] = rng.choice(ref.deck(4))  # a dropped card is a card of nobody
        elif kind < 0.6 and len(hand["plays"]) > 1:
            i, j = rng.sample(range(len(hand["plays"])), 2)
            hand["plays"][i], hand["plays"][j] = hand["plays"][j], hand["plays"][i]
        else:
            i = rng.randrange(len(hand["bids"]))
            hand["bids"][i] = rng.choice([-1, 0, 1, 3, 4, 7, ref.hand_size(n), 14, 99, "blind"])
        out.append(rec)
    return out


@pytest.mark.parametrize("chunk", range(4))
def test_mutated_records_agree_with_reference(chunk: int) -> None:
    """One bid or card changed: both give the same result, or the same (hand, step, code)."""
    records = _mutated_records(2400)[chunk::4]
    errors = 0
    for rec in records:
        expected = ref.run_record(rec)
        try:
            got: dict = replay(rec)
        except ReplayError as e:
            got = {"error": {"hand": e.hand, "step": e.step, "code": e.code}}
            errors += 1
        assert got == expected, json.dumps(rec)[:300]
    assert errors > len(records) // 3  # most mutations are illegal
