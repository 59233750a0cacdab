"""When a search stops early: far past its budget in CPU time, or in wall time.

A search's work is fixed by its budget, so a view and a seed give one
decision. The thread's CPU time only stops a search that runs far over (a
position much costlier than estimated); other programs on the machine do not
count against it, so a busy machine does not change decisions. The wall
clock is the last resort for a machine so busy that the thread hardly runs.

The CPU time is read with ``getrusage(RUSAGE_THREAD)`` (tick resolution, a
few microseconds a call), and only once the wall clock says the cap could
have passed: on virtual machines ``time.thread_time()`` can cost a
millisecond a call, which once made a search spend a third of its time
asking the time.
"""

from __future__ import annotations

import math
import time

try:
    import resource

    _THREAD: int | None = resource.RUSAGE_THREAD
except (ImportError, AttributeError):  # not Linux: the precise clock
    _THREAD = None

WALL_FACTOR = 2.5  # the wall clock stops a search at this many CPU caps
MIN_WALL_S = 1.0


def thread_cpu() -> float:
    """CPU seconds the calling thread has used."""
    if _THREAD is not None:
        r = resource.getrusage(_THREAD)
        return r.ru_utime + r.ru_stime
    return time.thread_time()


class Deadline:
    __slots__ = ("cap", "cpu0", "soft", "wall")

    def __init__(self, cap_s: float = math.inf) -> None:
        now = time.perf_counter()
        self.cap = cap_s
        self.soft = now + cap_s  # the CPU cap cannot pass before this wall time
        self.wall = now + max(MIN_WALL_S, WALL_FACTOR * cap_s)
        self.cpu0 = thread_cpu() if cap_s < math.inf else 0.0

    def passed(self) -> bool:
        now = time.perf_counter()
        if now < self.soft:
            return False
        return now > self.wall or thread_cpu() - self.cpu0 > self.cap


NEVER = Deadline()

__all__ = ["NEVER", "Deadline", "thread_cpu"]
