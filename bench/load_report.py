"""What ``python -m bench.load`` prints after its window (docs/benchmarks.md
says what each figure means), and the files its ``--latencies`` and
``--phase-latencies`` write for ``bench.ab`` and ``bench.phases``."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from fake_telegram import FakeTelegram

from bench.app_clients import AppClients
from bench.database import Storage, hour_window, print_storage
from bench.load_phases import Phase, phases_report, reads_the_bot
from bench.machine import LoopLag, Spent
from bench.people import KINDS, People
from bench.stats import percentile


@dataclass
class Window:
    """What one run measured, besides the people's own counts."""

    seconds: float
    moves: int
    spent: Spent
    calls: Counter[str]  # Bot API calls by method
    group_sends: int  # new messages in the groups
    hands: int  # hands finished (their result lines)
    samples: list[int]  # the bot's RSS during the window, KiB
    peak: int  # the bot's peak RSS, KiB
    phases: list[Phase]
    stored: list[Storage]
    # Before the window: opening the tables took setup_s seconds, and the
    # bot's RSS in KiB was memory[i][1] with memory[i][0] tables open.
    setup_s: float = 0.0
    memory: list[tuple[int, int]] = field(default_factory=list)


def call_counts(fake: FakeTelegram, since: int) -> tuple[Counter[str], int, int]:
    """Calls by method since index ``since``; new group messages; result lines."""
    by_method: Counter[str] = Counter()
    group_sends = results = 0
    for call in fake.calls[since:]:
        by_method[call.method] += 1
        if call.method == "sendMessage" and (call.chat_id or 0) < 0 and call.ok:
            group_sends += 1
            if "сыграна" in str(call.params.get("text", "")):
                results += 1
    return by_method, group_sends, results


def per_move(seconds: float, moves: int) -> str:
    return f"{seconds / max(1, moves) * 1000:.2f} ms per move"


# The calls that count against Telegram's ~30 messages a second.
MESSAGE_CALLS = frozenset({"sendMessage", "editMessageText", "sendPhoto", "deleteMessage"})


def report(
    args: argparse.Namespace,
    w: Window,
    people: People,
    lag: LoopLag,
    app: AppClients | None,
    bot_log: Path,
) -> None:
    s, moves, elapsed = w.spent, w.moves, w.seconds
    lat = people.latencies
    print(f"command: python -m bench.load {shlex.join(sys.argv[1:])}".rstrip())
    print(
        f"{'realistic profile: ' if args.realistic else ''}"
        f"tables {args.tables} real-time (people per table cycling {KINDS}),"
        f" {args.daily} by the day, think {args.think_range[0]:g}-{args.think_range[1]:g} s,"
        f" ai {args.ai_level} (move delay {args.ai_move_delay} s),"
        f" pacing: group {args.group_per_minute}/min, private {args.private_per_second}/s,"
        f" global {args.global_per_second}/s; set-up {w.setup_s:.1f} s"
    )
    sent = sum(n for m, n in w.calls.items() if m in MESSAGE_CALLS)
    print(
        f"window {elapsed:.1f} s: {moves} moves = {moves / elapsed:.1f} moves/s;"
        f" {sent / elapsed:.1f} messages/s sent or edited"
    )
    all_ticks, idle, stolen = s.ticks
    print(
        f"CPU: bot {s.bot / elapsed * 100:.0f} % of a core"
        f" (event-loop thread {s.loop / elapsed * 100:.0f} %), {per_move(s.bot, moves)};"
        f" computer player's processes {s.ai / elapsed * 100:.0f} %"
        f" ({per_move(s.ai, moves)});"
        f" fake Telegram + people {s.own / elapsed * 100:.0f} % ({per_move(s.own, moves)});"
        f" machine load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores,"
        f" busy {(all_ticks - idle) / max(1, all_ticks) * 100:.0f} %,"
        f" stolen by the host {stolen / max(1, all_ticks) * 100:.1f} %"
    )
    print(
        f"waited for a core: bot {per_move(s.bot_wait, moves)}"
        f" (event-loop thread {s.loop_wait / max(1, moves) * 1000:.2f} ms),"
        f" fake Telegram + people {per_move(s.own_wait, moves)}"
    )
    late = lag.late
    print(
        f"the fake Telegram's loop (this process) woke late: p50 {percentile(late, 0.5) * 1000:.1f} ms,"
        f" p99 {percentile(late, 0.99) * 1000:.1f} ms, max {max(late, default=0.0) * 1000:.1f} ms;"
        f" its garbage collector {sum(lag.gc_pauses):.2f} s in {len(lag.gc_pauses)} runs,"
        f" longest {max(lag.gc_pauses, default=0.0) * 1000:.1f} ms"
    )
    print(
        f"press -> answer: {len(lat)} presses, p50 {percentile(lat, 0.5) * 1000:.1f} ms,"
        f" p90 {percentile(lat, 0.9) * 1000:.1f} ms,"
        f" p99 {percentile(lat, 0.99) * 1000:.1f} ms,"
        f" max {max(lat, default=float('nan')) * 1000:.1f} ms,"
        f" mean {statistics.fmean(lat) * 1000 if lat else float('nan'):.1f} ms"
    )
    api_calls = sum(n for m, n in w.calls.items() if m != "getUpdates")
    print(
        f"Bot API calls per move: {api_calls / max(1, moves):.2f}"
        f" ({api_calls} calls: {dict(w.calls.most_common())})"
    )
    print(
        f"new group messages per hand: {w.group_sends / max(1, w.hands):.2f}"
        f" ({w.group_sends} sends, {w.hands} hands finished)"
    )
    memory(args.tables, w)
    print(f"answers: {dict(people.answers.most_common(6))}")
    if app is not None:
        # With --app-phases the events count in the phases reading the bot only.
        reading = [p for p in w.phases if reads_the_bot(p.kind, args)]
        print(app.summary(sum(p.seconds for p in reading) or elapsed))
    if w.phases:
        print("\n".join(phases_report(w.phases, people.by_phase, args.app_aa, args.app_baseline)))
    if w.stored:
        print_storage(w.stored, moves, hour_window() if args.hour_equivalent else None)
    for line in bot_log.read_text(errors="replace").splitlines():
        if "computer decisions:" in line:  # the whole run's, logged by the bot at exit
            print(line[line.index("computer decisions:") :] + " (whole run)")
    if args.profile:
        print(f"profile written to {args.profile} (python -m pstats {args.profile})")
    if args.latencies:
        Path(args.latencies).write_text(json.dumps([round(x * 1000, 3) for x in lat]))
    if args.phase_latencies and w.phases:
        ms = [
            {
                "kind": p.kind,
                "ms": [round(x * 1000, 3) for x in people.by_phase.get(i, [])],
                "moves": p.moves,
                "bot_wait": round(p.bot_wait, 4),
                "own_wait": round(p.own_wait, 4),
            }
            for i, p in enumerate(w.phases)
        ]
        Path(args.phase_latencies).write_text(json.dumps(ms))


def memory(tables: int, w: Window) -> None:
    """The bot's resident size as the tables opened, and per table."""
    series = w.memory
    base = series[0][1]
    steps = ", ".join(f"{n}:{kib / 1024:.1f}" for n, kib in series)
    per_table = [
        (series[i][1] - series[i - 1][1]) / max(1, series[i][0] - series[i - 1][0])
        for i in range(1, len(series))
    ]
    print(
        f"bot RSS MiB after N tables (N:MiB): {steps}; during load max {max(w.samples, default=0) / 1024:.1f}"
    )
    print(
        f"memory per table: peak {(w.peak - base) / tables:.0f} KiB"
        f" (peak {w.peak / 1024:.1f} MiB, before tables {base / 1024:.1f} MiB);"
        f" per step {', '.join(f'{x:.0f}' for x in per_table)} KiB"
    )
