"""How late a bot thread wakes beside the streams process, by the latter's policy.

Run: python bench/slices.py [--seconds 8]

Everything is pinned to one core, as when both of a small machine's cores
are busy. A probe stands for a bot thread (nice 0): it sleeps 1 ms, notes
how late it woke, works 0.5 ms, again and again. Beside it a process
stands for the streams process: 3 ms of work every 25 ms (a pass of events,
a little more than at 200 busy tables), run as

* ``none``: no such process (the floor);
* ``batch``: ``SCHED_BATCH`` at nice +10 with the kernel's default slice;
* ``long``: the same with a 100 ms slice (``bot.webapp.streams``, through
  ``bot.webapp.slices.set_slice``);
* ``idle``: ``SCHED_IDLE``.

Printed: the probe's lateness p50 / p99 / p99.9 (ms); then, against a
process that never sleeps (nice 0, standing for whatever else keeps the
core full), the share of the core each kind of streams process still gets
and its longest wait: that share is what keeps the pages' events coming on
a busy machine (``SCHED_IDLE`` gets about 0.3 %). Figures only.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import time
from multiprocessing.synchronize import Event
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app_clients import percentile  # noqa: E402

from bot.webapp.slices import set_slice, slice_of  # noqa: E402

KINDS = ("none", "batch", "long", "idle")


def become(kind: str) -> None:
    """This process on one core, scheduled as ``kind``."""
    os.sched_setaffinity(0, {0})
    if kind == "idle":
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    elif kind in ("batch", "long"):
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
        os.nice(10)
        if kind == "long":
            set_slice(os.SCHED_BATCH, os.getpriority(os.PRIO_PROCESS, 0), 100_000_000)


def work(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def bursts(kind: str, stop: Event) -> None:
    become(kind)
    while not stop.is_set():
        work(0.003)
        time.sleep(0.025)


def probe(seconds: float) -> list[float]:
    late: list[float] = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        t = time.perf_counter()
        time.sleep(0.001)
        late.append(time.perf_counter() - t - 0.001)
        work(0.0005)
    return late


def ms(values: list[float], q: float) -> float:
    return percentile(values, q) * 1000


def lateness(kind: str, seconds: float) -> str:
    stop = mp.Event()
    proc = None if kind == "none" else mp.Process(target=bursts, args=(kind, stop))
    if proc is not None:
        proc.start()
        time.sleep(0.5)
    late = probe(seconds)
    stop.set()
    if proc is not None:
        proc.join()
    return (
        f"{kind:>5}: the probe woke late by p50 {ms(late, 0.5):.3f}, p99 {ms(late, 0.99):.3f},"
        f" p99.9 {ms(late, 0.999):.3f} ms ({len(late)} wake-ups)"
    )


def spin(kind: str, stop: Event, out: mp.Queue[tuple[str, float, float, int | None]]) -> None:
    become(kind)
    longest, last = 0.0, time.perf_counter()
    cpu0 = time.process_time()
    while not stop.is_set():
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
    out.put((kind, time.process_time() - cpu0, longest, slice_of(os.getpid())))


def share(kind: str, seconds: float) -> str:
    stop = mp.Event()
    out: mp.Queue[tuple[str, float, float, int | None]] = mp.Queue()
    procs = [mp.Process(target=spin, args=(k, stop, out)) for k in ("hog", kind)]
    for p in procs:
        p.start()
    time.sleep(seconds)
    stop.set()
    got = {k: (cpu, longest, sl) for k, cpu, longest, sl in (out.get(), out.get())}
    for p in procs:
        p.join()
    cpu, longest, sl = got[kind]
    total = cpu + got["hog"][0]
    return (
        f"{kind:>5} beside a process that never sleeps: {cpu / total:.1%} of the core,"
        f" longest wait {longest * 1000:.0f} ms"
        f" (its slice: {f'{sl / 1e6:g} ms' if sl else 'not reported'})"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=float, default=8.0)
    args = p.parse_args()
    os.sched_setaffinity(0, {0})
    print(
        f"command: python bench/slices.py --seconds {args.seconds:g}; kernel {os.uname().release}"
    )
    for kind in KINDS:
        print(lateness(kind, args.seconds), flush=True)
    for kind in KINDS[1:]:
        print(share(kind, args.seconds), flush=True)


if __name__ == "__main__":
    main()
