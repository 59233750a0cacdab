"""The bot as processes of its own: ``python -m bot`` that a test can kill -9.

Each process is forked from the session's zygote (tests/bot/zygote.py),
which made the bot's imports once, so a test may start the bot, kill it and
start it again without paying seconds of CPU for the imports each time; from
``bot/__main__.py`` on it is ``python -m bot`` (its environment, working
directory, standard streams, exit code). Where the kernel has no pidfd
(before Linux 5.3) each is a fresh interpreter instead.

``BotProcesses`` is the ``bot_process`` fixture (tests/shared_fixtures.py); ``python()`` starts
any ``python -m``/``-c`` the same way (the bot's other commands, the
benches' helper processes).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, Protocol

from fake_telegram import FakeTelegram
from harness import ROOT, bot_env, polling_started


class Process(Protocol):
    """What of ``subprocess.Popen`` the tests use (``Forked`` has it too)."""

    pid: int
    returncode: int | None

    def poll(self) -> int | None: ...
    def wait(self, timeout: float | None = None) -> int: ...
    def send_signal(self, sig: int) -> None: ...
    def terminate(self) -> None: ...
    def kill(self) -> None: ...


def python(
    argv: Sequence[str],
    env: dict[str, str],
    cwd: Path = ROOT,
    *,
    stdin: int | None = None,
    stdout: int | None = None,
    stderr: int | None = None,
) -> Process:
    """``python *argv`` (``-m module …`` or ``-c code …``) with ``env`` in
    ``cwd``, its standard streams the given file descriptors (else
    /dev/null); forked from the zygote. The caller keeps (and closes) its fds."""
    streams = {"stdin": stdin, "stdout": stdout, "stderr": stderr}
    given = {name: fd for name, fd in streams.items() if fd is not None}
    if hasattr(os, "pidfd_open"):
        return Zygote.get().fork(list(argv), env, cwd, given)
    null = subprocess.DEVNULL
    return subprocess.Popen(
        [sys.executable, *argv],
        cwd=cwd,
        env=env,
        stdin=null if stdin is None else stdin,
        stdout=null if stdout is None else stdout,
        stderr=null if stderr is None else stderr,
    )


def python_m_bot(env: dict[str, str], err: Path, cwd: Path = ROOT) -> Process:
    """``python -m bot`` with ``env``, its stderr appended to the file ``err``
    (a pipe nobody reads meanwhile could fill up and stop it)."""
    with err.open("ab") as sink:
        return python(["-m", "bot"], env, cwd, stderr=sink.fileno())


async def ended(proc: Process) -> int:
    """Its exit code, once it has ended (the loop runs on meanwhile)."""
    while proc.poll() is None:  # a pidfd's select: cheap
        await asyncio.sleep(0.05)
    return proc.wait()


async def exit_of(proc: Process, timeout: float = 90) -> int:
    """The code a process exits with; killed if it does not exit in ``timeout``."""
    try:
        return await asyncio.wait_for(ended(proc), timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


def end(proc: Process) -> None:
    """SIGTERM, then SIGKILL if it has not ended within 10 s."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


class BotProcess:
    """``python -m bot`` in a process of its own: what a deployment runs."""

    def __init__(self, fake: FakeTelegram, db_path: Path, **extra: Any) -> None:
        self.db_path, self.extra = db_path, extra
        self.env = {**os.environ, **bot_env(fake, db_path, **extra)}
        self.proc: Process | None = None
        # Its stderr, read at the stop.
        fd, name = tempfile.mkstemp(prefix="bot-", suffix=".err")
        os.close(fd)
        self.err = Path(name)
        weakref.finalize(self, self.err.unlink, missing_ok=True)

    async def start(self, fake: FakeTelegram) -> None:
        after = len(fake.calls)
        self.proc = python_m_bot(self.env, self.err)
        try:
            await polling_started(fake, after, timeout=30)
        except BaseException:
            self.stop()  # no bot may outlive its test, not even one that never came up
            raise

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, exactly like a crash."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> str:
        """Ends the process (SIGTERM, then SIGKILL) if it still runs; what it wrote to stderr."""
        assert self.proc is not None
        end(self.proc)
        return self.err.read_bytes().decode(errors="replace")


class BotProcesses:
    """The ``python -m bot`` processes of one test: the ``bot_process`` fixture.

    ``await bot_process(**changes)`` starts one with the tests' settings
    (``bot_env``, ``changes`` applied) on the test's database (or ``db=``)
    and returns once it polls; ``await bot_process.again(proc)`` starts the
    next on ``proc``'s settings once ``proc`` is over (a ``kill()``, a
    ``stop()``); ``spawn`` starts one plainly, for a bot meant to refuse to
    start. Whatever still runs at the test's end is stopped, and a failed
    test's report shows what each process wrote to stderr."""

    def __init__(self, fake: FakeTelegram, db_path: Path) -> None:
        self.fake, self.db_path = fake, db_path
        self.started: list[BotProcess] = []
        self.spawned: list[tuple[Process, Path]] = []
        self.reported = False  # their stderr is in a failed test's report

    async def __call__(self, db: Path | None = None, **extra: Any) -> BotProcess:
        proc = BotProcess(self.fake, self.db_path if db is None else db, **extra)
        self.started.append(proc)
        await proc.start(self.fake)
        return proc

    async def again(self, proc: BotProcess) -> BotProcess:
        """The next process on ``proc``'s database and settings (``proc`` has ended)."""
        assert proc.proc is not None and proc.proc.poll() is not None, "the last one still runs"
        return await self(proc.db_path, **proc.extra)

    def spawn(self, db: Path, err: Path, **extra: Any) -> Process:
        """``python -m bot`` with the tests' settings on ``db``, not waited
        for, its stderr into the file ``err``."""
        err.write_bytes(b"")
        proc = python_m_bot({**os.environ, **bot_env(self.fake, db, **extra)}, err)
        self.spawned.append((proc, err))
        return proc

    def stderr(self) -> list[tuple[str, str]]:
        """Each process's name and what it has written to stderr so far."""
        out = [
            (f"stderr of bot process {i} ({p.db_path.name})", p.err.read_text(errors="replace"))
            for i, p in enumerate(self.started, 1)
            if p.err.exists()
        ]
        out += [
            (f"stderr of spawned bot {i} ({err.name})", err.read_text(errors="replace"))
            for i, (_, err) in enumerate(self.spawned, 1)
            if err.exists()
        ]
        return out

    def stop_all(self) -> None:
        """End every process still running: SIGTERM, then SIGKILL."""
        for proc in self.started:
            if proc.proc is not None:
                proc.stop()
        for spawned, _ in self.spawned:
            end(spawned)


class Zygote:
    """A connection to the session's fork server (tests/bot/zygote.py).

    The first test process to need it starts it, holding a lock file in
    ``home`` (the session's basetemp root, which conftest sets) while the
    others wait and then connect; it lives as long as the session's main
    process (the xdist controller, or this process without workers)."""

    home: ClassVar[Path | None] = None
    _connected: ClassVar[Zygote | None] = None
    _started: ClassVar[list[subprocess.Popen[bytes]]] = []  # reaped by subprocess, not left

    @classmethod
    def get(cls) -> Zygote:
        if cls._connected is None:
            cls._connected = cls()
        return cls._connected

    def __init__(self) -> None:
        owner = os.getppid() if "PYTEST_XDIST_WORKER" in os.environ else os.getpid()
        home = self.home or Path(tempfile.gettempdir())
        name = f"piki-zygote-{owner}-{hashlib.sha1(str(home).encode()).hexdigest()[:12]}"
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with (home / "zygote.lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                self.sock.connect("\0" + name)
            except ConnectionRefusedError:
                self._start(name, owner)
                self.sock.connect("\0" + name)
        self.exits: dict[int, int] = {}
        self.pidfds: dict[int, int] = {}

    def _start(self, name: str, owner: int) -> None:
        proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).with_name("zygote.py")), name, str(owner)],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            start_new_session=True,  # not ended with this worker: with the session
        )
        assert proc.stdout is not None
        ready = proc.stdout.readline()
        proc.stdout.close()
        if ready != b"ready\n":
            raise AssertionError(f"the zygote did not start (exit {proc.wait()})")
        self._started.append(proc)

    def fork(self, argv: list[str], env: dict[str, str], cwd: Path, fds: dict[str, int]) -> Forked:
        """``python *argv`` with ``env`` in ``cwd``, ``fds`` its standard streams."""
        request = {"argv": argv, "env": env, "cwd": str(cwd), "fds": list(fds)}
        socket.send_fds(self.sock, [json.dumps(request).encode()], list(fds.values()))
        while True:
            kind, pid = self.answer()[:2]
            if kind == "pid":
                return Forked(self, int(pid), self.pidfds.pop(int(pid)))

    def answer(self) -> list[str]:
        """The next answer, kept: a pidfd, or what a child exited with."""
        data, fds, _, _ = socket.recv_fds(self.sock, 256, 1)
        if not data:
            raise AssertionError("the zygote is gone")
        kind, pid, *code = data.decode().split()
        if kind == "pid":
            self.pidfds[int(pid)] = fds[0]
        else:
            self.exits[int(pid)] = int(code[0])
        return [kind, pid, *code]

    def exit_code(self, pid: int, timeout: float) -> int:
        """What the (ended) child ``pid`` exited with, once the zygote has reaped it."""
        deadline = time.monotonic() + timeout
        while pid not in self.exits:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.sock], [], [], left)[0]:
                raise AssertionError(f"the zygote did not report the end of process {pid}")
            self.answer()
        return self.exits.pop(pid)


class Forked:
    """A process forked by the zygote: what of ``subprocess.Popen`` the tests
    use. Not our child, so it is watched through its pidfd."""

    def __init__(self, zygote: Zygote, pid: int, pidfd: int) -> None:
        self.zygote, self.pid, self.pidfd = zygote, pid, pidfd
        self.returncode: int | None = None
        weakref.finalize(self, os.close, pidfd)

    def poll(self) -> int | None:
        if self.returncode is None and select.select([self.pidfd], [], [], 0)[0]:
            self.returncode = self.zygote.exit_code(self.pid, 10)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            if not select.select([self.pidfd], [], [], timeout)[0]:
                raise subprocess.TimeoutExpired(f"process {self.pid}", timeout or 0)
            self.returncode = self.zygote.exit_code(self.pid, 10)
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self.pidfd, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)
