"""The bot's side of the live streams: which tables are watched, and telling
the streams process (:mod:`bot.webapp.streams`) what changed.

The bot checks who asks (``initData``, the seat) and then hands the page's
connection over: the streams process answers it from then on, so building
and writing every seat's state after every move costs the bot's loop
nothing (why that matters: docs/architecture.md). What the bot still does
per change is small: every table changes under its lock, so when a watched
table's lock is released (``Registry.on_release``) the table is noted, and
at most once per ``SCAN_DELAY`` the noted tables' marks are compared with
the last ones sent and those that differ go, with only the moves made
since, rather than every watched table being compared after any change.

A table whose lock is held again by then is left: it may hold a change not
yet committed (or about to be rolled back); its release notes it again.

The streams process is restarted if it dies (its pages reconnect, as
after any dropped connection); it ends when the bot closes its socket,
also when the bot is killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import sys
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.model import LiveTable
from bot.services.live import Registry
from bot.webapp import wire
from bot.webapp.hub import mark

log = logging.getLogger(__name__)

# Seconds between a change and the pass that tells the streams: moves made
# within it reach the page together, well inside the second people expect.
SCAN_DELAY = 0.1
# Tables per ``changed`` message (each well under wire.MAX_MESSAGE).
PER_MESSAGE = 32
# How long a page's connection may wait for the streams process to take it.
HANDOVER_WAIT = 5.0
# Before starting the streams process again after it died.
RESTART_DELAY = 1.0
ROOT = Path(__file__).resolve().parent.parent.parent

# A datagram, the descriptor it hands over (if any) and who waits for it to go.
Outgoing = tuple[bytes, int | None, "asyncio.Future[bool] | None"]


@dataclass(eq=False, slots=True)
class Watched:
    """A table with open streams. ``live`` is kept: a finished game leaves the
    registry, and its last state must still reach the pages."""

    live: LiveTable
    seen: tuple[Any, ...]
    game: tuple[int, int] | None  # (game id, moves) the streams process holds
    streams: int = 0


class Feed:
    def __init__(
        self, reg: Registry, now: Callable[[], float], default_lang: str, log_level: str
    ) -> None:
        self.reg = reg
        self.now = now  # the bot's clock (a test's is fake): the pages count time with it
        self.default_lang = default_lang
        self.log_level = log_level
        self._tables: dict[int, Watched] = {}
        self._noted: set[int] = set()  # watched tables released since the last pass
        self._scan: asyncio.TimerHandle | None = None
        self._sock: socket.socket | None = None
        self._proc: asyncio.subprocess.Process | None = None
        # Datagrams waiting for room in the socket, each with the connection
        # it hands over (if any) and who waits for it to go.
        self._out: deque[Outgoing] = deque()
        self._writing = False
        self._keeper: asyncio.Task[None] | None = None
        self._stopping = False

    def __len__(self) -> int:
        return sum(w.streams for w in self._tables.values())

    @property
    def pid(self) -> int | None:
        """The streams process's, while it runs."""
        proc = self._proc
        return proc.pid if proc is not None and proc.returncode is None else None

    # ---------------------------------------------------------- the process
    async def start(self) -> None:
        self._stopping = False
        self.reg.on_release = self._released
        await self._spawn()
        self._keeper = asyncio.create_task(self._keep())

    async def _spawn(self) -> None:
        self._proc, self._sock = await start_streams(self.default_lang, self.log_level)
        asyncio.get_running_loop().add_reader(self._sock.fileno(), self._on_readable)

    async def _keep(self) -> None:
        """Start the streams process again whenever it ends, until we stop."""
        while self._proc is not None:
            code = await self._proc.wait()
            if self._stopping:
                return
            log.error("the Mini App's streams process ended (%s); starting it again", code)
            self._drop_link()
            await self._respawn()

    async def _respawn(self) -> None:
        """Try again every RESTART_DELAY seconds until it starts or we stop."""
        while True:
            await asyncio.sleep(RESTART_DELAY)
            if self._stopping:
                return
            try:
                await self._spawn()
                return
            except OSError:
                log.exception("could not start the Mini App's streams process")

    def _drop_link(self) -> None:
        """The process is gone with every stream it held."""
        if self._sock is not None:
            with contextlib.suppress(ValueError, OSError):
                asyncio.get_running_loop().remove_reader(self._sock.fileno())
                asyncio.get_running_loop().remove_writer(self._sock.fileno())
            self._sock.close()
            self._sock = None
        self._writing = False
        while self._out:
            _, fd, done = self._out.popleft()
            _close(fd)
            if done is not None and not done.done():
                done.set_result(False)
        self._tables.clear()
        self._noted.clear()
        if self._scan is not None:
            self._scan.cancel()
            self._scan = None

    async def stop(self) -> None:
        """Every stream ends: the process sees its socket close and exits."""
        self._stopping = True
        self._drop_link()
        if self._keeper is not None:
            self._keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._keeper
        if self._proc is not None and self._proc.returncode is None:
            try:
                await asyncio.wait_for(self._proc.wait(), 5)
            except TimeoutError:
                self._proc.kill()
                await self._proc.wait()

    # ------------------------------------------------------------- streams
    async def hand_over(self, fd: int, live: LiveTable, user_id: int, lang: str) -> bool:
        """Give a page's connection to the streams process with the table as
        it is now; False if it could not take it (being restarted, stopping).
        The descriptor is duplicated while it waits to go, so its number
        cannot come to mean another connection meanwhile."""
        if self._sock is None:
            return False
        copy = wire.copy_of(live, None)  # whole: the process may have dropped it
        watched = self._tables.get(live.table_id)
        if watched is None:
            watched = self._tables[live.table_id] = Watched(live, (), None)
        watched.live, watched.seen, watched.game = live, mark(live), wire.game_held(copy)
        watched.streams += 1
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        item: Outgoing = (wire.encode(("open", user_id, lang, copy, self.now())), os.dup(fd), done)
        self._send(item)
        try:
            async with asyncio.timeout(HANDOVER_WAIT):
                sent = await done
        except TimeoutError:
            sent = False
            if item in self._out:
                self._out.remove(item)
                _close(item[1])
        if not sent:
            self._closed(live.table_id)
        return sent

    def _closed(self, table_id: int) -> None:
        watched = self._tables.get(table_id)
        if watched is None:
            return
        watched.streams -= 1
        if watched.streams <= 0:
            del self._tables[table_id]

    def _released(self, table_id: int) -> None:
        """The table's lock was released: if it is watched, a pass soon."""
        if table_id in self._tables:
            self._noted.add(table_id)
            if self._scan is None:
                self._scan = asyncio.get_running_loop().call_later(SCAN_DELAY, self._pass)

    def _pass(self) -> None:
        self._scan = None
        noted, self._noted = self._noted, set()
        if self._sock is None:
            return
        copies: list[wire.TableCopy] = []
        for table_id in noted:
            watched = self._tables.get(table_id)
            if watched is None or self.reg.busy(table_id):
                continue  # no page any more; or held again, and noted at its release
            current = self.reg.cached(table_id)
            if current is not None and current is not watched.live:
                watched.live = current
            now = mark(watched.live)
            if now == watched.seen:
                continue
            copy = wire.copy_of(watched.live, watched.game)
            watched.seen, watched.game = now, wire.game_held(copy)
            copies.append(copy)
        for i in range(0, len(copies), PER_MESSAGE):
            self._send(
                (wire.encode(("changed", self.now(), copies[i : i + PER_MESSAGE])), None, None)
            )

    # ------------------------------------------------------------- the link
    def _send(self, item: Outgoing) -> None:
        self._out.append(item)
        if not self._writing:
            self._flush()

    def _flush(self) -> None:
        sock = self._sock
        while self._out and sock is not None:
            data, fd, done = self._out[0]
            try:
                if fd is None:
                    sock.send(data)
                else:
                    socket.send_fds(sock, [data], [fd])
            except BlockingIOError:
                if not self._writing:
                    self._writing = True
                    asyncio.get_running_loop().add_writer(sock.fileno(), self._flush)
                return
            except OSError as e:
                log.error("the streams process's socket failed: %s", e)
                ok = False
            else:
                ok = True
            self._out.popleft()
            _close(fd)
            if done is not None and not done.done():
                done.set_result(ok)
        if self._writing and sock is not None:
            self._writing = False
            asyncio.get_running_loop().remove_writer(sock.fileno())

    def _on_readable(self) -> None:
        sock = self._sock
        while sock is not None:
            try:
                data = sock.recv(wire.MAX_MESSAGE)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            if not data:  # the process ended; _keep starts it again
                with contextlib.suppress(ValueError, OSError):
                    asyncio.get_running_loop().remove_reader(sock.fileno())
                return
            message = wire.decode(data)
            if message[0] == "closed":
                self._closed(message[1])


async def start_streams(
    default_lang: str, log_level: str
) -> tuple[asyncio.subprocess.Process, socket.socket]:
    """The streams process, and the bot's end of the socket it reads."""
    ours, theirs = wire.pair()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    try:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot.webapp.streams",
            str(theirs.fileno()),
            default_lang,
            log_level.upper(),
            pass_fds=(theirs.fileno(),),
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
        )
    except BaseException:
        ours.close()
        raise
    finally:
        theirs.close()
    return proc, ours


def _close(fd: int | None) -> None:
    if fd is not None:
        with contextlib.suppress(OSError):
            os.close(fd)
