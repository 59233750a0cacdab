"""The bot's database as ``python -m bench.load`` reads it (read-only, beside
the running bot): the moves made, and with ``--storage`` the file's size,
the outbox's rows and the bytes each table takes, so that the game record,
which grows with the moves as it should, is told apart from the outbox,
which must not grow. Why 20 outbox retention windows stand for an hour
(``--hour-equivalent``): docs/benchmarks.md."""

from __future__ import annotations

import sqlite3
from collections import Counter
from dataclasses import dataclass
from pathlib import Path


def count_actions(db: Path) -> int:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        return int(con.execute("SELECT COUNT(*) FROM actions").fetchone()[0])
    finally:
        con.close()


@dataclass
class Storage:
    """The database's size and contents at one moment."""

    at: float  # seconds since the load window began
    file: int  # bytes of the database file
    wal: int  # bytes of its WAL file
    free: int  # bytes of the file that are free pages (reused before it grows)
    outbox: Counter[str]  # rows by status
    messages: int
    actions: int
    tables: dict[str, int] | None = None  # bytes per table with its indexes (dbstat)


def storage(db: Path, at: float, detail: bool = False) -> Storage:
    wal = Path(f"{db}-wal")
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        page = int(con.execute("PRAGMA page_size").fetchone()[0])
        free = int(con.execute("PRAGMA freelist_count").fetchone()[0]) * page
        outbox: Counter[str] = Counter(
            dict(con.execute("SELECT status, COUNT(*) FROM outbox GROUP BY status").fetchall())
        )
        messages = int(con.execute("SELECT COUNT(*) FROM messages").fetchone()[0])
        actions = int(con.execute("SELECT COUNT(*) FROM actions").fetchone()[0])
        tables: dict[str, int] | None = None
        if detail:
            owner = dict(con.execute("SELECT name, tbl_name FROM sqlite_schema").fetchall())
            sizes: Counter[str] = Counter()
            for name, size in con.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name"):
                sizes[owner.get(name, name)] += int(size)
            tables = dict(sizes.most_common())
    finally:
        con.close()
    return Storage(
        at,
        db.stat().st_size,
        wal.stat().st_size if wal.exists() else 0,
        free,
        outbox,
        messages,
        actions,
        tables,
    )


def mib(n: float) -> str:
    return f"{n / 2**20:.1f} MiB"


def storage_line(s: Storage) -> str:
    statuses = ", ".join(f"{k} {v}" for k, v in sorted(s.outbox.items()))
    return (
        f"t={s.at:6.0f} s: file {mib(s.file)} (free pages {mib(s.free)}, WAL {mib(s.wal)});"
        f" outbox {sum(s.outbox.values())} rows ({statuses or 'none'});"
        f" messages {s.messages}; actions {s.actions}"
    )


def hour_window() -> float:
    """W: how long a finished row can stay in the outbox (kept, then pruned)."""
    from bot.outbox import Outbox

    return float(Outbox.keep_sent + Outbox.prune_interval)


def print_storage(stored: list[Storage], moves: int, window: float | None) -> None:
    first, last = stored[0], stored[-1]
    if window is not None:
        print(
            f"one-hour equivalence: a finished row stays at most W = {window:.0f} s; the"
            f" {last.at:.0f} s window is {last.at / window:.0f} W (an hour is {3600 / window:.0f} W)"
        )
    print("storage over the load window:")
    for s in stored:
        print("  " + storage_line(s))
    rows = [sum(s.outbox.values()) for s in stored]
    print(
        f"outbox rows: start {rows[0]}, end {rows[-1]}, max {max(rows)};"
        f" file: start {mib(first.file)}, end {mib(last.file)}"
        f" (+{mib(last.file - first.file)}; WAL {mib(first.wal)} -> {mib(last.wal)})"
    )
    before, after = first.tables, last.tables
    if before is not None and after is not None:
        names = sorted(set(before) | set(after), key=lambda n: -after.get(n, 0))
        grew = ", ".join(
            f"{n} {mib(before.get(n, 0))} -> {mib(after.get(n, 0))}"
            for n in names
            if max(before.get(n, 0), after.get(n, 0)) >= 2**16
        )
        print(f"bytes per table with its indexes: {grew}")
        record = sum(after.get(n, 0) - before.get(n, 0) for n in ("actions", "games"))
        print(
            f"game record (actions, games) grew {mib(record)} for {moves} moves"
            f" ({record / max(1, moves):.0f} B per move); messages rows"
            f" {first.messages} -> {last.messages}"
        )
