"""The arena runs end to end, including an external program over the agent protocol."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _arena(*args: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "bench.arena", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_arena_prints_the_table() -> None:
    out = _arena("rules", "random", "--games", "4", "--workers", "1", "--max-hands", "3")
    assert "rerun: python -m bench.arena rules random" in out
    assert "95% CI" in out
    assert "contracts made" in out and "decision time" in out
    row = next(
        ln.split()
        for ln in out.splitlines()
        if ln.split()[:1] == ["rules"] and ln.split()[1].isdigit()
    )
    assert int(row[2]) >= 3  # games won of 4: the rule player beats random play


def test_arena_drives_an_external_agent() -> None:
    ext = "ext:" + sys.executable + " -m engine agent --level amateur"
    out = _arena(ext, "random", "--games", "2", "--workers", "1", "--max-hands", "1")
    assert "decision time" in out and "ext:" in out


def test_arena_plays_the_pimc_baseline_and_individual_games() -> None:
    out = _arena("pimc", "rules", "--games", "2", "--max-hands", "1")
    assert "pimc vs rules (teams): 2 games" in out and "pimc " in out
    out = _arena("amateur", "rules", "--players", "3", "--games", "3", "--max-hands", "2")
    assert "amateur at one seat of 3" in out and "an equal player wins 33.3%" in out
    row = next(ln.split() for ln in out.splitlines() if ln.split()[:1] == ["rules"])
    assert row[1] == "6"  # two rule seats in each of the three games


def test_arena_plays_the_plain_baseline() -> None:
    out = _arena("plain", "rules", "--games", "2", "--max-hands", "1")
    assert "plain vs rules (teams): 2 games" in out
    assert "plain's points per hand over rules's" in out and "where the points go" in out


def test_breakdown_counts_every_hand_once_per_kind() -> None:
    from bench.arena import play_game
    from engine.rules import Rules

    game = play_game(Rules(), 3, ["rules", "random"], None, 6)
    for st in game["sides"]:
        bags = sum(st.get(f"by:bags {b}:hands", 0) for b in ("0-4", "5-7", "8-9"))
        score = sum(st.get(f"by:{b}:hands", 0) for b in ("behind", "level", "ahead", "near target"))
        assert bags == score == game["hands"]
        contract = sum(st.get(f"by:contract {b}:hands", 0) for b in ("made", "set"))
        assert contract == st["contracts"]
        assert st.get("by:contract made:hands", 0) == st["made"]
    # Every hand's gain (points over the other side's) is the other side's loss.
    kinds = ("behind", "level", "ahead", "near target")
    gains = [sum(st.get(f"by:{b}:gain", 0) for b in kinds) for st in game["sides"]]
    assert gains[0] == -gains[1]


def test_plain_takes_a_number_of_deals() -> None:
    from bench.arena import Player

    assert Player("plain", 1, None).deals == 24
    assert Player("plain:96", 1, None).deals == 96
    with pytest.raises(SystemExit):
        Player("plain:many", 1, None)
