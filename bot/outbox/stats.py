"""The outbox's counters, for tests and monitoring (``Outbox.stats()``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class OutboxStats:
    """Counters for tests and monitoring."""

    api_calls: int = 0
    sends: int = 0
    edits: int = 0
    deletes: int = 0
    coalesced: int = 0  # rows superseded by a newer put for the same key
    not_modified: int = 0
    resent: int = 0  # edits whose message was gone, so it was sent anew
    retries: int = 0  # transient errors (5xx, network, timeouts)
    flood_waits: int = 0  # 429 answers
    failed: int = 0
    forbidden: int = 0
    migrations: int = 0
    pruned: int = 0  # finished rows deleted
