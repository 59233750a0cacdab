"""Two load runs compared fairly: alternated, repeated, medians.

Run from the checkout's root:
    python -m bench.ab [--pairs 4] [--a=OPTIONS] [--b=OPTIONS] [-- bench.load options]
(``--b=--app-control``: with ``=``, as the options start with a dash; B is
``--app`` and A plain ``bench.load`` unless told.)

A shared machine's speed drifts by tens of per cent over minutes, far more
than the differences worth measuring, so one run of A and one of B, taken
at different times, say nothing. Here A and B alternate (A B B A A B …, so
neither always goes first), each ``--pairs`` times, and the figures compared
are the medians, the pair-by-pair ratios B / A and the percentiles of all of
a side's presses pooled. Each run also shows the fake Telegram's CPU per
move, nearly the same work on both sides: when it is high, the machine was
slow during that run.

Every run is a whole ``python -m bench.load`` (its own bot process,
database and fake Telegram); options after ``--`` go to every run, ``--a``
and ``--b`` to one side each. ``--a-root`` (``--b-root``) runs that side from
another checkout (a worktree of the commit before a change, say: its bench
and its bot). Figures only: nothing here fails on a goal.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, fields
from pathlib import Path

from bench import ROOT
from bench.stats import percentile

MOVES = re.compile(r"= ([\d.]+) moves/s")
MESSAGES = re.compile(r"([\d.]+) messages/s sent or edited")
SHARE = re.compile(r"CPU: bot (\d+) % of a core")
LATENCY = re.compile(r"p50 ([\d.]+) ms, p90 [\d.]+ ms, p99 ([\d.]+) ms")
PER_MOVE = re.compile(r"([\d.]+) ms per move;")
LOOP = re.compile(r"event-loop thread (\d+) %")
FAKE = re.compile(r"fake Telegram \+ people \d+ % \(([\d.]+) ms per move\)")
WAITS = re.compile(
    r"waited for a core: bot ([\d.]+) ms per move .*fake Telegram \+ people ([\d.]+) ms per move"
)


@dataclass
class Figures:
    moves: float
    messages: float  # sent or edited a second
    p50: float
    p99: float
    cpu_ms: float  # the bot's CPU per move
    share: float  # the bot's CPU, % of a core
    loop: float  # the bot's event-loop thread, % of a core
    # The fake Telegram's and the people's CPU per move: about the same work
    # on both sides, so it shows the machine's speed at the time of the run.
    fake_ms: float
    # Time spent ready to run but waiting for a core, per move: the bot's
    # threads, and the fake Telegram's and the people's.
    bot_wait_ms: float
    fake_wait_ms: float


def run(options: list[str], latencies: list[float], root: Path = ROOT) -> Figures:
    """One bench.load run from the checkout ``root``; its presses' latencies
    (ms) are added to ``latencies``."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "latencies.json"
        cmd = [sys.executable, "-m", "bench.load", *options, "--latencies", str(path)]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=root).stdout
        latencies.extend(json.loads(path.read_text()))

    def first(pattern: re.Pattern[str], group: int = 1) -> float:
        found = pattern.search(out)
        if found is None:
            raise RuntimeError(f"no {pattern.pattern!r} in the output of {shlex.join(cmd)}")
        return float(found.group(group))

    return Figures(
        moves=first(MOVES),
        messages=first(MESSAGES),
        p50=first(LATENCY, 1),
        p99=first(LATENCY, 2),
        cpu_ms=first(PER_MOVE),
        share=first(SHARE),
        loop=first(LOOP),
        fake_ms=first(FAKE),
        bot_wait_ms=first(WAITS, 1),
        fake_wait_ms=first(WAITS, 2),
    )


def line(name: str, f: Figures) -> str:
    return (
        f"{name}: {f.moves:6.1f} moves/s, {f.messages:.1f} messages/s,"
        f" p50 {f.p50:6.1f} ms, p99 {f.p99:6.1f} ms,"
        f" bot {f.cpu_ms:.2f} ms CPU per move ({f.share:.0f} % of a core), loop {f.loop:.0f} %,"
        f" fake Telegram {f.fake_ms:.2f} ms per move;"
        f" waited for a core: bot {f.bot_wait_ms:.2f}, fake {f.fake_wait_ms:.2f} ms per move"
    )


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m bench.ab", description=__doc__.split("\n")[0])
    p.add_argument("--pairs", type=int, default=4)
    p.add_argument("--a", default="", help="bench.load options of side A (quoted)")
    p.add_argument("--b", default="--app", help="bench.load options of side B (quoted)")
    p.add_argument("--a-root", type=Path, default=ROOT, help="the checkout side A runs from")
    p.add_argument("--b-root", type=Path, default=ROOT, help="the checkout side B runs from")
    p.add_argument("common", nargs=argparse.REMAINDER, help="-- then options for every run")
    args = p.parse_args()
    common = [o for o in args.common if o != "--"]
    sides = {"A": shlex.split(args.a) + common, "B": shlex.split(args.b) + common}
    print(f"command: python -m bench.ab {shlex.join(sys.argv[1:])}".rstrip())
    roots = {"A": args.a_root.resolve(), "B": args.b_root.resolve()}
    for name in ("A", "B"):
        print(f"{name} = bench.load {shlex.join(sides[name])} (in {roots[name]})")
    got: dict[str, list[Figures]] = {"A": [], "B": []}
    pooled: dict[str, list[float]] = {"A": [], "B": []}
    for i in range(args.pairs):
        order = "AB" if i % 2 == 0 else "BA"
        for name in order:
            figures = run(sides[name], pooled[name], roots[name])
            got[name].append(figures)
            print(f"pair {i + 1} {line(name, figures)}", flush=True)
    a, b = got["A"], got["B"]

    def median(side: list[Figures], attr: str) -> float:
        return float(statistics.median(getattr(f, attr) for f in side))

    print()
    for name, side in (("A", a), ("B", b)):
        print(
            line(
                f"median {name}",
                Figures(*(median(side, f.name) for f in fields(Figures))),
            )
        )
    # Every press of a side's runs together: one run's p99 rests on its ~35
    # slowest presses, the pooled one on all the runs' (the medians above
    # keep one run's bad minute from moving a side).
    q = {name: (percentile(v, 0.5), percentile(v, 0.99)) for name, v in pooled.items()}
    for name in ("A", "B"):
        print(
            f"pooled {name}: {len(pooled[name])} presses, p50 {q[name][0]:.1f} ms,"
            f" p99 {q[name][1]:.1f} ms"
        )
    print(
        f"B against A, pooled: p50 {q['B'][0] / q['A'][0] - 1:+.1%},"
        f" p99 {q['B'][1] / q['A'][1] - 1:+.1%}"
    )
    for attr, label in (("moves", "moves/s"), ("p50", "p50"), ("p99", "p99")):
        ratios = [getattr(y, attr) / getattr(x, attr) - 1 for x, y in zip(a, b, strict=True)]
        print(
            f"B against A, {label}: medians {median(b, attr) / median(a, attr) - 1:+.1%};"
            f" pair by pair {', '.join(f'{r:+.1%}' for r in ratios)}"
        )


if __name__ == "__main__":
    main()
