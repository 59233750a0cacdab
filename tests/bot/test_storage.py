"""Storage: pragmas, migrations, serialised transactions, lock retries, crash durability."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from harness import MakeBot

from bot.storage import Database, DatabaseBusyError, Statements
from bot.storage.db import defer
from bot.storage.migrations import MIGRATIONS, apply_migrations

TABLES = {"users", "tables", "seats", "games", "actions", "messages", "outbox"}


async def _scalar(db: Database, sql: str, args: tuple = ()) -> object:
    row = await db.fetchone(sql, args)
    assert row is not None
    return row[0]


async def _schema(db: Database) -> list[tuple[str, str]]:
    rows = await db.fetchall("SELECT name, sql FROM sqlite_master ORDER BY name")
    return [(r["name"], r["sql"]) for r in rows]


async def _hold_write_lock(path: Path, seconds: float) -> asyncio.subprocess.Process:
    """Start another process that holds the database's write lock for ``seconds``."""
    code = textwrap.dedent(
        f"""
        import sqlite3, sys, time
        conn = sqlite3.connect({str(path)!r}, isolation_level=None)
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO messages(key, chat_id, message_id) VALUES ('other', 1, 1)")
        print("locked", flush=True)
        time.sleep({seconds})
        conn.execute("COMMIT")
        """
    )
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", code, stdout=asyncio.subprocess.PIPE
    )
    assert proc.stdout is not None
    line = await asyncio.wait_for(proc.stdout.readline(), 10)
    assert line.strip() == b"locked"
    return proc


async def test_open_sets_pragmas_and_schema(db: Database) -> None:
    assert await _scalar(db, "PRAGMA journal_mode") == "wal"
    assert await _scalar(db, "PRAGMA foreign_keys") == 1
    assert await _scalar(db, "PRAGMA synchronous") == 1  # NORMAL
    assert await _scalar(db, "PRAGMA busy_timeout") == 5000
    assert await _scalar(db, "PRAGMA user_version") == len(MIGRATIONS)
    names = {name for name, _ in await _schema(db)}
    assert names >= TABLES
    assert {"one_live_table_per_topic", "one_seat_per_user", "outbox_pending"} <= names
    assert "state_json" not in await _columns(db, "games")


async def test_synchronous_full_on_request(tmp_path: Path) -> None:
    db = await Database.open(tmp_path / "full.db", synchronous="FULL")
    try:
        assert await _scalar(db, "PRAGMA synchronous") == 2
    finally:
        await db.close()


async def test_open_creates_missing_directory(tmp_path: Path) -> None:
    db = await Database.open(tmp_path / "data" / "nested" / "spades.db")
    await db.close()
    assert (tmp_path / "data" / "nested" / "spades.db").exists()


async def test_open_leaves_the_schema_to_the_migrations(tmp_path: Path) -> None:
    """Database.open only opens: the app migrates (bot/startup.py), so storage
    needs nothing of bot/storage/migrations/."""
    db = await Database.open(tmp_path / "spades.db")
    try:
        assert await _scalar(db, "PRAGMA user_version") == 0
        assert await db.fetchall("SELECT name FROM sqlite_master") == []
        assert await apply_migrations(db) == len(MIGRATIONS)
        assert {name for name, _ in await _schema(db)} >= TABLES
    finally:
        await db.close()
    code = "import sys, bot.storage.db; sys.exit('bot.storage.migrations' in sys.modules)"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", code, cwd=Path(__file__).resolve().parents[2]
    )
    assert await proc.wait() == 0


async def test_migrations_idempotent_on_restart(tmp_path: Path) -> None:
    path = tmp_path / "spades.db"
    db = await Database.open(path)
    await apply_migrations(db)
    await db.execute("INSERT INTO users(user_id, first_name, updated_at) VALUES (7, 'Ann', 0)")
    schema = await _schema(db)
    assert await apply_migrations(db) == len(MIGRATIONS)
    await db.close()

    db = await Database.open(path)
    try:
        assert await apply_migrations(db) == len(MIGRATIONS)
        assert await _schema(db) == schema
        assert await _scalar(db, "PRAGMA user_version") == len(MIGRATIONS)
        assert await _scalar(db, "SELECT first_name FROM users WHERE user_id = 7") == "Ann"
    finally:
        await db.close()


async def test_failed_migration_rolls_back_whole_step(db: Database) -> None:
    broken = [
        *MIGRATIONS,
        ("CREATE TABLE half_done(x INTEGER)", "THIS IS NOT SQL"),
    ]
    with pytest.raises(sqlite3.OperationalError):
        await apply_migrations(db, broken)
    assert await _scalar(db, "PRAGMA user_version") == len(MIGRATIONS)
    assert await db.fetchone("SELECT 1 FROM sqlite_master WHERE name = 'half_done'") is None

    fixed = [*MIGRATIONS, ("CREATE TABLE half_done(x INTEGER)",)]
    assert await apply_migrations(db, fixed) == len(MIGRATIONS) + 1
    assert await apply_migrations(db, fixed) == len(MIGRATIONS) + 1


async def _one_game(db: Database) -> None:
    """Table 1 with game 1 being played in it (what actions and columns of games need)."""
    now = time.time()
    async with db.tx() as conn:
        await conn.execute(
            "INSERT INTO tables(table_id, chat_id, creator_id, status, rules_json, created_at,"
            " updated_at) VALUES (1, -1, 1, 'playing', '{}', ?, ?)",
            (now, now),
        )
        await conn.execute(
            "INSERT INTO games(game_id, table_id, seed, rules_json, first_dealer, status,"
            " started_at) VALUES (1, 1, 42, '{}', 0, 'playing', ?)",
            (now,),
        )


async def _columns(db: Database, table: str) -> list[str]:
    return [r["name"] for r in await db.fetchall(f"PRAGMA table_info({table})")]


async def test_the_never_written_state_json_column_is_dropped(tmp_path: Path) -> None:
    """A database made before migration 6 loses ``games.state_json`` and keeps its games."""
    path = tmp_path / "spades.db"
    db = await Database.open(path)
    assert await apply_migrations(db, MIGRATIONS[:5]) == 5
    assert "state_json" in await _columns(db, "games")
    await _one_game(db)
    await db.close()

    db = await Database.open(path)
    try:
        assert await apply_migrations(db) == len(MIGRATIONS)
        assert await _scalar(db, "PRAGMA user_version") == len(MIGRATIONS)
        columns = await _columns(db, "games")
        assert "state_json" not in columns and "totals_json" in columns
        assert await _scalar(db, "SELECT seed FROM games WHERE game_id = 1") == 42
    finally:
        await db.close()


async def test_newer_schema_is_refused(db_path: Path, make_bot: MakeBot) -> None:
    path = db_path
    db = await Database.open(path)
    await apply_migrations(db)
    await db.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 5}")
    with pytest.raises(RuntimeError, match="newer"):
        await apply_migrations(db)
    await db.close()
    # The bot refuses to start on it, and lets go of the database (its lock, its threads).
    await _no_connection_threads()
    with pytest.raises(RuntimeError, match="newer"):
        await make_bot()
    await _no_connection_threads()
    db = await Database.open(path)
    await db.close()


async def _no_connection_threads() -> None:
    """Wait (5 s at most) until no thread of an aiosqlite connection is left
    (they are named after the function they run)."""
    async with asyncio.timeout(5):
        while any("connection_worker" in t.name for t in threading.enumerate()):
            await asyncio.sleep(0.01)


async def test_tx_commits_and_rolls_back(db: Database) -> None:
    async with db.tx() as conn:
        await conn.execute("INSERT INTO users(user_id, updated_at) VALUES (1, 0)")

    with pytest.raises(ValueError):
        async with db.tx() as conn:
            await conn.execute("INSERT INTO users(user_id, updated_at) VALUES (2, 0)")
            await conn.execute("UPDATE users SET first_name = 'X' WHERE user_id = 1")
            raise ValueError("boom")

    rows = await db.fetchall("SELECT user_id, first_name FROM users ORDER BY user_id")
    assert [tuple(r) for r in rows] == [(1, "")]
    # The connection is usable again: no transaction was left open.
    assert await db.execute("UPDATE users SET first_name = 'Y' WHERE user_id = 1") == 1


async def test_constraint_error_rolls_back(db: Database) -> None:
    now = time.time()
    insert = (
        "INSERT INTO tables(chat_id, creator_id, status, rules_json, created_at, updated_at)"
        " VALUES (?, 1, ?, '{}', ?, ?)"
    )
    await db.execute(insert, (-100, "open", now, now))
    with pytest.raises(sqlite3.IntegrityError):
        async with db.tx() as conn:
            await conn.execute(insert, (-200, "open", now, now))
            await conn.execute(insert, (-100, "playing", now, now))  # second live table
    assert await _scalar(db, "SELECT count(*) FROM tables") == 1
    await db.execute(insert, (-100, "finished", now, now))  # finished ones may pile up
    with pytest.raises(sqlite3.IntegrityError):
        await db.execute(insert, (-100, "bogus", now, now))


async def test_cancelled_tx_rolls_back_and_releases_lock(db: Database) -> None:
    entered = asyncio.Event()

    async def slow() -> None:
        async with db.tx() as conn:
            await conn.execute("INSERT INTO users(user_id, updated_at) VALUES (3, 0)")
            entered.set()
            await asyncio.sleep(10)

    task = asyncio.create_task(slow())
    await entered.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await _scalar(db, "SELECT count(*) FROM users") == 0
    await asyncio.wait_for(db.execute("INSERT INTO users(user_id, updated_at) VALUES (4, 0)"), 2)


async def test_reentrant_use_is_an_error_not_a_deadlock(db: Database) -> None:
    with pytest.raises(RuntimeError, match="re-entrantly"):
        async with db.tx():
            await db.fetchone("SELECT 1")
    with pytest.raises(RuntimeError, match="re-entrantly"):
        async with db.tx(), db.tx():
            pass


async def test_transactions_never_interleave(db: Database) -> None:
    await db.execute("INSERT INTO users(user_id, updated_at) VALUES (1, 0)")

    async def bump() -> None:
        async with db.tx() as conn:
            row = await conn.fetchone("SELECT updated_at FROM users WHERE user_id = 1")
            assert row is not None
            (value,) = row
            await asyncio.sleep(0)  # invite another coroutine in
            await conn.execute("UPDATE users SET updated_at = ? WHERE user_id = 1", (value + 1,))

    await asyncio.gather(*(bump() for _ in range(50)))
    assert await _scalar(db, "SELECT updated_at FROM users WHERE user_id = 1") == 50


async def test_writes_land_in_order_with_the_commit(db: Database) -> None:
    async with db.tx() as conn:
        await defer(conn, "INSERT INTO users(user_id, updated_at) VALUES (7, 0)")
        await defer(conn, "UPDATE users SET first_name = 'Ann' WHERE user_id = 7")
        # A read inside the transaction sees the deferred writes before it.
        row = await conn.fetchone("SELECT first_name FROM users WHERE user_id = 7")
        assert row is not None and tuple(row) == ("Ann",)
        await defer(conn, "UPDATE users SET username = 'ann' WHERE user_id = 7")
    row = await db.fetchone("SELECT first_name, username FROM users WHERE user_id = 7")
    assert row is not None and tuple(row) == ("Ann", "ann")


async def test_a_failed_write_rolls_back_the_whole_transaction(db: Database) -> None:
    await db.execute("INSERT INTO users(user_id, updated_at) VALUES (1, 0)")
    with pytest.raises(sqlite3.IntegrityError):
        async with db.tx() as conn:
            await defer(conn, "UPDATE users SET first_name = 'changed' WHERE user_id = 1")
            await defer(conn, "INSERT INTO users(user_id, updated_at) VALUES (2, 0)")
            await defer(conn, "INSERT INTO users(user_id, updated_at) VALUES (1, 0)")  # dup
    rows = await db.fetchall("SELECT user_id, first_name FROM users ORDER BY user_id")
    assert [tuple(r) for r in rows] == [(1, "")]


async def test_transactions_at_once_each_stay_whole(db: Database) -> None:
    """Many transactions at once: one that fails is undone alone and only its
    caller sees the error."""
    await db.execute("INSERT INTO users(user_id, updated_at) VALUES (1, 0)")

    async def write(uid: int) -> None:
        async with db.tx() as conn:
            await defer(conn, "UPDATE users SET updated_at = updated_at + 1 WHERE user_id = 1")
            await defer(conn, "INSERT INTO users(user_id, updated_at) VALUES (?, 0)", (uid,))

    # Two collide (one among the others, one last): each fails alone.
    uids = [100 + i for i in range(20)] + [1] + [120 + i for i in range(20)] + [1]
    results = await asyncio.gather(*(write(u) for u in uids), return_exceptions=True)
    failed = [i for i, r in enumerate(results) if r is not None]
    assert failed == [20, 41], results
    assert all(isinstance(results[i], sqlite3.IntegrityError) for i in failed)
    assert await _scalar(db, "SELECT count(*) FROM users") == 41
    # The failed transactions' UPDATEs were undone with their INSERTs.
    assert await _scalar(db, "SELECT updated_at FROM users WHERE user_id = 1") == 40


async def test_execute_counts_its_own_rows(db: Database) -> None:
    """db.execute's statements asked for at once: each learns the rows its
    own statement changed, as sqlite3's rowcount says (-1: one
    that changes none by nature)."""
    assert (
        await db.execute("INSERT INTO users(user_id, updated_at) VALUES (1, 0), (2, 0), (3, 0)")
        == 3
    )
    counts = await asyncio.gather(
        db.execute("UPDATE users SET updated_at = 1 WHERE user_id <= 1"),
        db.execute("UPDATE users SET updated_at = 2 WHERE user_id <= 2"),
        db.execute("UPDATE users SET updated_at = 3 WHERE user_id <= 3"),
        db.execute("UPDATE users SET updated_at = 4 WHERE user_id > 3"),
        db.execute("CREATE TABLE extra(x INTEGER)"),
        db.execute("INSERT INTO users(user_id, updated_at) VALUES (1, 0)"),  # a duplicate
        db.execute("  -- a comment\n  DELETE FROM users WHERE user_id = 3"),
        return_exceptions=True,
    )
    assert counts[:5] == [1, 2, 3, 0, -1] and counts[6] == 1, counts
    assert isinstance(counts[5], sqlite3.IntegrityError)
    rows = await db.fetchall("SELECT user_id, updated_at FROM users ORDER BY user_id")
    assert [tuple(r) for r in rows] == [(1, 3), (2, 3)]


async def test_run_tx_functions_run_in_order_and_fail_alone(db: Database) -> None:
    """Functions given to run_tx (they read as they write) and transactions
    go in the order asked for; one that raises is undone alone, after its writes."""

    async def add(st: Statements, uid: int) -> int:
        await st.execute("INSERT INTO users(user_id, updated_at) VALUES (?, 0)", (uid,))
        row = await st.fetchone("SELECT count(*) FROM users")
        assert row is not None
        if uid == 13:
            raise ValueError("unlucky")
        return int(row[0])

    async def write(uid: int) -> None:
        async with db.tx() as conn:
            await defer(conn, "INSERT INTO users(user_id, updated_at) VALUES (?, 0)", (uid,))

    results = await asyncio.gather(
        *(db.run_tx(add, uid) if uid % 2 else write(uid) for uid in range(1, 21)),
        return_exceptions=True,
    )
    assert isinstance(results[12], ValueError)
    # In the order asked for: each saw those before it, less the one undone.
    counts = {uid: results[uid - 1] for uid in range(1, 21, 2) if uid != 13}
    assert counts == {uid: uid if uid < 13 else uid - 1 for uid in counts}, results
    rows = await db.fetchall("SELECT user_id FROM users ORDER BY user_id")
    assert [r[0] for r in rows] == [u for u in range(1, 21) if u != 13]


async def test_run_reads_from_one_snapshot(db: Database) -> None:
    """db.run's reads all see the database as it was at the first of them: a
    write asked for meanwhile lands after them; a read after it sees it."""
    await db.execute("INSERT INTO users(user_id, updated_at) VALUES (1, 0)")
    writing: list[asyncio.Task[int]] = []

    async def twice(st: Statements) -> tuple[int, int]:
        first = await st.fetchone("SELECT count(*) FROM users")
        writing.append(
            asyncio.create_task(db.execute("INSERT INTO users(user_id, updated_at) VALUES (2, 0)"))
        )
        await asyncio.sleep(0.05)  # the write's turn, if it could have one
        second = await st.fetchone("SELECT count(*) FROM users")
        assert first is not None and second is not None
        return int(first[0]), int(second[0])

    assert await db.run(twice) == (1, 1)
    assert await writing[0] == 1
    assert await _scalar(db, "SELECT count(*) FROM users") == 2


async def test_a_read_never_overtakes_a_committing_transaction(db: Database) -> None:
    """A read sees a write asked for before it (a /start and a /newgame from
    one batch of updates, say)."""

    async def writer() -> None:
        async with db.tx() as conn:
            await defer(conn, "INSERT INTO users(user_id, updated_at) VALUES (9, 0)")

    async def reader() -> int:
        row = await db.fetchone("SELECT count(*) FROM users")
        assert row is not None
        return int(row[0])

    # The writer runs first; the reader asks before the commit has gone out.
    _, seen = await asyncio.gather(writer(), reader())
    assert seen == 1


async def test_waits_out_external_write_lock_with_retries(tmp_path: Path) -> None:
    path = tmp_path / "spades.db"
    # A short busy_timeout forces our own retry loop to do the waiting.
    db = await Database.open(path, busy_timeout_ms=100)
    try:
        await apply_migrations(db)
        holder = await _hold_write_lock(path, 2.0)
        started = time.monotonic()
        async with db.tx() as conn:
            await conn.execute("INSERT INTO users(user_id, updated_at) VALUES (1, 0)")
        waited = time.monotonic() - started
        assert await holder.wait() == 0
        assert waited > 1.0
        assert await _scalar(db, "SELECT count(*) FROM users") == 1
        assert await _scalar(db, "SELECT count(*) FROM messages WHERE key = 'other'") == 1
    finally:
        await db.close()


async def test_waits_out_external_write_lock_default_settings(tmp_path: Path) -> None:
    path = tmp_path / "spades.db"
    db = await Database.open(path)
    try:
        await apply_migrations(db)
        holder = await _hold_write_lock(path, 2.0)
        assert await db.execute("INSERT INTO users(user_id, updated_at) VALUES (1, 0)") == 1
        assert await holder.wait() == 0
    finally:
        await db.close()


async def test_gives_up_after_lock_wait(tmp_path: Path) -> None:
    path = tmp_path / "spades.db"
    db = await Database.open(path, busy_timeout_ms=50, lock_wait=0.5)
    try:
        await apply_migrations(db)
        holder = await _hold_write_lock(path, 2.0)
        with pytest.raises(DatabaseBusyError):
            async with db.tx() as conn:
                await conn.execute("INSERT INTO users(user_id, updated_at) VALUES (1, 0)")
        assert await holder.wait() == 0
        # Still usable once the other process lets go.
        assert await db.execute("INSERT INTO users(user_id, updated_at) VALUES (1, 0)") == 1
    finally:
        await db.close()


async def test_committed_tx_survives_kill_9(tmp_path: Path) -> None:
    path = tmp_path / "spades.db"
    code = textwrap.dedent(
        f"""
        import asyncio, sys, time
        sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})
        from bot.storage import Database

        async def main():
            db = await Database.open({str(path)!r})
            for i in range(20):
                async with db.tx() as conn:
                    await conn.execute(
                        "INSERT INTO actions(game_id, seq, seat, action, at) VALUES (1, ?, 0, 0, 0)",
                        (i,),
                    )
            print("committed", flush=True)
            time.sleep(60)

        asyncio.run(main())
        """
    )
    # actions.game_id references games: create the game first.
    db = await Database.open(path)
    await apply_migrations(db)
    await _one_game(db)
    await db.close()

    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", code, stdout=asyncio.subprocess.PIPE
    )
    assert proc.stdout is not None
    assert (await asyncio.wait_for(proc.stdout.readline(), 20)).strip() == b"committed"
    os.kill(proc.pid, signal.SIGKILL)
    await proc.wait()

    db = await Database.open(path)
    try:
        assert await _scalar(db, "SELECT count(*) FROM actions") == 20
    finally:
        await db.close()


async def test_a_conn_is_refused_after_its_transaction(db: Database) -> None:
    async with db.tx() as conn:
        await conn.execute("INSERT INTO users(user_id, updated_at) VALUES (1, 0)")
    with pytest.raises(RuntimeError, match="ended"):
        await conn.execute("DELETE FROM users")
    with pytest.raises(RuntimeError, match="ended"):
        await defer(conn, "DELETE FROM users")
    assert await _scalar(db, "SELECT count(*) FROM users") == 1


async def test_close_ends_the_threads_and_later_use_fails(tmp_path: Path) -> None:
    """Each connection's thread ends with it; a closed database raises, it never hangs."""
    before = set(threading.enumerate())
    for _ in range(3):
        db = await Database.open(tmp_path / "spades.db")
        await apply_migrations(db)
        await db.execute(
            "INSERT INTO users(user_id, updated_at) VALUES (1, 0) ON CONFLICT DO NOTHING"
        )
        await db.close()
    async with asyncio.timeout(5):
        while set(threading.enumerate()) - before:
            await asyncio.sleep(0.01)
    with pytest.raises(sqlite3.ProgrammingError):
        await db.fetchone("SELECT 1")
    with pytest.raises(sqlite3.ProgrammingError):
        await db.execute("DELETE FROM users")


async def test_foreign_keys_enforced(db: Database) -> None:
    with pytest.raises(sqlite3.IntegrityError):
        await db.execute("INSERT INTO seats(table_id, seat, user_id) VALUES (999, 0, 1)")
