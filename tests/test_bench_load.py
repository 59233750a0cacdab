"""``python -m bench.load``'s own parts that the figures rest on: the
per-phase report, ``--own-nice`` (made-up phases, a child process), the
phases' switches and the phones' move to the stand-in server
(``--app-baseline stand-in``)."""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

from aiohttp import web
from bot_processes import exit_of, python

from bench import ROOT, app_clients
from bench.load_phases import Phase, phases_report, run_phases


def test_the_phases_report_gives_each_sides_wait_for_a_core_per_move() -> None:
    phases = [
        # kind, seconds, moves, bot CPU, bot wait, own wait
        Phase("open", 10.0, 1000, 5.0, 3.0, 2.0),
        Phase("closed", 10.0, 1000, 5.0, 3.0, 1.0),
    ]
    lines = phases_report(phases, {0: [0.02], 1: [0.02]})
    bot = next(line for line in lines if "bot waited for a core" in line)
    own = next(line for line in lines if "fake Telegram + people waited" in line)
    assert "open 3.00, closed 3.00, open against closed +0.0%" in bot
    assert "open 2.00, closed 1.00, open against closed +100.0%" in own


CHILD = """
import os, threading
from bench.machine import renice_self
before = threading.Thread(target=threading.Event().wait, daemon=True)
before.start()
renice_self(7)
after = []
t = threading.Thread(target=lambda: after.append(os.getpriority(os.PRIO_PROCESS, 0)))
t.start()
t.join()
alive = [th.native_id for th in threading.enumerate()]  # the main thread and "before"
print(sorted({os.getpriority(os.PRIO_PROCESS, tid) for tid in alive}), len(alive), after)
"""


def test_own_nice_reaches_every_thread_and_those_started_later() -> None:
    done = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[7]", "2", "[7]"]


class Pages:
    """Stands for ``AppClients`` in ``run_phases``: what it was told, in order."""

    def __init__(self) -> None:
        self.told: list[str] = []
        self.streams = self.watching = 0

    def __getattr__(self, name: str) -> Callable[[], None]:
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda: self.told.append(name)

    async def ready(self, timeout: float) -> None:
        self.told.append("ready")


def phases_told(tmp_path: Path, seed: int, baseline: str) -> tuple[list[str], list[str]]:
    """The kinds of a run of four short phases and what the pages were told."""
    db = tmp_path / "spades.db"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE IF NOT EXISTS actions (id INTEGER PRIMARY KEY)")
    con.close()
    args = argparse.Namespace(
        seconds=0.2,
        app_phases=0.05,
        app_settle=0.0,
        app_aa=False,
        app_baseline=baseline,
        seed=seed,
    )
    pages = Pages()
    phases = asyncio.run(
        run_phases(
            args,
            SimpleNamespace(phase=None),
            pages,
            db,
            os.getpid(),
            [],  # type: ignore[arg-type]
        )
    )
    gc.unfreeze()  # run_phases froze this process's heap
    switches = [t for t in pages.told if not t.endswith("_measuring")]
    return [p.kind for p in phases], switches


def test_a_first_phase_drawn_closed_closes_the_pages_opened_before_it(tmp_path: Path) -> None:
    kinds, told = phases_told(tmp_path, 5, "none")
    assert kinds == ["closed", "open", "open", "closed"]
    assert told == ["close_all", "reopen_all", "close_all"]


def test_the_stand_in_baseline_moves_the_streams_instead_of_closing_them(tmp_path: Path) -> None:
    kinds, told = phases_told(tmp_path, 7, "stand-in")
    assert kinds == ["closed", "open", "closed", "open"]
    assert told == ["to_stand_in", "reopen_all", "to_stand_in", "reopen_all"]
    assert "close_all" not in told


class Bot:
    """Stands for the bot's event streams: who opened one, how many ended."""

    def __init__(self) -> None:
        self.opened: list[str] = []
        self.ended = 0

    async def events(self, request: web.Request) -> web.StreamResponse:
        self.opened.append(request.headers["Authorization"])
        r = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await r.prepare(request)
        try:
            while True:  # a comment line now and then: a gone reader fails the write
                await r.write(b": ping\n\n")
                await asyncio.sleep(0.05)
        except ConnectionError:
            self.ended += 1
        return r


async def streams_move_between_the_bot_and_the_stand_in() -> tuple[list[str], int]:
    bot = Bot()
    app = web.Application()
    app.router.add_get("/events", bot.events)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    # ``python -m bench.app_clients`` forked from the tests' zygote, whose
    # imports (aiogram's, aiohttp's) are most of that process's start.
    stdin, to_child = os.pipe()
    from_child, stdout = os.pipe()
    proc = python(
        ["-m", "bench.app_clients", "--stand-in"],
        dict(os.environ),
        ROOT,
        stdin=stdin,
        stdout=stdout,
    )
    os.close(stdin)
    os.close(stdout)
    requests = os.fdopen(to_child, "wb", buffering=0)
    answers = asyncio.StreamReader()
    loop = asyncio.get_running_loop()
    reading, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(answers), os.fdopen(from_child, "rb", buffering=0)
    )

    def tell(cmd: dict[str, object]) -> None:
        requests.write(json.dumps(cmd).encode() + b"\n")  # a line: never more than a pipe holds

    async def until(what: Callable[[], bool], timeout: float = 20) -> None:
        async with asyncio.timeout(timeout):
            while not what():
                await asyncio.sleep(0.02)

    url = f"http://127.0.0.1:{port}/events"
    try:
        tell({"watch": url, "auth": "tma one"})
        tell({"watch": url, "auth": "tma two"})
        # The first wait includes the process's start (its own imports after
        # the zygote's), slow on a machine busy with other tests.
        await until(lambda: len(bot.opened) == 2, timeout=120)
        tell({"stand_in": True})  # both end at the bot, both read the stand-in
        await until(lambda: bot.ended == 2)
        tell({"measure": True})
        await asyncio.sleep(3 * app_clients.STAND_IN_EVERY)
        tell({"reopen": True})  # back to the bot, off the stand-in
        await until(lambda: len(bot.opened) == 4)
        tell({"stop": True})
        report = json.loads((await answers.readline()).decode())
        while "open" in report:
            report = json.loads((await answers.readline()).decode())
        requests.close()
        assert await exit_of(proc, 30) == 0
    finally:
        requests.close()
        reading.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        await runner.cleanup()
    assert report["events"] >= 2  # the stand-in's, while the bot served none
    return bot.opened, bot.ended


def test_the_phones_read_the_stand_in_then_the_bot_again() -> None:
    opened, ended = asyncio.run(streams_move_between_the_bot_and_the_stand_in())
    assert sorted(opened) == ["tma one", "tma one", "tma two", "tma two"]
    assert ended >= 2
