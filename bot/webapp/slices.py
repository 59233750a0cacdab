"""A process's time slice, asked of Linux (6.12 and later) by ``sched_setattr``.

Python's ``os`` has ``sched_setscheduler`` but not ``sched_setattr``, the
only call that sets a fair-class task's slice, so this module makes the
system call itself (the kernel's public interface, ``struct sched_attr`` as
in ``include/uapi/linux/sched/types.h``). Why the streams process wants a
long slice is in :func:`bot.webapp.streams.yield_to_the_bot`.
"""

from __future__ import annotations

import ctypes
import platform
import struct
from pathlib import Path

# ``sched_setattr``'s number where the bot runs; elsewhere it is not asked.
SYSCALLS = {"x86_64": 314, "aarch64": 274}
# size, policy, flags, nice, priority, runtime (the slice, ns), deadline,
# period, util_min, util_max: the first version with utilisation clamps.
ATTR = struct.Struct("=IIQiIQQQII")


def set_slice(policy: int, nice: int, slice_ns: int) -> bool:
    """This process's policy, niceness and slice (the kernel clamps it to
    0.1–100 ms); False where the call is missing or refused. A kernel older
    than 6.12 takes the call and ignores the slice: :func:`slice_of` tells."""
    number = SYSCALLS.get(platform.machine())
    if number is None:
        return False
    attr = ctypes.create_string_buffer(
        ATTR.pack(ATTR.size, policy, 0, nice, 0, slice_ns, 0, 0, 0, 0), ATTR.size
    )
    libc = ctypes.CDLL(None, use_errno=True)
    return int(libc.syscall(number, 0, attr, 0)) == 0


def slice_of(pid: int) -> int | None:
    """A task's slice in ns as the kernel reports it (``se.slice`` in
    ``/proc/PID/sched``), or None where it does not."""
    try:
        lines = Path(f"/proc/{pid}/sched").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        name, _, value = line.partition(":")
        if name.strip() == "se.slice":
            return int(value.strip())
    return None
