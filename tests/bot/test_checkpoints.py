"""The WAL is copied into the database file off the writer's thread, and
still starts over while writes never stop (bot/storage/checkpoints.py)."""

from __future__ import annotations

import asyncio
import os
import sqlite3
from pathlib import Path

from bot.storage import Database


def wal_bytes(path: Path) -> int:
    wal = Path(f"{path}-wal")
    return wal.stat().st_size if wal.exists() else 0


async def hammer(db: Database, path: Path, rows: int) -> int:
    """Writes that never pause (twenty writers, group commit) until ``rows``
    rows are in: the longest the WAL file grew meanwhile. A count, not a
    time, so a busy machine writes as much, only slower."""
    left = rows
    longest = 0
    done = asyncio.Event()

    async def writer() -> None:
        nonlocal left
        while left > 0:
            left -= 1
            await db.execute("INSERT INTO blobs(b) VALUES (?)", (os.urandom(3000),))

    async def watch() -> None:
        nonlocal longest
        while not done.is_set():
            longest = max(longest, wal_bytes(path))
            await asyncio.sleep(0.005)

    watcher = asyncio.create_task(watch())
    try:
        await asyncio.gather(*(writer() for _ in range(20)))
    finally:
        done.set()
        await watcher
    return longest


async def test_a_commit_never_waits_for_a_checkpoint(tmp_path: Path) -> None:
    """SQLite's own default would copy the WAL at the commit that takes it
    past 1,000 pages; here only the checkpointing connection copies it."""
    path = tmp_path / "spades.db"
    db = await Database.open(path, checkpoint_every=3600)
    assert db.checkpoints is not None
    try:
        await db.execute("CREATE TABLE blobs(id INTEGER PRIMARY KEY, b BLOB NOT NULL)")
        for _ in range(1500):  # ~1,500 pages
            await db.execute("INSERT INTO blobs(b) VALUES (?)", (os.urandom(3000),))
        assert wal_bytes(path) > 1500 * 4096  # nothing copied, so it never started over
        done = await db.checkpoints.once()
        assert done.pages > 1500 and done.copied == done.pages
    finally:
        await db.close()


async def test_the_wal_starts_over_while_writes_never_stop(tmp_path: Path) -> None:
    path = tmp_path / "spades.db"
    db = await Database.open(path)
    assert db.checkpoints is not None
    db.checkpoints.every = 0.02
    db.checkpoints.restart_pages = 64  # 256 KiB of 4 KiB pages
    try:
        await db.execute("CREATE TABLE blobs(id INTEGER PRIMARY KEY, b BLOB NOT NULL)")
        written = 6000  # 18 MB: far more than two passes apart ever hold
        longest = await hammer(db, path, written)
    finally:
        await db.close()
    # Without the pass between writes the WAL grows with everything written.
    print(f"{written} rows of 3,000 bytes; the WAL at most {longest:,} bytes")
    # Starting over, it holds what is written between two passes and their
    # own time (a few MiB at ~20,000 rows a second, more on a machine busy
    # with other tests); never starting over, all of it and more.
    assert longest < written * 3000 / 2, (written, longest)
    check = sqlite3.connect(path)
    try:
        assert check.execute("SELECT COUNT(*) FROM blobs").fetchone()[0] == written
        assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        check.close()
