"""What the garbage collector need not walk: the objects that live as long as
the process.

A full collection walks every object it tracks, at about a microsecond each
on a small VM, and nothing else runs meanwhile: with the imports tracked it
took ~150 ms, and with what the bot builds at start (the locales compiled to
Fluent's trees, the dispatcher's routers, Babel's locale data, about 34,000
objects) still 50–78 ms, every 5–6 s at 200 busy tables; each press that
came in during one waited as long. ``gc.freeze`` moves the objects existing
at that moment out of the collector's sight: they are still freed when their
last reference goes, only a cycle among them would never be.
So it is called twice, each time on objects made to last: once after the
imports, once after the bot is built and before it takes its first update.
The games resumed at start are frozen with the rest: a cycle among their
objects would outlive the game, at most once per start.

The youngest generation is also collected less often. Python collects it
every 700 tracked objects made and not yet freed; at 200 busy tables that
is many times a second, and what a press has in flight at that moment
(its update, its coroutines) is promoted towards the old generation, whose
growth by a quarter sets off a full collection. Collected every 7,000: one
full collection in a 120 s load window instead of about 25; the young
collections take 12–18 ms (every ~1.5 s) and the middle ones, ten times
larger, 37–68 ms (every ~15 s); all of them together 1.6 s of the run
instead of 2.1 (README, Benchmarks).
"""

from __future__ import annotations

import gc

# Tracked objects made (and not yet freed) between two young collections;
# Python's default is 700.
YOUNG = 7000


def set_aside() -> None:
    """Collect what is garbage now, then freeze the rest."""
    gc.collect()
    gc.freeze()


def collect_young_less_often() -> None:
    """The youngest generation's threshold to ``YOUNG``; the older ones' stay."""
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG, middle, old)
