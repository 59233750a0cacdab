"""How long a move may take and when the player is reminded."""

from __future__ import annotations

# Seconds per move offered at /newgame: real time, then daily.
PACES = (30, 60, 120, 300, 12 * 3600, 24 * 3600, 48 * 3600, 72 * 3600)
DAILY = 12 * 3600
HOUR = 3600


def is_daily(pace: int) -> bool:
    return pace >= DAILY


def reminder_times(pace: int, start: float, due: float, ping_after: float = 0) -> list[float]:
    """Daily: at half time and an hour before the end. Real time: a ping once
    the turn has waited ``ping_after`` seconds (0: none), and with a third left."""
    if is_daily(pace):
        return [start + pace / 2, due - HOUR]
    late = due - pace / 3
    if ping_after > 0 and start + ping_after < late:
        return [start + ping_after, late]
    return [late]


def next_reminder(
    pace: int, start: float, due: float, sent: int, ping_after: float = 0
) -> float | None:
    times = reminder_times(pace, start, due, ping_after)
    return times[sent] if sent < len(times) else None
