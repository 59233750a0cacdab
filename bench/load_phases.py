"""``python -m bench.load --app --app-phases SECONDS``: the Mini App open
against closed within one run.

One bot, one database, minutes apart at most: the machine's drift in speed
falls on both kinds alike, which separate runs do not allow. The window is
cut into phases, every page open in half of them and closed (or, with
``--app-baseline stand-in``, reading a stand-in server) in the others; the
first ``--app-settle`` seconds of each are left out, as opening every page
at once is a burst no steady state has. ``python -m bench.phases`` pools
several such runs (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import time
from dataclasses import dataclass
from pathlib import Path

from bench.app_clients import AppClients
from bench.database import count_actions
from bench.machine import cpu_seconds, rss_kib, waited
from bench.people import People
from bench.stats import percentile


@dataclass
class Phase:
    """One measured stretch: the pages open or closed."""

    kind: str
    seconds: float
    moves: int
    bot_cpu: float
    bot_wait: float  # seconds the bot's threads were ready but had no core
    own_wait: float  # the same for this process (the fake Telegram, the people)


PHASES = ("open", "closed")


def phase_kinds(n: int, rng: random.Random) -> list[str]:
    """The phases in pairs (0–1, 2–3, …), each one open and one closed in an
    order drawn at random: neither a drift of the machine's speed nor
    anything the bot does periodically (its inbox pruning) favours a kind,
    as a fixed order did."""
    kinds: list[str] = []
    while len(kinds) < n:
        kinds.extend(rng.sample(PHASES, 2))
    return kinds[:n]


def reads_the_bot(kind: str, args: argparse.Namespace) -> bool:
    """Whether the pages read the bot's streams in a phase of ``kind``."""
    return kind == "open" or args.app_aa


def of_kind(phases: list[Phase], kind: str) -> list[int]:
    return [i for i, p in enumerate(phases) if p.kind == kind]


def pooled(phases: list[Phase], by_phase: dict[int, list[float]], kind: str) -> list[float]:
    """The latencies of every phase of ``kind``."""
    return [x for i in of_kind(phases, kind) for x in by_phase.get(i, [])]


async def run_phases(
    args: argparse.Namespace,
    people: People,
    app: AppClients,
    db: Path,
    pid: int,
    samples: list[int],
) -> list[Phase]:
    """The window as phases of ``--app-phases`` seconds (see the module)."""
    phases: list[Phase] = []
    n = max(2, round(args.seconds / args.app_phases))
    kinds = phase_kinds(n, random.Random(args.seed))
    measured = args.app_phases - args.app_settle
    # The events count within the measured phases whose pages read the bot.
    app.pause_measuring()
    pages = "open"  # every page was opened before the window
    for i in range(n):
        kind = kinds[i]
        if kind != pages and not args.app_aa:
            pages = kind
            if kind == "open":
                app.reopen_all()
            elif args.app_baseline == "stand-in":
                app.to_stand_in()
            else:
                app.close_all()
        await asyncio.sleep(args.app_settle)
        streaming = kind == "open" or args.app_baseline == "stand-in"
        if streaming and app.streams < app.watching:
            await app.ready(30)  # not counted: the window waits for the pages
        gc.freeze()
        moves0, cpu0 = count_actions(db), cpu_seconds(pid)
        wait0, own_wait0 = waited(pid), waited("self")
        t0 = time.perf_counter()
        people.phase = i
        if reads_the_bot(kind, args):
            app.resume_measuring()
        end = t0 + measured
        while (left := end - time.perf_counter()) > 0:
            await asyncio.sleep(min(5.0, left))
            gc.freeze()  # every 5 s, as in a window without phases
        app.pause_measuring()
        people.phase = None
        elapsed = time.perf_counter() - t0
        moves, cpu = count_actions(db) - moves0, cpu_seconds(pid) - cpu0
        waits = waited(pid) - wait0, waited("self") - own_wait0
        phases.append(Phase(kind, elapsed, moves, cpu, *waits))
        samples.append(rss_kib(pid))
    return phases


# What the pages do in the phases named closed, as the report's first line says.
PAGES_IN_CLOSED = {
    "none": "the pages open in those only",
    "stand-in": "the pages read a stand-in server in the others",
    "aa": "every page open in all: an A/A run",
}


def phases_report(
    phases: list[Phase], by_phase: dict[int, list[float]], aa: bool = False, baseline: str = "none"
) -> list[str]:
    """Open against closed, in one run: moves/s, CPU per move, and p50 and
    p99 of the presses made within the measured phases, pooled by kind; and
    the same p50 and p99 for the phases right after the pages opened or
    closed against those after a phase of the same kind, to show whether a
    change leaves a tail in the phase after it."""

    def figures(kind: str) -> tuple[float, ...]:
        mine = [p for p in phases if p.kind == kind]
        moves = max(1, sum(p.moves for p in mine))
        lat = pooled(phases, by_phase, kind)
        return (
            moves / sum(p.seconds for p in mine),
            sum(p.bot_cpu for p in mine) / moves * 1000,
            sum(p.bot_wait for p in mine) / moves * 1000,
            sum(p.own_wait for p in mine) / moves * 1000,
            percentile(lat, 0.5) * 1000,
            percentile(lat, 0.99) * 1000,
        )

    n_open = len(of_kind(phases, "open"))
    counts = {k: len(pooled(phases, by_phase, k)) for k in PHASES}
    lines = [
        f"app phases: {len(phases)} ({n_open} named open, the others closed;"
        f" {PAGES_IN_CLOSED['aa' if aa else baseline]}),"
        f" {phases[0].seconds:.1f} s measured each;"
        f" presses: open {counts['open']}, closed {counts['closed']}"
    ]
    names = (
        "moves/s",
        "bot CPU per move (ms)",
        "bot waited for a core per move (ms)",
        "fake Telegram + people waited for a core per move (ms)",
        "p50 (ms)",
    )
    for name, x, y in zip((*names, "p99 (ms)"), figures("open"), figures("closed"), strict=True):
        lines.append(
            f"  {name}: open {x:.2f}, closed {y:.2f}, open against closed {x / y - 1:+.1%}"
        )
    for kind in PHASES:
        after: dict[bool, list[float]] = {True: [], False: []}
        for i, p in enumerate(phases):
            if p.kind == kind and i > 0:
                after[phases[i - 1].kind != kind].extend(by_phase.get(i, []))
        lines.append(
            f"  {kind}, p50 / p99 (ms): right after the change"
            f" {percentile(after[True], 0.5) * 1000:.1f} / {percentile(after[True], 0.99) * 1000:.1f},"
            f" after a phase like it"
            f" {percentile(after[False], 0.5) * 1000:.1f} / {percentile(after[False], 0.99) * 1000:.1f}"
        )
    return lines
