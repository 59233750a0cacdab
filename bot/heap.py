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

Python's own thresholds stay. Collecting the youngest generation every
7,000 tracked objects instead of 700 (tried, 2026-12-03) made full
collections rare, but with the Mini App open the young collections then
took 18–40 ms every ~2.5 s and the middle ones 35–82 ms every ~20 s, the
longest pauses the bot had (README, Benchmarks).
"""

from __future__ import annotations

import gc


def set_aside() -> None:
    """Collect what is garbage now, then freeze the rest."""
    gc.collect()
    gc.freeze()
