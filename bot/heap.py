"""What the garbage collector need not walk in the computer player's
workers: the objects that live as long as the process.

A full collection walks every object it tracks while nothing else runs.
In a worker that lands inside a search and counts against its CPU cap
(engine/ai/clock.py): spawn imports the bot's main module again (~250,000
objects, 153–174 ms to walk), and the search is cut short. ``gc.freeze``
moves the objects existing at that moment out of its sight: they are still
freed when their last reference goes, only a cycle among them would never
be. The bot's own process does not do this: at the load one token carries
its collections are far inside the latency target (docs/benchmarks.md).
"""

from __future__ import annotations

import gc


def set_aside() -> None:
    """Collect what is garbage now, then freeze the rest."""
    gc.collect()
    gc.freeze()
