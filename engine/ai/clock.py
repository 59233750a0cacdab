"""When a search stops early: far past its budget in CPU time, or in wall time.

A search's work is fixed by its budget, so a view and a seed give one
decision. The CPU clock of the thread only stops a search that runs far over
(a position much costlier than estimated); other programs on the machine do
not count against it, so a busy machine does not change decisions. The wall
clock is the last resort for a machine so busy that the thread hardly runs.
"""

from __future__ import annotations

import math
import time

WALL_FACTOR = 2.5  # the wall clock stops a search at this many CPU caps
MIN_WALL_S = 1.0


class Deadline:
    __slots__ = ("cpu", "wall")

    def __init__(self, cap_s: float = math.inf) -> None:
        self.cpu = time.thread_time() + cap_s
        self.wall = time.perf_counter() + max(MIN_WALL_S, WALL_FACTOR * cap_s)

    def passed(self) -> bool:
        return time.thread_time() > self.cpu or time.perf_counter() > self.wall


NEVER = Deadline()

__all__ = ["NEVER", "Deadline"]
