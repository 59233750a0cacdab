"""Load: many tables at once through the fake Bot API over HTTP, real SQLite file.

Run: python bench/load.py [--tables 200] [--seconds 60] [--ai-level novice]

The bot runs as ``python -m bot`` in its own process (as deployed); this
process is Telegram (``tests/fake_telegram`` on 127.0.0.1) plus the simulated
people. When their private message offers a move, a person thinks ``--think``
seconds on average (uniformly 0.5–1.5 times that; 2 s by default: a quick
online player) and presses: open the cards rather than bid blind, bid the
number nearest 3, play a random allowed card. ``--think 0`` presses at once:
every table is always waiting for the bot, which measures its capacity (the
latency is then just the queue: waiting presses / moves per second). Tables cycle through four people, two people and two computer
seats, one person and three computer seats; classic rules (to 500 points), so
no game ends in a window of a minute or two. Longer windows see games end
(from about 160 s after the tables start; 83 of 200 in an 800 s window), and
those tables go quiet.

Figures (measured over the load window, after every table is playing):

* moves per second: rows added to ``actions`` (people's and computer's moves);
* press → answer latency (p50/p99): from queueing the callback query in the
  fake until the bot's answerCallbackQuery reaches it (includes the long poll);
* Bot API calls per move: every call but getUpdates, per move;
* new group messages per hand: sendMessage calls to the groups per hand
  finished (the result line is one; everything else edits the table message);
* memory: the bot process's resident size before the tables, after every
  ``--step`` tables, and its peak; per table = (peak − before) / tables;
* the bench's own health: CPU of every process (the bot, its threads, its
  children, the fake with the people), the machine's busy and stolen CPU,
  and how late this process's loop woke and how long its collector paused
  (the fake Telegram runs on that loop, so its stalls are in every latency).

``--latencies FILE`` writes every press's latency of the window as JSON
(``bench/ab.py`` pools them).

Pacing: by default Telegram's per-group limit stays on (20 messages a minute,
so table-message edits coalesce as they would in production); the per-private
chat limit (1/s) and the global one (30/s) are off: a real person needs
seconds per move, the simulated ones do not, and 30 messages/s over all chats
would cap the whole run at roughly 10 moves/s, measuring Telegram's quota
instead of the bot. Change them with --group-per-minute, --private-per-second,
--global-per-second. Button throttling is off (--press-limit): the simulated
people press several times a second at a table with computer seats.

Mini App (``--app``): the app open on every person's seat the whole run, its
event stream (Server-Sent Events) read by ``bench/app_clients.py`` in a
process of its own (the phones, not Telegram); the same figures, plus events
and bytes received and each event's delivery lag. ``--app-control`` is the
same run with the streams reading a stand-in server in that process instead
of the bot (events of the bot's size at its rate): the bot serves no stream,
everything else on the machine is as with ``--app``. Compare ``--app`` with
``--app-control`` for what serving the app costs the bot; a run with neither
also shows what the readers' process costs this 2-core machine (little:
p50 +3 %, p99 +18 % in ``bench/ab.py``'s runs; see README's benchmarks).

``--app --app-phases SECONDS`` compares the app open with the app closed
in one run, for this machine's speed drifts by a third within the hour, more
than separate runs minutes apart can tell from a 10 % difference: the window
is cut into phases of SECONDS, every page open in half of them and closed in
the others (in pairs, each pair's order drawn at random, so neither a drift
nor anything periodic favours one kind), and the first ``--app-settle``
seconds of each are left out (468 pages opening at once is a burst no
steady state has). Printed: moves/s, the bot's and the streams process's
CPU per move, p50 and p99 of the presses made within the phases, open
against closed; and p50 / p99 of the phases right after a change against
those after a phase of the same kind (a tail of the change would show
there). ``--app-baseline stand-in`` keeps the phones reading in the
closed phases too, from the stand-in server of ``--app-control`` (events of
the bot's size at its rate, in the phones' own process): the two kinds then
differ only in who serves the streams, which is what the app costs the bot,
without the phones' own work on this machine's two cores (on their own
hardware they would take nothing from it). Both kinds have the app configured (the
«🃏 Стол» button in every hand); what that alone costs is a comparison of
whole runs (``bench/ab.py --b=--app-configured``). ``--app-aa`` keeps every
page open in all the phases: an A/A run, whose "open against closed" is the
method's own noise (``bench/phases.py`` gives each figure an interval).
``--own-nice -10`` runs the fake Telegram and the people ahead of the
bot's processes and the phones: they stand for other machines, and every
latency is timed on their loop. The per-phase lines also give how long the
bot's threads and this process waited for a core, per move.

``--profile FILE`` runs the bot under cProfile and writes the stats to FILE.

Storage (``--storage``): the database file's size (and its WAL's), the
``outbox`` rows by status, the ``messages`` and ``actions`` rows at the start
and end of the load window and every ``--sample`` seconds between, and at
start and end the bytes each table takes with its indexes (SQLite's
``dbstat``), so growth can be told apart: the game record (``actions``,
``games``, one ``messages`` row per person and hand) grows with the moves
played, as it should; the outbox must not.

One-hour equivalence (``--hour-equivalent``, implies ``--storage``): the
outbox deletes every finished row queued more than ``Outbox.keep_sent``
seconds ago, all of them, every ``Outbox.prune_interval`` seconds. So the
rows it holds at any moment are those queued in the last W = keep_sent +
prune_interval seconds (plus any still pending): after the first W seconds its
size depends on the rate of moves, not on how long the bot has run, and each
further W seconds only repeats the same cycle. The run therefore lasts 20 W
(and at least ``--seconds``): if the outbox's rows and the file's size stay
flat over 20 windows and 20 W / prune_interval prune cycles at the bench's
rate, an hour (3600 / W windows) of the same cycles ends at the same size;
what does grow is the game record, reported apart. The claim holds for the
rate of this run; a higher sustained rate plateaus higher, in proportion.
(The old outbox pruned at most 5,000 rows a minute and kept sent rows an
hour, so at this rate its table grew for the whole hour and beyond.) A literal
hour is ``--storage --seconds 3600``.

Figures only: nothing here fails on a goal.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import shlex
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app_clients import AppClients, percentile
from fake_telegram import FakeMessage, FakeTelegram, FakeUser

from engine import BID, BLIND

# The bot runs from this checkout (``python -m bot`` with it as the working
# directory), so that an A/B worktree measures its own bot; the fake Telegram
# and the engine's action numbers come from the installed project.
ROOT = Path(__file__).resolve().parent.parent

KINDS = (4, 2, 1)  # people per table, cycling
SEATS = ("Север", "Восток", "Юг", "Запад")
FIRST_GROUP = -1001500000000


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


def _env_pair(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    return name, value


def rss_kib(pid: int, field_name: str = "VmRSS") -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field_name + ":"):
                return int(line.split()[1])
    return 0


def _stat(pid: int | str) -> list[str]:
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far."""
    fields = _stat(pid)
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_cpu(pid: int) -> dict[int, float]:
    """CPU seconds of each running child process (the computer player's workers)."""
    out: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                fields = _stat(entry.name)
                if int(fields[1]) == pid:
                    out[int(entry.name)] = cpu_seconds(int(entry.name))
    return out


def is_streams(pid: int) -> bool:
    """The Mini App's streams process (``bot.webapp.streams``), not a computer player's."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return b"bot.webapp.streams" in f.read()
    except OSError:
        return False


def thread_cpu(pid: int) -> dict[int, float]:
    """CPU seconds per thread of a process (the main thread's id is the pid)."""
    out: dict[int, float] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            out[int(task.name)] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return out


def run_delay(pid: int | str) -> dict[int, float]:
    """Seconds each thread of a process has spent ready to run but waiting for
    a core (the second field of ``schedstat``): a process that waits longer
    for the same work shares its cores with more."""
    out: dict[int, float] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError, IndexError, ValueError):
            out[int(task.name)] = int((task / "schedstat").read_text().split()[1]) / 1e9
    return out


def waited(pid: int | str) -> float:
    """Seconds all of a process's threads have waited for a core so far."""
    return sum(run_delay(pid).values())


def renice_self(nice: int) -> None:
    """Every thread of this process at niceness ``nice`` (Linux keeps one per
    thread; threads started later take their starter's). ``--own-nice``: the
    fake Telegram stands for Telegram's servers, which take no core from the
    bot's machine, and every latency is timed on its loop; below 0 it waits
    for no process of the bot's or the phones' on this shared machine."""
    for task in Path("/proc/self/task").iterdir():
        with contextlib.suppress(ProcessLookupError):
            os.setpriority(os.PRIO_PROCESS, int(task.name), nice)


def machine_ticks() -> tuple[int, int, int]:
    """All, idle (with I/O wait) and stolen CPU ticks of the machine so far."""
    with open("/proc/stat") as f:
        values = [int(x) for x in f.readline().split()[1:]]
    return sum(values[:8]), values[3] + values[4], values[7]


class LoopLag:
    """How late this process's loop wakes from a short sleep during the window.

    The fake Telegram and the people run on this loop, and every latency is
    timed on it: a press waits for it to queue the update and the answer for
    it to be noticed. Its own stalls are in every figure, so they are shown.
    """

    TICK = 0.01

    def __init__(self) -> None:
        self.late: list[float] = []
        self.measuring = False
        self.gc_pauses: list[float] = []
        self._gc_start = 0.0
        gc.callbacks.append(self._on_gc)

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._gc_start = time.perf_counter()
        elif self.measuring:
            self.gc_pauses.append(time.perf_counter() - self._gc_start)

    def close(self) -> None:
        gc.callbacks.remove(self._on_gc)

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + self.TICK
            await asyncio.sleep(self.TICK)
            if self.measuring:
                self.late.append(loop.time() - due)


@dataclass
class Phase:
    """One measured stretch of ``--app-phases``: the pages open or closed."""

    kind: str
    seconds: float
    moves: int
    bot_cpu: float
    streams_cpu: float
    bot_wait: float  # seconds the bot's threads were ready but had no core
    own_wait: float  # the same for this process (the fake Telegram, the people)


PHASES = ("open", "closed")


def phase_kinds(n: int, rng: random.Random) -> list[str]:
    """The phases in pairs (0–1, 2–3, …), each one open and one closed in an
    order drawn at random: a drift of the machine's speed favours neither,
    and neither does anything periodic. (A fixed open, closed, closed, open
    of 15-second phases repeats every 60 s, so whatever the bot does every
    minute or five (its inbox pruning: 300 s) fell into the same kind of
    phase each time; an A/A run in that order gave p99 −18 %, its interval
    −29 to −7 %.)"""
    kinds: list[str] = []
    while len(kinds) < n:
        kinds.extend(rng.sample(PHASES, 2))
    return kinds[:n]


def streams_cpu(pid: int) -> float:
    """CPU seconds of the bot's Mini App streams process so far."""
    return sum(t for k, t in children_cpu(pid).items() if is_streams(k))


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
    load: Load,
    app: AppClients,
    db: Path,
    pid: int,
    samples: list[int],
) -> list[Phase]:
    """The window as phases of ``--app-phases`` seconds, the pages open in
    half of them and closed in the other half, in one run: one bot, one
    database, minutes apart at most, so the machine's drift (a third of its
    speed within the hour) falls on both alike. The first ``--app-settle``
    seconds of each phase are left out: opening 468 pages is a burst of
    work that no steady state has."""
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
        streams0 = streams_cpu(pid)
        wait0, own_wait0 = waited(pid), waited("self")
        t0 = time.perf_counter()
        load.phase = i
        if reads_the_bot(kind, args):
            app.resume_measuring()
        end = t0 + measured
        while (left := end - time.perf_counter()) > 0:
            await asyncio.sleep(min(5.0, left))
            gc.freeze()  # every 5 s, as in a window without phases
        app.pause_measuring()
        load.phase = None
        elapsed = time.perf_counter() - t0
        moves, cpu = count_actions(db) - moves0, cpu_seconds(pid) - cpu0
        waits = waited(pid) - wait0, waited("self") - own_wait0
        phases.append(Phase(kind, elapsed, moves, cpu, streams_cpu(pid) - streams0, *waits))
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
            sum(p.streams_cpu for p in mine) / moves * 1000,
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
        "streams process per move (ms)",
        "bot waited for a core per move (ms)",
        "fake Telegram + people waited for a core per move (ms)",
        "p50 (ms)",
    )
    for name, x, y in zip((*names, "p99 (ms)"), figures("open"), figures("closed"), strict=True):
        # The streams process has nearly nothing to do while no page is open.
        versus = "" if name.startswith("streams") else f", open against closed {x / y - 1:+.1%}"
        lines.append(f"  {name}: open {x:.2f}, closed {y:.2f}{versus}")
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


@dataclass
class Person:
    user: FakeUser
    last_key: str | None = None  # "m:table:seq" (or "l:…") of the last press
    busy: bool = False


@dataclass
class Load:
    fake: FakeTelegram
    rng: random.Random
    people: dict[int, Person] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)
    answers: Counter[str] = field(default_factory=Counter)
    think: float = 0.0  # mean seconds a person takes before pressing
    measuring: bool = False
    presses: int = 0
    # --app-phases: which phase is being measured now (its index; None while
    # the streams settle), and the latencies of the presses made wholly
    # within each.
    phase: int | None = None
    by_phase: dict[int, list[float]] = field(default_factory=dict)

    def hook(self) -> None:
        """React to every message the bot sends or edits in a private chat."""
        api = self.fake.api
        real_call = api.call
        loop = asyncio.get_running_loop()

        async def call(method: str, params: dict[str, Any]) -> Any:
            result = await real_call(method, params)
            chat = params.get("chat_id")
            if (
                method in ("sendMessage", "editMessageText")
                and isinstance(chat, int)
                and chat in self.people
                and isinstance(result, dict)
            ):
                loop.call_soon(self.consider, chat, result["message_id"])
            return result

        api.call = call  # type: ignore[method-assign]

    def consider(self, user_id: int, message_id: int) -> None:
        person = self.people[user_id]
        msg = self.fake.chats[user_id].messages.get(message_id)
        if msg is None or person.busy:
            return
        data = self.choose(msg)
        if data is None:
            return
        key = ":".join(data.split(":")[:3])  # one press per offer, whatever the card
        if key == person.last_key:
            return
        person.last_key = key
        person.busy = True
        loop = asyncio.get_running_loop()
        think = self.rng.uniform(0.5, 1.5) * self.think if self.think > 0 else 0.0
        loop.call_later(think, lambda: loop.create_task(self.press(person, msg, data)))

    def choose(self, msg: FakeMessage) -> str | None:
        values = [b.value or "" for b in msg.buttons()]
        moves = [v for v in values if v.startswith("m:")]
        if not moves:
            return None
        acts = {m: int(m.split(":")[3]) for m in moves}
        if BLIND in acts.values():
            return next(v for v in values if v.startswith("l:"))
        bids = [m for m in moves if BID <= acts[m] < BLIND]
        if bids:
            return min(bids, key=lambda m: abs(acts[m] - BID - 3))
        return self.rng.choice(moves)

    async def press(self, person: Person, msg: FakeMessage, data: str) -> None:
        loop = asyncio.get_running_loop()
        try:
            start, phase = loop.time(), self.phase
            press = await self.fake.press_raw(person.user, person.user.id, msg.message_id, data)
            self.presses += 1
            try:
                answer = await press.answer(timeout=30)
            except AssertionError:
                self.answers["no answer"] += 1
                person.last_key = None
                return
            took = loop.time() - start
            text = answer.get("text")
            self.answers["ok" if text is None else text[:30]] += 1
            if self.measuring:
                self.latencies.append(took)
                if phase is not None and phase == self.phase:
                    self.by_phase.setdefault(phase, []).append(took)
            if text is not None:
                person.last_key = None  # refused (stale, too fast…): look again later
        finally:
            person.busy = False

    async def sweep(self) -> None:
        """Every second, anybody whose newest message offers a move they have
        not pressed yet presses it (after a refusal or a missed update)."""
        while True:
            await asyncio.sleep(1.0)
            for uid, person in self.people.items():
                if person.busy:
                    continue
                for m in reversed(self.fake.chat_messages(uid)):
                    if any((b.value or "").startswith(("m:", "l:")) for b in m.buttons()):
                        self.consider(uid, m.message_id)
                        break


async def until(predicate: Any, timeout: float, what: str) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        if loop.time() > end:
            raise RuntimeError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


def table_message(fake: FakeTelegram, group: int) -> FakeMessage | None:
    for m in reversed(fake.chat_messages(group)):
        if any((b.value or "").startswith("t:") for b in m.buttons()):
            return m
    return None


async def open_table(load: Load, index: int, sem: asyncio.Semaphore) -> None:
    fake = load.fake
    humans = KINDS[index % len(KINDS)]
    group = FIRST_GROUP - index
    users = [fake.add_user(10_000 + index * 4 + s, f"Игрок {index}.{s}") for s in range(humans)]
    fake.add_group(group, f"Стол {index}", members=users, admins=users[:1], supergroup=True)
    async with sem:
        for u in users:
            await fake.start_bot(u)
        await until(lambda: all(fake.chat_messages(u.id) for u in users), 60, "welcome")
        await fake.send_text(users[0], group, "/newgame")
        await until(lambda: table_message(fake, group) is not None, 60, "table message")
        for seat, u in enumerate(users[1:], start=1):
            msg = table_message(fake, group)
            assert msg is not None
            button = fake.find_button(msg, text_contains=SEATS[seat])
            await (await fake.press(u, group, msg.message_id, button.value or "")).answer(30)
            await until(
                lambda u=u: (
                    (m := table_message(fake, group)) is not None and u.first_name in m.text
                ),
                60,
                "seat",
            )
        msg = table_message(fake, group)
        assert msg is not None
        for u in users:
            load.people[u.id] = Person(u)
        start = fake.find_button(msg, text_contains="Начать")
        await (await fake.press(users[0], group, msg.message_id, start.value or "")).answer(30)


def count_actions(db: Path) -> int:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        return int(con.execute("SELECT COUNT(*) FROM actions").fetchone()[0])
    finally:
        con.close()


@dataclass
class Storage:
    """The database's size and contents at one moment."""

    at: float  # seconds since the load window began
    file: int  # bytes of the database file
    wal: int  # bytes of its WAL file
    free: int  # bytes of the file that are free pages (reused before it grows)
    outbox: Counter[str]  # rows by status
    messages: int
    actions: int
    tables: dict[str, int] | None = None  # bytes per table with its indexes (dbstat)


def storage(db: Path, at: float, detail: bool = False) -> Storage:
    wal = Path(f"{db}-wal")
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        page = int(con.execute("PRAGMA page_size").fetchone()[0])
        free = int(con.execute("PRAGMA freelist_count").fetchone()[0]) * page
        outbox: Counter[str] = Counter(
            dict(con.execute("SELECT status, COUNT(*) FROM outbox GROUP BY status").fetchall())
        )
        messages = int(con.execute("SELECT COUNT(*) FROM messages").fetchone()[0])
        actions = int(con.execute("SELECT COUNT(*) FROM actions").fetchone()[0])
        tables: dict[str, int] | None = None
        if detail:
            owner = dict(con.execute("SELECT name, tbl_name FROM sqlite_schema").fetchall())
            sizes: Counter[str] = Counter()
            for name, size in con.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name"):
                sizes[owner.get(name, name)] += int(size)
            tables = dict(sizes.most_common())
    finally:
        con.close()
    return Storage(
        at,
        db.stat().st_size,
        wal.stat().st_size if wal.exists() else 0,
        free,
        outbox,
        messages,
        actions,
        tables,
    )


def mib(n: float) -> str:
    return f"{n / 2**20:.1f} MiB"


def storage_line(s: Storage) -> str:
    statuses = ", ".join(f"{k} {v}" for k, v in sorted(s.outbox.items()))
    return (
        f"t={s.at:6.0f} s: file {mib(s.file)} (free pages {mib(s.free)}, WAL {mib(s.wal)});"
        f" outbox {sum(s.outbox.values())} rows ({statuses or 'none'});"
        f" messages {s.messages}; actions {s.actions}"
    )


def hour_window() -> float:
    """W of the docstring: how long a finished row can stay in the outbox."""
    from bot.outbox import Outbox

    return float(Outbox.keep_sent + Outbox.prune_interval)


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


async def run(args: argparse.Namespace) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="piki-load-"))
    db = tmp / "spades.db"
    async with FakeTelegram(bot_username="piki_load_bot") as fake:
        load = Load(fake, random.Random(args.seed), think=args.think)
        load.hook()
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
        cmd = [sys.executable, "-m", "bot"]
        if args.profile:
            cmd = [sys.executable, "-c", PROFILED_BOT, args.profile]
        bot_log = open(tmp / "bot.log", "wb")  # noqa: SIM115 (closed in finally)
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stderr=bot_log)
        if args.own_nice:
            renice_self(args.own_nice)  # the bot (and what it starts) keeps its own
        try:
            await until(lambda: any(c.method == "getUpdates" for c in fake.calls), 60, "polling")
            await asyncio.sleep(1.0)
            base = rss_kib(proc.pid)
            series = [(0, base)]
            sem = asyncio.Semaphore(args.concurrency)
            sweeper = asyncio.create_task(load.sweep())
            lag = LoopLag()
            lagger = asyncio.create_task(lag.run())
            t0 = time.perf_counter()
            for first in range(0, args.tables, args.step):
                batch = range(first, min(args.tables, first + args.step))
                await asyncio.gather(*(open_table(load, i, sem) for i in batch))
                series.append((batch[-1] + 1, rss_kib(proc.pid)))
            setup_s = time.perf_counter() - t0
            if app is not None:
                await app.start()
                for person in load.people.values():
                    app.watch(person.user)
                await app.ready(120)
            await asyncio.sleep(args.warmup)
            # This process keeps every call and message version (the fake's
            # record), so a full collection of its heap stalled the fake
            # Telegram for up to 0.4 s, in every latency measured: what it
            # holds is set aside, here and every few seconds, and only what
            # is newer is walked.
            gc.freeze()

            load.measuring = lag.measuring = True
            ticks0 = machine_ticks()
            if app is not None:
                app.start_measuring()
            if args.profile:
                proc.send_signal(signal.SIGUSR1)
            since = len(fake.calls)
            moves0 = count_actions(db)
            bot_cpu0, own_cpu0 = cpu_seconds(proc.pid), time.process_time()
            kids0 = children_cpu(proc.pid)
            threads0 = thread_cpu(proc.pid)
            waits0, own_waits0 = run_delay(proc.pid), run_delay("self")
            start = time.perf_counter()
            stored = [storage(db, 0.0, detail=True)] if args.storage else []
            next_sample = args.sample
            samples: list[int] = []
            phases: list[Phase] = []
            if app is not None and args.app_phases:
                phases = await run_phases(args, load, app, db, proc.pid, samples)
            while not phases and time.perf_counter() - start < args.seconds:
                await asyncio.sleep(min(5.0, args.seconds))
                gc.freeze()  # as before the window: only what is newer is walked
                samples.append(rss_kib(proc.pid))
                now = time.perf_counter() - start
                if args.storage and now >= next_sample and now < args.seconds:
                    next_sample += args.sample
                    stored.append(storage(db, now))
            elapsed = time.perf_counter() - start
            bot_cpu = cpu_seconds(proc.pid) - bot_cpu0
            kids = children_cpu(proc.pid)
            streams = {k for k in kids if is_streams(k)}
            ai_cpu = sum(t - kids0.get(k, 0.0) for k, t in kids.items() if k not in streams)
            streams_cpu = sum(t - kids0.get(k, 0.0) for k, t in kids.items() if k in streams)
            threads = thread_cpu(proc.pid)
            main_cpu = threads.get(proc.pid, 0.0) - threads0.get(proc.pid, 0.0)
            waits, own_waits = run_delay(proc.pid), run_delay("self")
            bot_wait = sum(t - waits0.get(k, 0.0) for k, t in waits.items())
            main_wait = waits.get(proc.pid, 0.0) - waits0.get(proc.pid, 0.0)
            own_wait = sum(t - own_waits0.get(k, 0.0) for k, t in own_waits.items())
            own_cpu = time.process_time() - own_cpu0
            moves = count_actions(db) - moves0
            if args.storage:
                stored.append(storage(db, elapsed, detail=True))
            load.measuring = lag.measuring = False
            ticks = [b - a for a, b in zip(ticks0, machine_ticks(), strict=True)]
            if app is not None:
                app.stop_measuring()
            if args.profile:
                proc.send_signal(signal.SIGUSR2)
                await asyncio.sleep(1.0)
            by_method, group_sends, hands = call_counts(fake, since)
            peak = rss_kib(proc.pid, "VmHWM")
            sweeper.cancel()
            lagger.cancel()
            lag.close()
        finally:
            try:
                if app is not None:
                    await app.close()
            finally:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
                bot_log.close()

    api_calls = sum(n for m, n in by_method.items() if m != "getUpdates")
    lat = load.latencies
    print(f"command: python bench/load.py {shlex.join(sys.argv[1:])}".rstrip())
    print(
        f"tables {args.tables} (people per table cycling {KINDS}), think {args.think} s,"
        f" ai {args.ai_level} (move delay {args.ai_move_delay} s),"
        f" pacing: group {args.group_per_minute}/min, private {args.private_per_second}/s,"
        f" global {args.global_per_second}/s; set-up {setup_s:.1f} s"
    )
    print(f"window {elapsed:.1f} s: {moves} moves = {moves / elapsed:.1f} moves/s")
    print(
        f"CPU: bot {bot_cpu / elapsed * 100:.0f} % of a core"
        f" (event-loop thread {main_cpu / elapsed * 100:.0f} %),"
        f" {bot_cpu / max(1, moves) * 1000:.2f} ms per move;"
        f" computer player's processes {ai_cpu / elapsed * 100:.0f} %"
        f" ({ai_cpu / max(1, moves) * 1000:.2f} ms per move);"
        f" Mini App streams process {streams_cpu / elapsed * 100:.0f} %"
        f" ({streams_cpu / max(1, moves) * 1000:.2f} ms per move);"
        f" fake Telegram + people {own_cpu / elapsed * 100:.0f} %"
        f" ({own_cpu / max(1, moves) * 1000:.2f} ms per move);"
        f" machine load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores,"
        f" busy {(ticks[0] - ticks[1]) / max(1, ticks[0]) * 100:.0f} %,"
        f" stolen by the host {ticks[2] / max(1, ticks[0]) * 100:.1f} %"
    )
    print(
        f"waited for a core: bot {bot_wait / max(1, moves) * 1000:.2f} ms per move"
        f" (event-loop thread {main_wait / max(1, moves) * 1000:.2f} ms),"
        f" fake Telegram + people {own_wait / max(1, moves) * 1000:.2f} ms per move"
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
    print(
        f"Bot API calls per move: {api_calls / max(1, moves):.2f}"
        f" ({api_calls} calls: {dict(by_method.most_common())})"
    )
    print(
        f"new group messages per hand: {group_sends / max(1, hands):.2f}"
        f" ({group_sends} sends, {hands} hands finished)"
    )
    steps = ", ".join(f"{n}:{kib / 1024:.1f}" for n, kib in series)
    per_table = [
        (series[i][1] - series[i - 1][1]) / max(1, series[i][0] - series[i - 1][0])
        for i in range(1, len(series))
    ]
    print(f"bot RSS MiB after N tables (N:MiB): {steps}; during load max {max(samples) / 1024:.1f}")
    print(
        f"memory per table: peak {(peak - base) / args.tables:.0f} KiB"
        f" (peak {peak / 1024:.1f} MiB, before tables {base / 1024:.1f} MiB);"
        f" per step {', '.join(f'{x:.0f}' for x in per_table)} KiB"
    )
    print(f"answers: {dict(load.answers.most_common(6))}")
    if app is not None:
        # With --app-phases the events count in the phases reading the bot only.
        reading = [p for p in phases if reads_the_bot(p.kind, args)]
        print(app.summary(sum(p.seconds for p in reading) or elapsed))
    if phases:
        print("\n".join(phases_report(phases, load.by_phase, args.app_aa, args.app_baseline)))
    if stored:
        print_storage(stored, moves, hour_window() if args.hour_equivalent else None)
    for line in (tmp / "bot.log").read_text(errors="replace").splitlines():
        if "computer decisions:" in line:  # the whole run's, logged by the bot at exit
            print(line[line.index("computer decisions:") :] + " (whole run)")
    if args.profile:
        print(f"profile written to {args.profile} (python -m pstats {args.profile})")
    if args.latencies:
        Path(args.latencies).write_text(json.dumps([round(x * 1000, 3) for x in lat]))
    if args.phase_latencies and phases:
        ms = [
            {
                "kind": p.kind,
                "ms": [round(x * 1000, 3) for x in load.by_phase.get(i, [])],
                "moves": p.moves,
                "bot_wait": round(p.bot_wait, 4),
                "own_wait": round(p.own_wait, 4),
            }
            for i, p in enumerate(phases)
        ]
        Path(args.phase_latencies).write_text(json.dumps(ms))


def print_storage(stored: list[Storage], moves: int, window: float | None) -> None:
    first, last = stored[0], stored[-1]
    if window is not None:
        print(
            f"one-hour equivalence: a finished row stays at most W = {window:.0f} s; the"
            f" {last.at:.0f} s window is {last.at / window:.0f} W (an hour is {3600 / window:.0f} W)"
        )
    print("storage over the load window:")
    for s in stored:
        print("  " + storage_line(s))
    rows = [sum(s.outbox.values()) for s in stored]
    print(
        f"outbox rows: start {rows[0]}, end {rows[-1]}, max {max(rows)};"
        f" file: start {mib(first.file)}, end {mib(last.file)}"
        f" (+{mib(last.file - first.file)}; WAL {mib(first.wal)} -> {mib(last.wal)})"
    )
    before, after = first.tables, last.tables
    if before is not None and after is not None:
        names = sorted(set(before) | set(after), key=lambda n: -after.get(n, 0))
        grew = ", ".join(
            f"{n} {mib(before.get(n, 0))} -> {mib(after.get(n, 0))}"
            for n in names
            if max(before.get(n, 0), after.get(n, 0)) >= 2**16
        )
        print(f"bytes per table with its indexes: {grew}")
        record = sum(after.get(n, 0) - before.get(n, 0) for n in ("actions", "games"))
        print(
            f"game record (actions, games) grew {mib(record)} for {moves} moves"
            f" ({record / max(1, moves):.0f} B per move); messages rows"
            f" {first.messages} -> {last.messages}"
        )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
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
        help="the Mini App open on every person's seat: its event stream (bench/app_clients.py)",
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
        " to this file (JSON), to pool several runs (bench/phases.py)",
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
        help="--storage, and a window of 20 outbox retention cycles (see the docstring)",
    )
    args = p.parse_args()
    if args.hour_equivalent:
        args.storage = True
        args.seconds = max(args.seconds, 20 * hour_window())
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run(args))


if __name__ == "__main__":
    main()
