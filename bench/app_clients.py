"""``python -m bench.load --app``: the Mini App open on every person's seat.

Each simulated person keeps the app's event stream (``/app/api/events``)
open for the table of their hand's «🃏 Стол» button, signed with the bot
token as Telegram signs ``initData``, reconnecting if it drops, as the page
does. Counted: events and bytes received, and each event's delivery lag
(the bot stamps the state with its clock, ``now``; the streams read the same
machine's clock on arrival). The people still move through the chat's
buttons, so the bot's cost of the open apps shows in the usual figures.

The streams are read in a process of their own (``python -m
bench.app_clients``, driven through its stdin by :class:`AppClients`): they
stand for phones, not for Telegram, so reading hundreds of streams must not
share a loop with the fake Bot API, whose answers are in every latency
measured (on that loop the events' delivery lag was mostly waiting for it).
``--app-control`` points the same streams at a stand-in server in that
process instead of the bot; ``--app-baseline stand-in`` moves them there and
back between phases, so the phones' own work is the same in both kinds.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import sys
import time
from collections import Counter
from typing import Any

import aiohttp
from aiohttp import web
from fake_telegram import FakeTelegram, FakeUser
from fake_telegram.webapp import free_port, sign_init_data, web_app_url

from bench import ROOT
from bench.stats import percentile

# ``--app-control``: the stand-in server's one path. Each stream gets an event
# of the bot's usual size every STAND_IN_EVERY seconds (staggered), so the
# phones read about what they read from the bot (at 200 tables: ~220 events/s
# of ~1,870 bytes).
STAND_IN_PATH = "/stand-in/events"
STAND_IN_EVERY = 2.1
STAND_IN_EVENT = 1800


def app_url(fake: FakeTelegram, user: FakeUser) -> str | None:
    """The page of the newest «🃏 Стол» button in the person's chat."""
    for m in reversed(fake.chat_messages(user.id)):
        url = web_app_url(m)
        if url is not None:
            return url
    return None


class AppClients:
    """The load's side: finds each person's app link and has the streams
    process open it; collects that process's figures at the end."""

    def __init__(
        self, fake: FakeTelegram, *, control: bool = False, stand_in: bool = False, nice: str = ""
    ) -> None:
        self.fake = fake
        self.control = control
        self.stand_in = stand_in  # the streams process serves one (as with control)
        self.nice = nice
        self.port = free_port()
        self.streams = 0  # open now, as last reported
        self.report: dict[str, Any] = {}
        self._watching = 0
        self._proc: asyncio.subprocess.Process | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._reader: asyncio.Task[None] | None = None
        self._done: asyncio.Future[None] | None = None

    @property
    def watching(self) -> int:
        """Pages the streams process was asked to keep open."""
        return self._watching

    def env(self) -> dict[str, str]:
        """What the bot needs to serve the app (polling mode: its own port)."""
        return {
            "WEBAPP_URL": f"http://127.0.0.1:{self.port}/app",
            "WEBAPP_LISTEN": "127.0.0.1",
            "WEBAPP_PORT": str(self.port),
        }

    async def start(self) -> None:
        self._proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bench.app_clients",
            *(["--control"] if self.control else ["--stand-in"] if self.stand_in else []),
            # Always given: this process may run at another niceness (--own-nice).
            "--nice",
            self.nice or "0",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            cwd=ROOT,
        )
        self._done = asyncio.get_running_loop().create_future()
        self._reader = asyncio.create_task(self._read_reports())

    def watch(self, user: FakeUser) -> None:
        self._watching += 1
        self._tasks.append(asyncio.create_task(self._watch(user)))

    async def _watch(self, user: FakeUser) -> None:
        url = None
        while url is None:
            url = app_url(self.fake, user)
            if url is None:
                await asyncio.sleep(0.2)
        base, _, table = url.partition("/?t=")
        auth = f"tma {sign_init_data(self.fake.token, user, time.time())}"
        self._send({"watch": f"{base}/api/events?t={table}", "auth": auth})

    def _send(self, command: dict[str, Any]) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        self._proc.stdin.write(json.dumps(command).encode() + b"\n")

    async def _read_reports(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        async for line in self._proc.stdout:
            msg = json.loads(line)
            if "open" in msg:
                self.streams = msg["open"]
            else:
                self.report = msg
                if self._done is not None and not self._done.done():
                    self._done.set_result(None)

    async def ready(self, timeout: float) -> None:
        """Until every watcher has its stream open."""
        end = time.monotonic() + timeout
        while self.streams < self._watching:
            if time.monotonic() > end:
                raise RuntimeError(f"only {self.streams} of {self._watching} app streams open")
            await asyncio.sleep(0.1)

    def close_all(self) -> None:
        """Every page closed (``bench.load --app-phases``): the streams end."""
        self._send({"close": True})

    def reopen_all(self) -> None:
        """Every page opened again, as at the start."""
        self._send({"reopen": True})

    def to_stand_in(self) -> None:
        """Every stream moved to the stand-in server (``--app-baseline
        stand-in``): the phones read as much as before, the bot serves none."""
        self._send({"stand_in": True})

    def start_measuring(self) -> None:
        self._send({"measure": True})

    def stop_measuring(self) -> None:
        self._send({"measure": False})

    def pause_measuring(self) -> None:
        """``--app-phases``: events count only within the measured phases
        (not while every page opens at once); resumed without starting over."""
        self._send({"measure": False})

    def resume_measuring(self) -> None:
        self._send({"measure": True, "keep": True})

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self._proc is None:
            return
        self._send({"stop": True})
        assert self._done is not None and self._proc.stdin is not None
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(30):
                await self._done
        self._proc.stdin.close()
        await self._proc.wait()
        if self._reader is not None:
            await self._reader

    def summary(self, elapsed: float) -> str:
        r = self.report
        if not r:
            return "app: the phones' process gave no figures"
        q = r["lag_ms"]
        where = "to a stand-in server, not the bot (control)" if self.control else "one per person"
        return (
            f"app: {self._watching} event streams open ({where}),"
            f" {r['events']} events = {r['events'] / elapsed:.1f}/s,"
            f" {r['bytes'] / elapsed / 1024:.1f} KiB/s;"
            f" delivery lag p50 {q['p50']:.1f} ms, p99 {q['p99']:.1f} ms, max {q['max']:.1f} ms;"
            f" reconnects {r['reconnects']}; refused {r['refused'] or 'none'};"
            f" the phones' process (bench's, not the bot's) {r['cpu'] / elapsed * 100:.0f} % of a core"
        )


# ------------------------------------------------- the phones' process
class Streams:
    """The phones: every stream, what they received and how late."""

    def __init__(self) -> None:
        self.measuring = False
        self.open = 0
        self.events = 0
        self.bytes = 0
        self.reconnects = 0
        self.lags: list[float] = []
        self.refused: Counter[int] = Counter()
        self.cpu0 = 0.0
        self.session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=0),
            timeout=aiohttp.ClientTimeout(total=None, sock_read=None),
        )
        self.tasks: list[asyncio.Task[None]] = []
        self.targets: list[tuple[str, str]] = []  # (url, auth) of every page

    def tell(self, msg: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(msg) + "\n")
        sys.stdout.flush()

    def measure(self, on: bool, keep: bool = False) -> None:
        """On: count from now (``keep``: on top of what was counted)."""
        if on and not keep:
            self.events = self.bytes = self.reconnects = 0
            self.lags.clear()
            self.cpu0 = time.process_time()
        self.measuring = on

    async def watch(self, url: str, auth: str) -> None:
        headers = {"Authorization": auth}
        first = True
        while True:
            try:
                async with self.session.get(url, headers=headers) as r:
                    if r.status != 200:
                        self.refused[r.status] += 1
                        await asyncio.sleep(1.0)
                        continue
                    self.open += 1
                    self.tell({"open": self.open})
                    if not first and self.measuring:
                        self.reconnects += 1
                    first = False
                    try:
                        await self.read(r)
                    finally:
                        self.open -= 1
                        self.tell({"open": self.open})
            except (aiohttp.ClientError, ConnectionError):
                await asyncio.sleep(0.5)

    async def read(self, r: aiohttp.ClientResponse) -> None:
        async for line in r.content:
            if not line.startswith(b"data: "):
                continue
            arrived = time.time()
            if self.measuring:
                self.events += 1
                self.bytes += len(line)
                state: dict[str, Any] = json.loads(line[6:])
                self.lags.append(arrived - float(state["now"]))

    def figures(self) -> dict[str, Any]:
        def q(p: float) -> float:
            return percentile(self.lags, p) * 1000

        return {
            "events": self.events,
            "bytes": self.bytes,
            "reconnects": self.reconnects,
            "refused": {str(k): v for k, v in self.refused.items()},
            "lag_ms": {"p50": q(0.5), "p99": q(0.99), "max": q(1.0)},
            "cpu": time.process_time() - self.cpu0,
        }


async def stand_in() -> tuple[web.AppRunner, str]:
    """The control's server: in this process, so the bot serves no stream;
    it sends events of the bot's size and rate, stamped like the bot's."""
    filler = "x" * STAND_IN_EVENT

    async def events(request: web.Request) -> web.StreamResponse:
        r = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await r.prepare(request)
        # Staggered: the streams do not all get theirs at the same moment,
        # not even when all of them (re)connect at once.
        await asyncio.sleep(random.uniform(0, STAND_IN_EVERY))
        with contextlib.suppress(ConnectionError):  # the reader went (the run ends)
            while True:
                data = json.dumps({"now": time.time(), "fill": filler})
                await r.write(f"event: state\ndata: {data}\n\n".encode())
                await asyncio.sleep(STAND_IN_EVERY)
        return r

    app = web.Application()
    app.router.add_get(STAND_IN_PATH, events)
    runner = web.AppRunner(app, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    return runner, f"http://{host}:{port}{STAND_IN_PATH}"


async def serve(control: bool, serve_stand_in: bool) -> None:
    """Commands from stdin, one JSON object a line: watch, measure, close,
    reopen, stand_in, stop. With ``control`` every stream reads the stand-in;
    with ``serve_stand_in`` they read the bot until told ``stand_in``."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    streams = Streams()
    runner, target = await stand_in() if control or serve_stand_in else (None, None)

    async def close() -> None:
        for task in streams.tasks:
            task.cancel()
        await asyncio.gather(*streams.tasks, return_exceptions=True)
        streams.tasks = []

    async def reopen(to: str | None = None) -> None:
        """Every stream closed and opened again: to its own page, or ``to``."""
        await close()
        streams.tasks = [
            asyncio.create_task(streams.watch(to or url, auth)) for url, auth in streams.targets
        ]

    try:
        async for line in reader:
            cmd = json.loads(line)
            if "watch" in cmd:
                url = target if control and target is not None else str(cmd["watch"])
                streams.targets.append((url, str(cmd["auth"])))
                streams.tasks.append(asyncio.create_task(streams.watch(*streams.targets[-1])))
            elif "close" in cmd:
                await close()
            elif "reopen" in cmd:
                await reopen()
            elif "stand_in" in cmd:
                assert target is not None, "started without --stand-in"
                await reopen(target)
            elif "measure" in cmd:
                streams.measure(bool(cmd["measure"]), keep=bool(cmd.get("keep")))
            elif "stop" in cmd:
                streams.measure(False)
                streams.tell(streams.figures())
                break
    finally:
        for task in streams.tasks:
            task.cancel()
        await asyncio.gather(*streams.tasks, return_exceptions=True)
        await streams.session.close()
        if runner is not None:
            await runner.cleanup()


def main() -> None:
    p = argparse.ArgumentParser(
        prog="python -m bench.app_clients",
        description="The phones of bench.load --app: started by it and driven through"
        " stdin, one JSON command a line (see serve); not a bench of its own.",
    )
    p.add_argument("--control", action="store_true", help="every stream reads the stand-in")
    p.add_argument("--stand-in", action="store_true", help="serve the stand-in too, for 'stand_in'")
    p.add_argument("--nice", help="a niceness, or 'idle' (SCHED_IDLE); unset: as started")
    args = p.parse_args()
    # The phones yield the shared machine to the bot and the fake Telegram (on
    # their own hardware they would take nothing from either).
    if args.nice == "idle":
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    elif args.nice is not None:  # absolute: bench.load may run at another niceness (--own-nice)
        os.setpriority(os.PRIO_PROCESS, 0, int(args.nice))
    asyncio.run(serve(args.control, args.stand_in))


if __name__ == "__main__":
    main()
