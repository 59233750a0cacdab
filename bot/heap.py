"""What the garbage collector need not walk: the objects that live as long as
the process.

A full collection walks every object it tracks while nothing else runs, and
every press that comes in meanwhile waits. ``gc.freeze`` moves the objects
existing at that moment out of its sight: they are still freed when their
last reference goes, only a cycle among them would never be. So it is called
twice, each time on objects made to last: once after the imports, once after
the bot is built and before it takes its first update (the games resumed at
start are frozen with the rest: a cycle among their objects would outlive
the game, at most once per start). Python's own thresholds stay; why, and
what a larger young threshold did: docs/architecture.md.
"""

from __future__ import annotations

import gc


def set_aside() -> None:
    """Collect what is garbage now, then freeze the rest."""
    gc.collect()
    gc.freeze()
