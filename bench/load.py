"""Load: many tables at once through the fake Bot API over HTTP, real SQLite file.

Run from the checkout's root:
    python -m bench.load [--tables 200] [--seconds 60] [--ai-level novice]

The bot runs as ``python -m bot`` in its own process, as deployed, from this
checkout; this process is Telegram (``tests/fake_telegram`` on 127.0.0.1)
and the simulated people (:mod:`bench.people`). It opens the tables, waits
``--warmup`` seconds, then measures a window of ``--seconds``: moves per
second, press → answer latency, Bot API calls per move, CPU, waits for a
core and memory of every process (:mod:`bench.load_report`), and with
``--storage`` the database (:mod:`bench.database`). ``--app`` keeps the Mini
App open on every person's seat (:mod:`bench.app_clients`); ``--app-phases``
compares it open and closed within one run (:mod:`bench.load_phases`).

Telegram's per-group limit stays on (table edits coalesce as in
production); the per-private-chat and global limits and button throttling
are off, or the run would measure Telegram's quota instead of the bot.
What every figure and option means: docs/benchmarks.md. Figures only:
nothing here fails on a goal.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fake_telegram import FakeTelegram

from bench import ROOT
from bench.app_clients import AppClients
from bench.database import count_actions, hour_window, storage
from bench.load_phases import Phase, run_phases
from bench.load_report import Window, call_counts, report
from bench.machine import LoopLag, Meter, end_bot, renice_self, rss_kib
from bench.people import People, open_table, until

# The bot with cProfile switched on for the load window only (SIGUSR1 on,
# SIGUSR2 off and write the stats to argv[1]).
PROFILED_BOT = """
import cProfile, signal, sys
from bot.__main__ import main
profiler = cProfile.Profile()
signal.signal(signal.SIGUSR1, lambda *_: profiler.enable())
def stop(*_):
    profiler.disable()
    profiler.dump_stats(sys.argv[1])
signal.signal(signal.SIGUSR2, stop)
sys.exit(main())
"""


def bot_env(
    args: argparse.Namespace, fake: FakeTelegram, db: Path, app: AppClients | None
) -> dict[str, str]:
    env = {
        **os.environ,
        "BOT_TOKEN": fake.token,
        "BOT_API_URL": fake.base_url,
        "DATABASE_PATH": str(db),
        "AI_MOVE_DELAY": str(args.ai_move_delay),
        "AI_LEVEL": args.ai_level,
        "GROUP_MESSAGES_PER_MINUTE": str(args.group_per_minute),
        "PRIVATE_MESSAGES_PER_SECOND": str(args.private_per_second),
        "GLOBAL_MESSAGES_PER_SECOND": str(args.global_per_second),
        "LOG_LEVEL": "WARNING",
        # Simulated people press the moment their buttons arrive, several
        # times a second at a table with computer seats: no mashing guard.
        "PRESS_LIMIT": str(args.press_limit),
    }
    if app is not None:
        env.update(app.env())
    elif args.app_configured:  # the button in every hand, no page ever opened
        env.update(AppClients(fake).env())
    env.update(args.bot_env)
    return env


async def measure(
    args: argparse.Namespace,
    people: People,
    app: AppClients | None,
    proc: subprocess.Popen[bytes],
    db: Path,
    lag: LoopLag,
) -> Window:
    """The load window, once every table plays: what it measured."""
    fake, pid = people.fake, proc.pid
    people.measuring = lag.measuring = True
    if app is not None:
        app.start_measuring()
    if args.profile:
        proc.send_signal(signal.SIGUSR1)
    since = len(fake.calls)
    moves0 = count_actions(db)
    meter = Meter(pid)
    start = time.perf_counter()
    stored = [storage(db, 0.0, detail=True)] if args.storage else []
    next_sample = args.sample
    samples: list[int] = []
    phases: list[Phase] = []
    if app is not None and args.app_phases:
        phases = await run_phases(args, people, app, db, pid, samples)
    while not phases and time.perf_counter() - start < args.seconds:
        await asyncio.sleep(min(5.0, args.seconds))
        gc.freeze()  # as before the window: only what is newer is walked
        samples.append(rss_kib(pid))
        now = time.perf_counter() - start
        if args.storage and now >= next_sample and now < args.seconds:
            next_sample += args.sample
            stored.append(storage(db, now))
    elapsed = time.perf_counter() - start
    spent = meter.spent()
    moves = count_actions(db) - moves0
    if args.storage:
        stored.append(storage(db, elapsed, detail=True))
    people.measuring = lag.measuring = False
    if app is not None:
        app.stop_measuring()
    if args.profile:
        proc.send_signal(signal.SIGUSR2)
        await asyncio.sleep(1.0)
    calls, group_sends, hands = call_counts(fake, since)
    peak = rss_kib(pid, "VmHWM")
    return Window(elapsed, moves, spent, calls, group_sends, hands, samples, peak, phases, stored)


async def run(args: argparse.Namespace) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="piki-load-"))
    db = tmp / "spades.db"
    async with FakeTelegram(bot_username="piki_load_bot") as fake:
        people = People(fake, random.Random(args.seed), think=args.think_range)
        people.hook()
        # --app: the Mini App's streams; --app-control: the same streams elsewhere.
        app = (
            AppClients(
                fake,
                control=args.app_control,
                stand_in=args.app_baseline == "stand-in",
                nice=args.app_nice,
            )
            if args.app or args.app_control
            else None
        )
        cmd = [sys.executable, "-m", "bot"]
        if args.profile:
            cmd = [sys.executable, "-c", PROFILED_BOT, args.profile]
        bot_log = open(tmp / "bot.log", "wb")  # noqa: SIM115 (closed in finally)
        env = bot_env(args, fake, db, app)
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stderr=bot_log)
        if args.own_nice:
            renice_self(args.own_nice)  # the bot (and what it starts) keeps its own
        try:
            await until(lambda: any(c.method == "getUpdates" for c in fake.calls), 60, "polling")
            await asyncio.sleep(1.0)
            memory = [(0, rss_kib(proc.pid))]
            sem = asyncio.Semaphore(args.concurrency)
            sweeper = asyncio.create_task(people.sweep())
            lag = LoopLag()
            lagger = asyncio.create_task(lag.run())
            t0 = time.perf_counter()
            for first in range(0, args.tables, args.step):
                batch = range(first, min(args.tables, first + args.step))
                await asyncio.gather(*(open_table(people, i, sem) for i in batch))
                memory.append((batch[-1] + 1, rss_kib(proc.pid)))
            # Tables played by the day: opened after the real-time ones, their
            # people think for hours.
            for first in range(0, args.daily, args.step):
                batch = range(first, min(args.daily, first + args.step))
                await asyncio.gather(
                    *(
                        open_table(people, args.tables + i, sem, daily=True, think=args.daily_think)
                        for i in batch
                    )
                )
                memory.append((args.tables + batch[-1] + 1, rss_kib(proc.pid)))
            setup_s = time.perf_counter() - t0
            if app is not None:
                await app.start()
                for person in people.by_id.values():
                    app.watch(person.user)
                await app.ready(120)
            await asyncio.sleep(args.warmup)
            # This process keeps every call and message version (the fake's
            # record), and a full collection of all that stalled the fake
            # Telegram, in every latency measured: what it holds is set
            # aside, here and every few seconds, and only what is newer is walked.
            gc.freeze()
            window = await measure(args, people, app, proc, db, lag)
            window.setup_s, window.memory = setup_s, memory
            sweeper.cancel()
            lagger.cancel()
            lag.close()
        finally:
            try:
                if app is not None:
                    await app.close()
            finally:
                end_bot(proc)
                bot_log.close()
    report(args, window, people, lag, app, tmp / "bot.log")


def _env_pair(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    return name, value


def options() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m bench.load", description=(__doc__ or "").split("\n")[0]
    )
    p.add_argument("--tables", type=int, default=200)
    p.add_argument("--seconds", type=float, default=60.0, help="length of the load window")
    p.add_argument("--warmup", type=float, default=5.0)
    p.add_argument("--step", type=int, default=50, help="tables per memory sample")
    p.add_argument("--concurrency", type=int, default=25, help="tables being opened at once")
    p.add_argument(
        "--think",
        type=float,
        default=2.0,
        help="mean seconds a person thinks before pressing (uniform ±50%%); 0: at once",
    )
    p.add_argument(
        "--think-range",
        type=float,
        nargs=2,
        metavar=("LOW", "HIGH"),
        help="seconds a person thinks, uniformly between LOW and HIGH (instead of --think)",
    )
    p.add_argument(
        "--daily",
        type=int,
        default=0,
        help="tables played by the day (a day a move; one person, three computer seats),"
        " besides --tables real-time ones",
    )
    p.add_argument(
        "--daily-think",
        type=float,
        nargs=2,
        default=(1800.0, 7200.0),
        metavar=("LOW", "HIGH"),
        help="seconds the people of the daily tables think",
    )
    p.add_argument(
        "--realistic",
        action="store_true",
        help="the load one bot really gets (docs/benchmarks.md): the bot's own pace and"
        " limits, people thinking 3-15 s, the computer's 1 s pause, the master player,"
        " 500 daily tables, the Mini App open on every seat; --tables real-time tables"
        " (40 unless given)",
    )
    p.add_argument("--ai-level", default="novice", choices=("novice", "amateur", "master"))
    p.add_argument(
        "--ai-move-delay",
        type=float,
        default=0.0,
        help="AI_MOVE_DELAY: the computer's pause before each move (the bot's default is 1)",
    )
    p.add_argument("--group-per-minute", type=int, default=20)
    p.add_argument("--private-per-second", type=float, default=0)
    p.add_argument("--global-per-second", type=float, default=0)
    p.add_argument("--press-limit", type=int, default=0, help="PRESS_LIMIT (0: off)")
    p.add_argument(
        "--app",
        action="store_true",
        help="the Mini App open on every person's seat: its event stream (bench.app_clients)",
    )
    p.add_argument(
        "--app-control",
        action="store_true",
        help="--app's buttons and streams, but the streams read a stand-in server, not the bot",
    )
    p.add_argument(
        "--app-configured",
        action="store_true",
        help="the Mini App configured (its button in every hand) but no page opened",
    )
    p.add_argument(
        "--app-phases",
        type=float,
        default=0.0,
        help="with --app: the window in phases of this many seconds, every page open in half"
        " of them and closed in the rest (pairs in random order), compared in one run",
    )
    p.add_argument(
        "--app-baseline",
        choices=("none", "stand-in"),
        default="none",
        help="with --app-phases: what the phones do in the phases named closed: read nothing"
        " (none), or read the same streams from a stand-in server in their own process"
        " (stand-in), so that only the bot's serving differs between the kinds",
    )
    p.add_argument(
        "--app-aa",
        action="store_true",
        help="with --app-phases: the phases keep their names and order but every page stays"
        " open throughout (an A/A run: its 'open against closed' is the method's noise)",
    )
    p.add_argument(
        "--phase-latencies",
        help="with --app-phases: write each phase's kind and its presses' latencies (ms)"
        " to this file (JSON), to pool several runs (bench.phases)",
    )
    p.add_argument(
        "--app-settle",
        type=float,
        default=5.0,
        help="with --app-phases: seconds at the start of each phase left out",
    )
    p.add_argument(
        "--app-nice",
        default="",
        help="niceness of the app's readers (the phones) on this shared machine,"
        " or 'idle' for the kernel's lowest priority (SCHED_IDLE)",
    )
    p.add_argument(
        "--own-nice",
        type=int,
        default=0,
        help="niceness of this process (the fake Telegram and the people) once the bot"
        " has started; below 0 needs root",
    )
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--bot-env",
        type=_env_pair,
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="one more environment variable for the bot (a setting to compare; repeatable)",
    )
    p.add_argument("--profile", help="run the bot under cProfile, stats to this file")
    p.add_argument(
        "--latencies",
        help="write every press -> answer latency of the window (ms, JSON list) to this file",
    )
    p.add_argument(
        "--storage",
        action="store_true",
        help="report the database's size and the outbox's rows during the load window",
    )
    p.add_argument("--sample", type=float, default=60.0, help="seconds between storage samples")
    p.add_argument(
        "--hour-equivalent",
        action="store_true",
        help="--storage, and a window of 20 outbox retention cycles (docs/benchmarks.md)",
    )
    return p


# --realistic: what one bot's token really carries: Telegram takes ~30
# messages a second from a bot. 40 real-time tables of people thinking 3-15 s
# (the computer waiting its 1 s) make about that (the report says how many).
REALISTIC = {
    "tables": 40,
    "think_range": (3.0, 15.0),
    "ai_move_delay": 1.0,
    "ai_level": "master",
    "group_per_minute": 20,
    "private_per_second": 1.0,
    "global_per_second": 30.0,
    "press_limit": 8,
    "daily": 500,
    "app": True,
}


def profile(args: argparse.Namespace, given: list[str]) -> None:
    """Apply --realistic's values to every option not given on the command line."""
    if args.realistic:
        for name, value in REALISTIC.items():
            flag = "--" + name.replace("_", "-")
            if not any(a == flag or a.startswith(flag + "=") for a in given):
                setattr(args, name, value)
    if args.think_range is None:
        args.think_range = (args.think * 0.5, args.think * 1.5)
    args.think_range = tuple(args.think_range)
    args.daily_think = tuple(args.daily_think)


def main() -> None:
    parser = options()
    args = parser.parse_args()
    profile(args, sys.argv[1:])
    if args.hour_equivalent:
        args.storage = True
        args.seconds = max(args.seconds, 20 * hour_window())
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run(args))


if __name__ == "__main__":
    main()
