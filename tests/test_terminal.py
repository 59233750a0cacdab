"""``python -m terminal``: the game in the terminal reads its words from
locales/, asks the engine why a move is refused, and shows the club exchange."""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
from pathlib import Path

from engine.game import Game
from terminal.game import Terminal

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str, stdin: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "terminal", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_scripted_hand() -> None:
    out = _run("--seed", "4", "--hands", "1", "--level", "amateur", stdin="3\n" + "1\n" * 13)
    assert "Раздача 1 сыграна" in out
    assert out.count("Взятку берёт") == 13
    assert "Пики: 4 игрока, правила «Классика», сид 4." in out


def test_stops_cleanly_on_end_of_input() -> None:
    out = _run("--seed", "4", "--preset", "club", stdin="")
    assert "Игра прервана" in out


def test_english_and_the_engines_refusals() -> None:
    # Bid 3, then try a card not in the hand and a word that is no card.
    out = _run("--seed", "4", "--hands", "1", "--lang", "en", stdin="3\nQS\nzz\nquit\n")
    assert "Your cards:" in out and "You may play:" in out
    assert "You do not have that card." in out  # the engine's card_not_in_hand
    assert "Unknown card" in out and out.rstrip().endswith("Game stopped.")


def _terminal(script: str) -> tuple[Terminal, io.StringIO]:
    args = argparse.Namespace(
        preset="club", players=4, seed=7, seat=0, level="novice", hands=1, lang="ru"
    )
    out = io.StringIO()
    return Terminal(args, io.StringIO(script), out), out


def test_blind_nil_and_the_exchange() -> None:
    t, out = _terminal("да\n1\n1\nвыход\n")
    # The player's team 200 behind, before the first bid: blind nil is offered.
    d = json.loads(json.dumps(t.game.to_dict()))
    d["totals"], d["dealer"], d["to_move"] = [0, 200], 3, 0
    t.game = Game.from_dict(d)
    assert t.run() == 0
    text = out.getvalue()
    assert "Вам доступен слепой ноль" in text
    assert "Север (вы) заявляет" not in text  # the player's own bid is not announced
    assert "Какую карту отдать (Юг (партнёр)), 1-ю из двух?" in text
    assert "Какую карту отдать (Юг (партнёр)), 2-ю из двух?" in text
    assert "Север (вы) передаёт Юг (партнёр): " in text
    assert "Юг (партнёр) передаёт Север (вы): " in text
    assert text.rstrip().endswith("Игра прервана.")
