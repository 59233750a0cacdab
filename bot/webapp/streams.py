"""The Mini App's live streams, in a process of their own.

``python -m bot.webapp.streams FD LANG LOG_LEVEL`` is started by the bot
(:mod:`bot.webapp.feed`), never by hand: FD is its end of the bot's socket.
The bot checks each page's ``/api/events`` request (``initData``, the seat)
and hands the connection over with the table as it is; from then on this
process answers it (Server-Sent Events): the seat's state at once, then
again after every change the bot reports, with what that seat may see only
(:mod:`bot.webapp.state`). Building and writing those events was the Mini
App's whole cost to the bot's loop; here it runs on another core.

It holds no truth: a copy of each watched table, kept current by the bot's
messages (:mod:`bot.webapp.wire`). If it dies, the bot starts another and
the pages reconnect. It ends when the bot's socket closes, also when the
bot is killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import socket
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from functools import partial
from typing import Any, cast

from bot.i18n import Texts, make_core
from bot.loop import loop_factory
from bot.model import LiveTable
from bot.webapp import wire
from bot.webapp.headers import EVENT_STREAM, NO_STORE, SECURITY_HEADERS
from bot.webapp.state import plain, public_state, seat_part

log = logging.getLogger("bot.webapp.streams")

# A stream that saw no change for this long gets a comment line: proxies keep
# it open, and a page that went away is noticed.
KEEPALIVE = 15.0
# A page that reads slower than the table changes: past this much unsent, the
# connection is dropped (it reconnects and gets the state anew).
MAX_BUFFERED = 1024 * 1024

HEAD = (
    "HTTP/1.1 200 OK\r\n"
    + "".join(f"{k}: {v}\r\n" for k, v in {**SECURITY_HEADERS, **NO_STORE, **EVENT_STREAM}.items())
    + "Connection: close\r\n\r\n"  # the body ends when the connection does
).encode()


def state_event(seq: int, data: str) -> bytes:
    return f"id: {seq}\nevent: state\ndata: {data}\n\n".encode()


def event(kind: str, data: dict[str, Any]) -> bytes:
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"event: {kind}\ndata: {body}\n\n".encode()


def dumps(build: Any, *args: Any) -> str:
    """``build(*args)`` as compact JSON text."""
    return json.dumps(build(*args), ensure_ascii=False, separators=(",", ":"))


class Stream(asyncio.Protocol):
    """One page's open connection."""

    def __init__(self, streams: Streams, table_id: int, user_id: int, lang: str) -> None:
        self.streams = streams
        self.table_id = table_id
        self.user_id = user_id
        self.lang = lang
        self.transport: asyncio.Transport | None = None
        self.sent: LiveTable | None = None  # the table copy last written
        self.written = time.monotonic()
        self.counted = True  # the bot counts it open until told "closed"

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # A stream transport (uvloop's is not a subclass of asyncio's).
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        """A page sends nothing after its request."""

    def eof_received(self) -> bool:
        return False  # the page went away: close our side too

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        self.streams.ended(self)

    def write(self, data: bytes) -> None:
        t = self.transport
        if t is None or t.is_closing():
            return
        if t.get_write_buffer_size() > MAX_BUFFERED:
            log.info("a page reads too slowly; its stream is dropped")
            t.abort()
            return
        t.write(data)
        self.written = time.monotonic()

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


@dataclass(eq=False, slots=True)
class Table:
    """A watched table: the latest copy, its streams, and the public part of
    its state as JSON per language (built once per change, shared by seats)."""

    live: LiveTable
    streams: set[Stream] = field(default_factory=set)
    public_json: dict[str, str] = field(default_factory=dict)


class Streams:
    def __init__(self, texts: Texts, link: socket.socket) -> None:
        self.texts = texts
        self.link = link
        self.tables: dict[int, Table] = {}
        self.done = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()
        self._out: deque[bytes] = deque()

    def start(self) -> None:
        asyncio.get_running_loop().add_reader(self.link.fileno(), self._on_readable)

    # ------------------------------------------------------ the bot's messages
    def _on_readable(self) -> None:
        while True:
            try:
                data, fds, _, _ = socket.recv_fds(self.link, wire.MAX_MESSAGE, 1)
            except BlockingIOError:
                return
            except OSError:
                data, fds = b"", []
            if not data:  # the bot closed its end (stopped, or was killed)
                asyncio.get_running_loop().remove_reader(self.link.fileno())
                self.done.set()
                return
            message = wire.decode(data)
            if message[0] == "open":
                _, user_id, lang, copy, now = message
                if fds:
                    self._open(fds[0], user_id, lang, copy, now)
                else:  # the descriptor did not come (no room for it here)
                    log.error("a stream came without its connection")
                    self._tell(wire.encode(("closed", copy[0])))
            elif message[0] == "changed":
                _, now, copies = message
                for copy in copies:
                    self._changed(copy, now)

    def _apply(self, copy: wire.TableCopy) -> Table | None:
        """The table after the bot's copy; None if it was out of step (its
        streams are closed: the pages reconnect and get it whole)."""
        table = self.tables.get(copy[0])
        try:
            live = wire.apply_copy(table.live if table else None, copy)
        except wire.OutOfStep as e:
            log.error("a table copy is out of step (%s); its streams reconnect", e)
            if table is not None:
                for stream in list(table.streams):
                    stream.close()
                del self.tables[copy[0]]
            return None
        if table is None:
            table = self.tables[copy[0]] = Table(live)
        else:
            table.live = live
            table.public_json = {}
        return table

    def _open(self, fd: int, user_id: int, lang: str, copy: wire.TableCopy, now: float) -> None:
        table = self._apply(copy)
        assert table is not None  # ``open`` carries the whole table: never out of step
        self._send_all(table, now)  # the table's other pages get it too
        stream = Stream(self, copy[0], user_id, lang)
        table.streams.add(stream)
        task = asyncio.create_task(self._connect(fd, stream, now))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _connect(self, fd: int, stream: Stream, now: float) -> None:
        sock = socket.socket(fileno=fd)
        try:
            await asyncio.get_running_loop().connect_accepted_socket(lambda: stream, sock)
        except OSError:
            sock.close()
            self.ended(stream)
            return
        stream.write(HEAD)
        table = self.tables.get(stream.table_id)
        if table is not None:
            self._send(table, stream, now)

    def _changed(self, copy: wire.TableCopy, now: float) -> None:
        if copy[0] not in self.tables:
            return  # its last stream just ended; the bot will know soon
        table = self._apply(copy)
        if table is not None:
            self._send_all(table, now)

    def _send_all(self, table: Table, now: float) -> None:
        """Every connected page of the table (one still connecting gets the
        table's latest once it is)."""
        for stream in list(table.streams):
            if stream.transport is not None:
                self._send(table, stream, now)

    # ----------------------------------------------------------- the pages
    def _send(self, table: Table, stream: Stream, now: float) -> None:
        """The seat's state as an event: the public part as the table's other
        streams share it, and the seat's own part, in one JSON object."""
        live = table.live
        if live is stream.sent:
            return
        stream.sent = live
        seat = live.seat_of(stream.user_id)
        tr = partial(self.texts, stream.lang)
        if seat is None or live.game is None:
            text = plain(tr("err-not-at-table"))
            stream.write(event("gone", {"error": "err-not-at-table", "text": text}))
            stream.close()
            return
        public = table.public_json.get(stream.lang)
        if public is None:
            public = table.public_json[stream.lang] = dumps(public_state, tr, live)
        own = dumps(seat_part, tr, live, seat, now)
        stream.write(state_event(live.seq, public[:-1] + "," + own[1:]))  # {...public, ...own}

    def ended(self, stream: Stream) -> None:
        table = self.tables.get(stream.table_id)
        if table is not None and stream in table.streams:
            table.streams.discard(stream)
            if not table.streams:
                del self.tables[stream.table_id]
        if stream.counted:
            stream.counted = False
            self._tell(wire.encode(("closed", stream.table_id)))

    def _tell(self, data: bytes | None = None) -> None:
        """To the bot, in order; what finds no room waits for it."""
        if data is not None:
            self._out.append(data)
            if len(self._out) > 1:
                return  # the writer callback is on
        while self._out:
            try:
                self.link.send(self._out[0])
            except BlockingIOError:
                if data is not None:
                    asyncio.get_running_loop().add_writer(self.link.fileno(), self._tell)
                return
            except OSError:
                self._out.clear()  # the bot is gone; we end with it
                break
            self._out.popleft()
        with contextlib.suppress(ValueError, OSError):
            asyncio.get_running_loop().remove_writer(self.link.fileno())

    async def keep_alive(self) -> None:
        """A comment line on every stream quiet for KEEPALIVE seconds."""
        while True:
            await asyncio.sleep(KEEPALIVE / 3)
            quiet = time.monotonic() - KEEPALIVE
            for table in self.tables.values():
                for stream in table.streams:
                    if stream.written < quiet:
                        stream.write(b": keep-alive\n\n")

    def close(self) -> None:
        for table in list(self.tables.values()):
            for stream in list(table.streams):
                stream.close()


async def serve(fd: int, default_lang: str) -> None:
    link = socket.socket(fileno=fd)
    link.setblocking(False)
    core = make_core(default_lang)
    await core.startup()
    streams = Streams(Texts(core), link)
    streams.start()
    alive = asyncio.create_task(streams.keep_alive())
    try:
        await streams.done.wait()
    finally:
        alive.cancel()
        streams.close()
        await asyncio.sleep(0)  # let the closes go out
        link.close()


# How much nicer than the bot this process runs: on a contended core the
# kernel then gives it about a tenth of a busy bot thread's share.
NICER = 10


def yield_to_the_bot() -> None:
    """Answering a press comes first; an event may reach the page a few
    milliseconds later. So this process runs nice +10, as ``SCHED_BATCH`` (its
    wake-ups never preempt a running bot thread), and not ``SCHED_IDLE``,
    which starves it on a busy machine (docs/architecture.md)."""
    with contextlib.suppress(OSError, AttributeError):  # Linux only; keeps the niceness
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
    with contextlib.suppress(OSError):
        os.nice(NICER)


def main(argv: list[str]) -> int:
    fd, default_lang, level = int(argv[1]), argv[2], argv[3]
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # Ctrl-C in a terminal reaches the whole process group: the bot stops
    # first and then closes our socket, which ends us.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    yield_to_the_bot()
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        runner.run(serve(fd, default_lang))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
