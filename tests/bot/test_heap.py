"""The bot's own process leaves its heap to Python's collector (bot/heap.py
is the computer player's workers' alone: tests/bot/test_thinking.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def test_python_m_bot_freezes_nothing(tmp_path: Path) -> None:
    """``main`` with the App stubbed out, in a process of its own: no
    ``gc.freeze`` before or while the bot runs."""
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
    done = subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        cwd=tmp_path,  # no developer's .env
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == [0, [0], 0]
