"""The Mini App open against closed, within runs, pooled over several runs,
with how far the figures could be off.

Run from the checkout's root:
    python -m bench.phases [--runs 3] [-- bench.load options]
(by default each run is ``bench.load --app --app-phases 20 --seconds 320``).

Each run is a whole ``python -m bench.load --app --app-phases`` (its own
bot, database and fake Telegram) in which the pages are open in half of the
phases and closed in the others (:mod:`bench.load_phases`): both kinds meet
the machine at the same speed, which separate runs minutes apart do not.
Printed: every run's comparison, then moves/s over all the runs' phases and
the p50 and p99 of all their presses pooled, open against closed. Each run
draws its own phase order (``bench.load --seed``: the run's number, unless
the options give one). ``--keep DIR`` writes each run to a file; ``--again
FILE …`` pools such files anew without running anything.

The machine's speed also drifts within a run, so each figure comes with a
90 % interval from a bootstrap over the pairs of neighbouring phases (one
open, one closed: phases 0–1, 2–3, …, drawn with replacement, pooled again,
``--resamples`` times); a comparison whose interval holds 0 did not tell
the two apart. ``-- --app --app-aa …`` (every page open in all phases) is an
A/A run: its interval should hold 0.

Pooled presses give a run on a slow stretch of the machine the whole top
percent, so p50 and p99 are also given pair by pair: each pair's own ratio
(the open phase's quantile over the closed one's), their median (which a
burst in one phase cannot move) and their geometric mean (every pair weighs
the same; a tail the app adds now and then still counts), each with its
bootstrap interval. Figures only: nothing here fails on a goal.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import ROOT
from bench.stats import percentile

DEFAULT = ["--app", "--app-phases", "20", "--seconds", "320"]
MOVES = re.compile(r"moves/s: open ([\d.]+), closed ([\d.]+)")

# One open and one closed phase next to each other: their latencies (ms).
Pair = dict[str, list[float]]
# A figure of open against closed over some pairs, at a quantile.
Figure = Callable[[list[Pair], float], float]


def pairs_of(phases: list[dict[str, Any]]) -> list[Pair]:
    """Phases 0–1, 2–3, …: bench.load draws each such pair as one open and one
    closed phase, in either order (a pair that is not is left out)."""
    out: list[Pair] = []
    for a, b in zip(phases[0::2], phases[1::2], strict=False):
        pair: Pair = {a["kind"]: a["ms"], b["kind"]: b["ms"]}
        if set(pair) == {"open", "closed"}:
            out.append(pair)
    return out


def ratio(pairs: list[Pair], q: float) -> float:
    """Open against closed at quantile ``q`` of the pairs' presses pooled."""
    o = [x for p in pairs for x in p["open"]]
    c = [x for p in pairs for x in p["closed"]]
    return percentile(o, q) / percentile(c, q) - 1


def pair_ratios(pairs: list[Pair], q: float) -> list[float]:
    """Each pair's own open against closed at quantile ``q`` (log scale)."""
    return [
        math.log(percentile(p["open"], q) / percentile(p["closed"], q))
        for p in pairs
        if p["open"] and p["closed"]
    ]


def median_pair(pairs: list[Pair], q: float) -> float:
    """The median of the pairs' own ratios: a slow stretch of the machine
    weighs one pair, where pooled it gives the slow run the whole top percent."""
    return math.exp(statistics.median(pair_ratios(pairs, q))) - 1


def mean_pair(pairs: list[Pair], q: float) -> float:
    """The geometric mean of the pairs' own ratios: every pair weighs the
    same, and a tail the app adds in some open phases only still counts."""
    return math.exp(statistics.fmean(pair_ratios(pairs, q))) - 1


def interval(
    pairs: list[Pair], q: float, resamples: int, seed: int, figure: Figure = ratio
) -> tuple[float, float]:
    """The 5th and 95th percentile of ``figure`` over bootstrap draws of the pairs."""
    rng = random.Random(seed)
    draws = sorted(figure(rng.choices(pairs, k=len(pairs)), q) for _ in range(resamples))
    return percentile(draws, 0.05), percentile(draws, 0.95)


def waits(phases: list[dict[str, Any]]) -> str:
    """How long the bot's threads and bench.load's process (the fake Telegram,
    the people) waited for a core per move, open against closed: where the
    pages' cost to the presses falls on this shared machine."""
    out = []
    for key, name in (("bot_wait", "the bot"), ("own_wait", "the fake Telegram + people")):
        per_move = {
            kind: sum(p[key] for p in phases if p["kind"] == kind)
            / max(1, sum(p["moves"] for p in phases if p["kind"] == kind))
            * 1000
            for kind in ("open", "closed")
        }
        o, c = per_move["open"], per_move["closed"]
        out.append(f"{name} open {o:.2f}, closed {c:.2f} ({o / c - 1 if c else 0.0:+.1%})")
    return "waited for a core per move (ms): " + "; ".join(out)


def run_once(options: list[str]) -> dict[str, Any]:
    """One whole bench.load run: its moves/s open and closed, its lines about
    the app, and its phases' latencies."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "phases.json"
        cmd = [sys.executable, "-m", "bench.load", *options, "--phase-latencies", str(path)]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT).stdout
        phases = json.loads(path.read_text())
    found = MOVES.search(out)
    if found is None:
        raise RuntimeError(f"no phases in the output of {shlex.join(cmd)}")
    lines = [line for line in out.splitlines() if line.startswith(("app", "  "))]
    moves = {"open": float(found[1]), "closed": float(found[2])}
    return {"options": options, "moves": moves, "lines": lines, "phases": phases}


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m bench.phases", description=__doc__.split("\n")[0])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--resamples", type=int, default=1000)
    p.add_argument("--seed", type=int, default=1, help="of the bootstrap's draws")
    p.add_argument("--keep", help="write each run (moves/s, lines, phases) to this folder")
    p.add_argument(
        "--again",
        nargs="+",
        metavar="RUN",
        help="no new runs: pool these files of earlier runs (written by --keep)",
    )
    p.add_argument("options", nargs=argparse.REMAINDER, help="-- then bench.load options")
    args = p.parse_args()
    options = [o for o in args.options if o != "--"] or DEFAULT
    print(f"command: python -m bench.phases {shlex.join(sys.argv[1:])}".rstrip())
    if not args.again:
        print(f"each run: bench.load {shlex.join(options)}")
    pairs: list[Pair] = []
    every: list[dict[str, Any]] = []  # every run's phases
    rates: dict[str, list[float]] = {"open": [], "closed": []}
    runs = len(args.again) if args.again else args.runs
    # Each run its own phase order (bench.load --seed), unless one is given:
    # the same order in every run would put anything periodic the same way.
    seeded = any(o == "--seed" or o.startswith("--seed=") for o in options)
    if args.keep:
        Path(args.keep).mkdir(parents=True, exist_ok=True)
    for n in range(runs):
        if args.again:
            run = json.loads(Path(args.again[n]).read_text())
            print(f"run {n + 1} ({args.again[n]}: bench.load {shlex.join(run['options'])}):")
        else:
            run = run_once(options if seeded else [*options, "--seed", str(n + 1)])
            print(f"run {n + 1}:")
            if args.keep:
                (Path(args.keep) / f"run-{n + 1}.json").write_text(json.dumps(run))
        print("\n".join(run["lines"]))
        for kind in rates:
            rates[kind].append(run["moves"][kind])
        pairs.extend(pairs_of(run["phases"]))
        every.extend(run["phases"])
    print()
    mo, mc = sum(rates["open"]) / runs, sum(rates["closed"]) / runs
    print(f"all runs: moves/s open {mo:.1f}, closed {mc:.1f}: {mo / mc - 1:+.1%}")
    if all("bot_wait" in ph for ph in every):  # files kept before these were written lack them
        print(f"all runs, {waits(every)}")
    n_open = sum(len(p["open"]) for p in pairs)
    n_closed = sum(len(p["closed"]) for p in pairs)
    for q, name in ((0.5, "p50"), (0.99, "p99")):
        low, high = interval(pairs, q, args.resamples, args.seed)
        print(
            f"all runs, {name} of {n_open} and {n_closed} presses pooled ({len(pairs)} pairs of"
            f" phases): open against closed {ratio(pairs, q):+.1%},"
            f" 90 % interval {low:+.1%} to {high:+.1%}"
        )
        for figure, label in ((median_pair, "median"), (mean_pair, "geometric mean")):
            low, high = interval(pairs, q, args.resamples, args.seed, figure)
            print(
                f"all runs, {name} pair by pair, {label} of the {len(pairs)} pairs' own ratios:"
                f" {figure(pairs, q):+.1%}, 90 % interval {low:+.1%} to {high:+.1%}"
            )


if __name__ == "__main__":
    main()
