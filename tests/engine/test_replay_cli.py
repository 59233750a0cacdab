"""``python -m engine replay FILE|- [--trace]`` as a subprocess: output shape,
trace steps and legal sets against the reference, card notations, one illegal
record per error code, and full random games of every preset checked against
the reference implementation (the games are made by the reference alone)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import reference as ref
import spades_scenarios as sc

ROOT = Path(__file__).resolve().parents[2]


def run_cli(
    record: Any, *, trace: bool = False, stdin: bool = False, tmp_path: Path | None = None
) -> tuple[int, dict]:
    """Exit code and parsed stdout of the replay command."""
    text = record if isinstance(record, (str, bytes)) else json.dumps(record, ensure_ascii=False)
    data = text.encode() if isinstance(text, str) else text
    args = [sys.executable, "-m", "engine", "replay"]
    if stdin:
        args.append("-")
    else:
        assert tmp_path is not None
        f = tmp_path / "record.json"
        f.write_bytes(data)
        args.append(str(f))
    if trace:
        args.append("--trace")
    proc = subprocess.run(
        args, input=data if stdin else None, capture_output=True, cwd=ROOT, timeout=120
    )
    out = proc.stdout.decode()
    try:
        parsed = json.loads(out)
    except json.JSONDecodeError:
        pytest.fail(f"not JSON on stdout (exit {proc.returncode}): {out!r} {proc.stderr!r}")
    return proc.returncode, parsed


def normalised(result: dict) -> dict:
    """Trace actions in canonical notation and legal sets sorted, for comparing."""
    result = copy.deepcopy(result)
    for h in result.get("hands", []):
        for st in h.get("steps", []):
            st["action"] = sc.norm_action(st["action"])
            st["legal"] = sorted((sc.norm_action(a) for a in st["legal"]), key=str)
    if "error" in result:
        result["error"].pop("message", None)
    return result


def check_shape(result: dict, n: int, trace: bool) -> None:
    assert set(result) == {"hands", "finished", "winner"}
    assert isinstance(result["finished"], bool)
    sides = 2 if n == 4 else n
    if result["finished"]:
        assert isinstance(result["winner"], int) and 0 <= result["winner"] < sides
    else:
        assert result["winner"] is None
    for h in result["hands"]:
        assert set(h) == {"tricks", "score", "bags", "totals"} | ({"steps"} if trace else set())
        assert len(h["tricks"]) == n and sum(h["tricks"]) == ref.hand_size(n)
        for key in ("score", "bags", "totals"):
            assert len(h[key]) == sides and all(type(v) is int for v in h[key])
        if trace:
            for st in h["steps"]:
                assert set(st) == {"seat", "action", "legal"}
                assert type(st["seat"]) is int and 0 <= st["seat"] < n
                assert sc.norm_action(st["action"]) in [sc.norm_action(a) for a in st["legal"]]
                legal = [sc.norm_action(a) for a in st["legal"]]
                assert len(legal) == len(set(map(str, legal)))


def check_error(code: int, out: dict, hand: int | None, step: int | None, error: str) -> None:
    assert code != 0
    assert set(out) == {"error"}
    assert set(out["error"]) == {"hand", "step", "code", "message"}
    assert (out["error"]["hand"], out["error"]["step"], out["error"]["code"]) == (hand, step, error)
    assert isinstance(out["error"]["message"], str)


# ------------------------------------------------------------ full games
GAMES = [
    ("classic", 4, 1),
    ("classic", 4, 2),
    ("club", 4, 3),
    ("club", 4, 4),
    ("club", 4, 5),
    ("classic", 3, 6),
    ("classic", 5, 7),
    ("classic", 6, 8),
    ({"preset": "club", "blind_nil": "chicago"}, 3, 9),
    ({"preset": "club", "blind_nil": "chicago"}, 5, 10),
    ({"preset": "club", "blind_nil": "chicago"}, 6, 11),
    ({"preset": "classic", "failed_nil": "bags", "exact_bonus": True}, 4, 12),
    ({"preset": "classic", "failed_nil": "help_partner", "big_bid_bonus": True}, 4, 13),
    ({"preset": "classic", "quicksand": True, "exact_bonus": True, "big_bid_bonus": True}, 4, 14),
    ({"preset": "classic", "suicide": True, "losing_floor": -200}, 4, 15),
    ({"preset": "classic", "bicycle": True, "bag_penalty": False, "bid_sum": "no_hell"}, 4, 16),
    ({"preset": "classic", "bicycle": True}, 5, 17),
    ({"preset": "classic", "bid_sum": "no_hell", "blind_nil": "chicago"}, 4, 18),
    ({"preset": "club", "failed_nil": "help_partner", "target": 1000}, 4, 19),
    ({"preset": "classic", "target": 1500, "bid_sum": "club", "big_bid_bonus": True}, 3, 20),
    ({"preset": "classic", "target": 2000, "exact_bonus": True}, 6, 21),
]


@pytest.mark.parametrize(("rules", "n", "seed"), GAMES)
def test_full_random_game_matches_reference(rules: Any, n: int, seed: int, tmp_path: Path) -> None:
    rec, game = sc.random_ref_game(rules, n, seed, max_hands=40, notation=True)
    trace = seed % 2 == 0
    code, out = run_cli(rec, trace=trace, stdin=seed % 3 == 0, tmp_path=tmp_path)
    assert code == 0, out
    check_shape(out, n, trace)
    assert normalised(out) == normalised(ref.run_record(rec, trace=trace))
    assert out["finished"] == (game.phase == "over")


def test_club_games_include_blind_nil_and_exchange() -> None:
    """The club games above do exercise blind nil with the exchange."""
    seen = 0
    for rules, n, seed in GAMES:
        if rules == "club":
            rec, _ = sc.random_ref_game(rules, n, seed, max_hands=40, notation=True)
            seen += sum(1 for h in rec["hands"] if "exchange" in h)
    assert seen > 0


def test_file_and_stdin_agree(tmp_path: Path) -> None:
    rec, _ = sc.random_ref_game("club", 4, 31, max_hands=6)
    a = run_cli(rec, trace=True, tmp_path=tmp_path)
    b = run_cli(rec, trace=True, stdin=True)
    assert a == b and a[0] == 0


# ------------------------------------------------------------ notation
def test_card_notations(tmp_path: Path) -> None:
    rec, _ = sc.random_ref_game("classic", 4, 41, max_hands=3)
    expected = run_cli(rec, tmp_path=tmp_path)
    assert expected[0] == 0
    for how in ("lower", "ten", "symbol"):
        other = copy.deepcopy(rec)
        for h in other["hands"]:
            h["deal"] = [[sc.render(c, how) for c in d] for d in h["deal"]]
            h["plays"] = [sc.render(c, how) for c in h["plays"]]
        text = json.dumps(other, ensure_ascii=False)
        if how == "symbol":
            assert "♠" in text and "10" in text
        if how == "ten":
            assert "10" in text and "T" not in "".join(
                c[0] for d in other["hands"][0]["deal"] for c in d
            )
        assert run_cli(other, stdin=True) == expected, how


def test_card_notation_examples() -> None:
    assert [ref.norm_card(c) for c in ("AS", "as", "TD", "10D", "A♠", "10♦", "td")] == [
        "AS",
        "AS",
        "TD",
        "TD",
        "AS",
        "TD",
        "TD",
    ]


# ------------------------------------------------------------ illegal records
def base_record() -> dict:
    """One complete classic hand: dealer 3, seat 0 leads; the plays follow ``DEAL``."""
    deal, plays = sc.constructed_hand(4, 3, [4, 3, 3, 3])
    return sc.record("classic", 4, 3, [{"deal": deal, "bids": [4, 3, 3, 3], "plays": plays}])


PLAY_DEAL = [
    ["AS", "KS", "QS", "JS", "TS", "9S", "AH", "KH", "2C", "3C", "4C", "2D", "3D"],
    ["8S", "7S", "QH", "JH", "TH", "9H", "5C", "6C", "7C", "4D", "5D", "6D", "7D"],
    ["6S", "5S", "4S", "8H", "7H", "6H", "5H", "8C", "9C", "TC", "8D", "9D", "TD"],
    ["3S", "2S", "4H", "3H", "2H", "JC", "QC", "KC", "AC", "JD", "QD", "KD", "AD"],
]


def play_record(plays: list[str], rules: Any = "classic", bids: list[Any] | None = None) -> dict:
    return sc.record(
        rules, 4, 3, [{"deal": PLAY_DEAL, "bids": bids or [3, 3, 3, 3], "plays": plays}]
    )


ILLEGAL = [
    # (name, record, hand, step, code)
    ("spades_not_broken", play_record(["AS"]), 0, 4, "spades_not_broken"),
    ("must_follow_suit", play_record(["AH", "8S"]), 0, 5, "must_follow_suit"),
    ("card_not_in_hand", play_record(["AH", "9H", "5H", "2H", "QH"]), 0, 8, "card_not_in_hand"),
    ("card_of_nobody", play_record(["AH", "AH"]), 0, 5, "card_not_in_hand"),
    ("bad_card", play_record(["AH", "ZH"]), 0, 5, "bad_action"),
    ("bid_not_allowed", play_record([], "club", [7, 7]), 0, 1, "bid_not_allowed"),
    (
        "nil_not_allowed",
        play_record([], {"preset": "classic", "bicycle": True}, [1, 0]),
        0,
        1,
        "nil_not_allowed",
    ),
    ("blind_not_allowed", play_record([], "classic", [1, "blind"]), 0, 1, "blind_not_allowed"),
    ("blind_in_club_when_level", play_record([], "club", ["blind"]), 0, 0, "blind_not_allowed"),
    ("bid_out_of_range", play_record([], "classic", [1, 2, 14]), 0, 2, "bid_out_of_range"),
    ("bad_bid", play_record([], "classic", [1, "x"]), 0, 1, "bad_action"),
    ("play_before_bids", play_record(["AH"], "classic", [1, 2]), 0, 2, "wrong_phase"),
    ("bad_deal_duplicate", None, 0, 0, "bad_deal"),
    ("bad_deal_short", None, 0, 0, "bad_deal"),
    ("bad_exchange", None, 0, 4, "bad_exchange"),
    ("game_over", None, 3, 0, "game_over"),
    (
        "bad_rules",
        sc.record({"preset": "classic", "suicide": True}, 3, 0, []),
        None,
        None,
        "bad_rules",
    ),
    (
        "unknown_option",
        sc.record({"preset": "classic", "joker": 1}, 4, 0, []),
        None,
        None,
        "bad_rules",
    ),
    ("bad_first_dealer", sc.record("classic", 4, "x", []), None, None, "bad_record"),
    ("not_an_object", [], None, None, "bad_record"),
]


def illegal_record(name: str, record: Any) -> Any:
    if record is not None:
        return record
    rec = base_record()
    hand = rec["hands"][0]
    if name == "bad_deal_duplicate":
        hand["deal"][0][0] = hand["deal"][1][0]
    elif name == "bad_deal_short":
        hand["deal"][0] = hand["deal"][0][:-1]
    elif name == "bad_exchange":
        hand["exchange"] = [{"from": 0, "cards": hand["deal"][0][:2]}]
    elif name == "game_over":
        # seat 0 sweeps bidding 13 with a nil partner, team 1 two nils: +230 / +200 a hand
        # → 690 / 600 after the third hand: over, so the fourth hand is refused
        hands = []
        for k in range(4):
            dealer = (3 + k) % 4
            d, plays = sc.constructed_hand(4, dealer, [13, 0, 0, 0])
            bids = sc.in_bidding_order(4, dealer, [13, 0, 0, 0])
            hands.append({"deal": d, "bids": bids, "plays": plays})
        rec["hands"] = hands
    return rec


@pytest.mark.parametrize(
    ("name", "record", "hand", "step", "code"), ILLEGAL, ids=[i[0] for i in ILLEGAL]
)
def test_illegal_record(
    name: str, record: Any, hand: Any, step: Any, code: str, tmp_path: Path
) -> None:
    rec = illegal_record(name, copy.deepcopy(record))
    exit_code, out = run_cli(rec, stdin=True)
    check_error(exit_code, out, hand, step, code)
    exit_code2, out2 = run_cli(rec, trace=True, tmp_path=tmp_path)
    check_error(exit_code2, out2, hand, step, code)


def test_invalid_json() -> None:
    for text in ("{", "not json", "", '{"hands": [}'):
        code, out = run_cli(text, stdin=True)
        check_error(code, out, None, None, "bad_record")


def test_invalid_utf8() -> None:
    code, out = run_cli(b'{"hands": [\xff]}', stdin=True)
    check_error(code, out, None, None, "bad_record")


def test_unhashable_preset_is_bad_rules() -> None:
    code, out = run_cli(sc.record({"preset": ["classic"]}, 4, 0, []), stdin=True)
    check_error(code, out, None, None, "bad_rules")


def test_extra_card_after_a_hand_is_not_game_over() -> None:
    """A 53rd card when the game goes on: an error, but the game is not over."""
    rec = base_record()
    rec["hands"][0]["plays"].append(rec["hands"][0]["plays"][0])
    code, out = run_cli(rec, stdin=True)
    assert code != 0 and out["error"]["hand"] == 0 and out["error"]["step"] == 4 + 52
    assert out["error"]["code"] != "game_over"


def test_unfinished_hand_followed_by_another_is_not_game_over() -> None:
    rec = base_record()
    second = copy.deepcopy(rec["hands"][0])
    rec["hands"][0]["plays"] = rec["hands"][0]["plays"][:10]
    rec["hands"].append(second)
    code, out = run_cli(rec, stdin=True)
    assert code != 0 and "error" in out
    assert out["error"]["code"] != "game_over"


def test_hand_cut_short_is_reported_at_its_first_missing_play() -> None:
    """A hand that stops before its last trick while another hand follows is
    reported at that hand, at the step that is missing, not at the next hand."""
    rec = base_record()
    second = copy.deepcopy(rec["hands"][0])
    rec["hands"][0]["plays"] = rec["hands"][0]["plays"][:10]
    rec["hands"].append(second)
    code, out = run_cli(rec, stdin=True)
    check_error(code, out, 0, 4 + 10, "hand_unfinished")
    assert normalised(out) == normalised(ref.run_record(rec))


def test_hand_cut_short_in_the_bidding_is_reported_at_the_missing_bid() -> None:
    rec = base_record()
    second = copy.deepcopy(rec["hands"][0])
    rec["hands"][0]["bids"] = rec["hands"][0]["bids"][:2]
    rec["hands"][0]["plays"] = []
    rec["hands"].append(second)
    code, out = run_cli(rec, stdin=True)
    check_error(code, out, 0, 2, "hand_unfinished")
    assert normalised(out) == normalised(ref.run_record(rec))


def test_unfinished_last_hand_is_reported_without_scores() -> None:
    rec = base_record()
    rec["hands"][0]["plays"] = rec["hands"][0]["plays"][:8]
    code, out = run_cli(rec, stdin=True)
    assert code == 0
    assert out["finished"] is False and out["winner"] is None
    assert len(out["hands"]) == 1 and sum(out["hands"][0]["tricks"]) == 2


def test_trace_steps_count_bids_then_plays() -> None:
    rec = base_record()
    code, out = run_cli(rec, trace=True, stdin=True)
    steps = out["hands"][0]["steps"]
    assert len(steps) == 4 + 52
    assert [s["action"] for s in steps[:4]] == [4, 3, 3, 3]
    assert [s["seat"] for s in steps[:5]] == [0, 1, 2, 3, 0]
    assert steps[0]["legal"] == list(range(14))
    assert normalised(out) == normalised(ref.run_record(rec, trace=True))
