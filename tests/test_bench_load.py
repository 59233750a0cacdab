"""bench/load.py's own parts that the figures rest on: the per-phase
report and ``--own-nice`` (made-up phases, a child process)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

import load  # noqa: E402


def test_the_phases_report_gives_each_sides_wait_for_a_core_per_move() -> None:
    phases = [
        # kind, seconds, moves, bot CPU, streams CPU, bot wait, own wait
        load.Phase("open", 10.0, 1000, 5.0, 0.3, 3.0, 2.0),
        load.Phase("closed", 10.0, 1000, 5.0, 0.0, 3.0, 1.0),
    ]
    lines = load.phases_report(phases, {0: [0.02], 1: [0.02]})
    bot = next(line for line in lines if "bot waited for a core" in line)
    own = next(line for line in lines if "fake Telegram + people waited" in line)
    assert "open 3.00, closed 3.00, open against closed +0.0%" in bot
    assert "open 2.00, closed 1.00, open against closed +100.0%" in own


CHILD = """
import os, sys, threading
sys.path.insert(0, sys.argv[1])
import load
before = threading.Thread(target=threading.Event().wait, daemon=True)
before.start()
load.renice_self(7)
after = []
t = threading.Thread(target=lambda: after.append(os.getpriority(os.PRIO_PROCESS, 0)))
t.start()
t.join()
alive = [th.native_id for th in threading.enumerate()]  # the main thread and "before"
print(sorted({os.getpriority(os.PRIO_PROCESS, tid) for tid in alive}), len(alive), after)
"""


def test_own_nice_reaches_every_thread_and_those_started_later() -> None:
    done = subprocess.run([sys.executable, "-c", CHILD, str(BENCH)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[7]", "2", "[7]"]
