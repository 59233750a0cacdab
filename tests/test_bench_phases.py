"""``python -m bench.phases``'s comparison of open and closed phases: the pairs it
forms and its bootstrap interval, on made-up latencies whose truth is known
(the figures it prints for real runs rest on these)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench import ROOT, phases

# A fixed order of pairs (bench.load draws each pair's order at random): the
# first pair open first, the second closed first.
ORDER = ("open", "closed", "closed", "open")


def made_up(n_phases: int, effect: float, seed: int) -> list[dict[str, Any]]:
    """Phases in pairs of one open and one closed (``ORDER``); each meets
    the machine at its own speed (±20 %), and the open ones are ``effect``
    slower on top."""
    rng = random.Random(seed)
    out = []
    for i in range(n_phases):
        kind = ORDER[i % 4]
        speed = rng.uniform(0.8, 1.2) * (1 + effect if kind == "open" else 1)
        out.append({"kind": kind, "ms": [rng.expovariate(1 / 20) * speed for _ in range(400)]})
    return out


def test_pairs_are_neighbours_one_of_each_kind() -> None:
    first = made_up(7, 0.0, 1)
    got = phases.pairs_of(first)  # the seventh has no partner
    assert len(got) == 3
    assert all(set(p) == {"open", "closed"} for p in got)
    # Phases 0-1 and 2-3: open first, then closed first.
    assert got[0]["open"] == first[0]["ms"] and got[1]["open"] == first[3]["ms"]
    # Two phases of the same kind side by side are no pair.
    same = [{"kind": "open", "ms": [1.0]}, {"kind": "open", "ms": [2.0]}]
    assert phases.pairs_of(same) == []


def test_a_real_difference_is_found_and_its_interval_holds_it() -> None:
    pairs = phases.pairs_of(made_up(80, 0.3, 2))
    for q in (0.5, 0.99):
        low, high = phases.interval(pairs, q, 200, 1)
        assert 0.0 < low < 0.3 < high, (q, low, high)
        assert low <= phases.ratio(pairs, q) <= high


def test_no_difference_gives_an_interval_around_nothing() -> None:
    pairs = phases.pairs_of(made_up(80, 0.0, 3))
    for q in (0.5, 0.99):
        low, high = phases.interval(pairs, q, 200, 1)
        assert low < 0.0 < high, (q, low, high)


def test_the_pair_by_pair_figures_find_a_real_difference() -> None:
    pairs = phases.pairs_of(made_up(80, 0.3, 2))
    for figure in (phases.median_pair, phases.mean_pair):
        for q in (0.5, 0.99):
            low, high = phases.interval(pairs, q, 200, 1, figure)
            assert 0.0 < low < 0.3 < high, (figure.__name__, q, low, high)
            assert low <= figure(pairs, q) <= high


def test_the_pair_by_pair_figures_find_nothing_where_there_is_nothing() -> None:
    pairs = phases.pairs_of(made_up(80, 0.0, 3))
    for figure in (phases.median_pair, phases.mean_pair):
        for q in (0.5, 0.99):
            low, high = phases.interval(pairs, q, 200, 1, figure)
            assert low < 0.0 < high, (figure.__name__, q, low, high)


def test_a_burst_in_one_phase_moves_the_pooled_p99_but_not_the_pairs_median() -> None:
    """Why the pairs are given too: one closed phase on a stretch of the
    machine ten times slower sets the pooled top percent by itself."""
    phs = made_up(80, 0.0, 4)
    slow = next(p for p in phs if p["kind"] == "closed")
    slow["ms"] = [x * 10 for x in slow["ms"]]
    pairs = phases.pairs_of(phs)
    assert phases.ratio(pairs, 0.99) < -0.3
    assert abs(phases.median_pair(pairs, 0.99)) < 0.1


def test_kept_runs_are_pooled_again(tmp_path: Path) -> None:
    """``--again`` reads what ``--keep`` wrote and pools it without running."""
    files = []
    for n, effect in enumerate((0.0, 0.3)):
        run = {
            "options": ["--app", "--seed", str(n + 1)],
            "moves": {"open": 100.0, "closed": 100.0 * (1 + effect)},
            "lines": [f"  run {n + 1}'s own lines"],
            "phases": made_up(8, effect, n),
        }
        files.append(tmp_path / f"run-{n + 1}.json")
        files[-1].write_text(json.dumps(run))
    out = subprocess.run(
        [sys.executable, "-m", "bench.phases", "--resamples", "20", "--again", *map(str, files)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "  run 1's own lines" in out and "  run 2's own lines" in out
    assert "moves/s open 100.0, closed 115.0: -13.0%" in out
    assert "(8 pairs of phases)" in out
    assert out.count("pair by pair, geometric mean of the 8 pairs' own ratios") == 2


def test_waits_for_a_core_are_per_move_open_against_closed() -> None:
    kept = [
        {"kind": "open", "ms": [], "moves": 1000, "bot_wait": 2.0, "own_wait": 1.5},
        {"kind": "closed", "ms": [], "moves": 500, "bot_wait": 1.0, "own_wait": 0.5},
        {"kind": "closed", "ms": [], "moves": 500, "bot_wait": 1.0, "own_wait": 0.5},
    ]
    assert phases.waits(kept) == (
        "waited for a core per move (ms): the bot open 2.00, closed 2.00 (+0.0%);"
        " the fake Telegram + people open 1.50, closed 1.00 (+50.0%)"
    )
