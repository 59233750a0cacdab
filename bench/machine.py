"""What the processes and the machine spent, read from Linux's ``/proc``:
CPU and memory of the bot's process, its threads and its children, the
time each waited for a core, and how late this process's own loop woke;
and the bot's process ended at a run's end."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path


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
    bot's machine, and every latency is timed on its loop."""
    for task in Path("/proc/self/task").iterdir():
        with contextlib.suppress(ProcessLookupError):
            os.setpriority(os.PRIO_PROCESS, int(task.name), nice)


def machine_ticks() -> tuple[int, int, int]:
    """All, idle (with I/O wait) and stolen CPU ticks of the machine so far."""
    with open("/proc/stat") as f:
        values = [int(x) for x in f.readline().split()[1:]]
    return sum(values[:8]), values[3] + values[4], values[7]


@dataclass
class Spent:
    """CPU and waits for a core over a window, in seconds."""

    bot: float  # the bot's process, every thread
    loop: float  # its event loop's thread
    ai: float  # its computer player's processes
    own: float  # this process: the fake Telegram and the people
    bot_wait: float
    loop_wait: float
    own_wait: float
    ticks: tuple[int, int, int]  # the machine's: all, idle, stolen


class Meter:
    """The readings at the start of a window; :meth:`spent` is what went since."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.ticks = machine_ticks()
        self.bot, self.own = cpu_seconds(pid), time.process_time()
        self.kids = children_cpu(pid)
        self.threads = thread_cpu(pid)
        self.waits, self.own_waits = run_delay(pid), run_delay("self")

    def spent(self) -> Spent:
        pid = self.pid
        bot = cpu_seconds(pid) - self.bot
        kids = children_cpu(pid)
        loop = thread_cpu(pid).get(pid, 0.0) - self.threads.get(pid, 0.0)
        waits, own_waits = run_delay(pid), run_delay("self")
        ticks = machine_ticks()
        return Spent(
            bot=bot,
            loop=loop,
            ai=sum(t - self.kids.get(k, 0.0) for k, t in kids.items()),
            own=time.process_time() - self.own,
            bot_wait=sum(t - self.waits.get(k, 0.0) for k, t in waits.items()),
            loop_wait=waits.get(pid, 0.0) - self.waits.get(pid, 0.0),
            own_wait=sum(t - self.own_waits.get(k, 0.0) for k, t in own_waits.items()),
            ticks=(
                ticks[0] - self.ticks[0],
                ticks[1] - self.ticks[1],
                ticks[2] - self.ticks[2],
            ),
        )


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


def end_bot(proc: subprocess.Popen[bytes]) -> None:
    """Stop the bot as its host would (SIGTERM: it sends what is queued),
    killed after 30 s."""
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
