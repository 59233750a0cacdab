"""The bot's own process leaves its heap to Python's collector (bot/heap.py
is the computer player's workers' alone: tests/bot/test_thinking.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from bot_processes import python


def test_python_m_bot_freezes_nothing(tmp_path: Path) -> None:
    """``main`` with the App stubbed out, in a process of its own: no
    ``gc.freeze`` before or while the bot runs.

    The process is forked from the zygote, whose imports are the bot's own
    (``bot.__main__`` and all it imports) and which freezes nothing itself:
    a freeze made while importing stays in the fork's count, one made in
    ``bot/__main__.py`` or ``main`` is made in the fork, as in a fresh
    ``python -c``."""
    script = """
import gc, json
import bot.__main__ as entry

seen = []

class Stub:
    def __init__(self, settings):
        pass

    async def run(self, **_):
        seen.append(gc.get_freeze_count())

entry.App = Stub
rc = entry.main()
print(json.dumps([rc, seen, gc.get_freeze_count()]))
"""
    root = str(Path(__file__).resolve().parents[2])  # this checkout's bot, not an installed one
    env = {**os.environ, "BOT_TOKEN": "42:TEST", "PYTHONPATH": root}
    out, err = tmp_path / "stdout", tmp_path / "stderr"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        # cwd: no developer's .env
        done = python(["-c", script], env, tmp_path, stdout=stdout.fileno(), stderr=stderr.fileno())
    code = done.wait(120)
    assert code == 0, err.read_text()
    assert json.loads(out.read_text().splitlines()[-1]) == [0, [0], 0]
