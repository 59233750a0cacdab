"""One bot, one process: a second process on the same database refuses to start.

Two bots on one database both took updates and both answered them; the
database's lock file now lets only one of them run (the kernel drops the
lock when its process dies, ``kill -9`` included).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import textwrap
from pathlib import Path

from bot_processes import BotProcesses, exit_of
from fake_telegram import FakeTelegram
from harness import ROOT

from bot.storage import Database, DatabaseInUseError
from bot.storage.migrations import apply_migrations


async def test_a_second_open_of_the_same_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "spades.db"
    first = await Database.open(path)
    try:
        await apply_migrations(first)
        try:
            await Database.open(path)
        except DatabaseInUseError as e:
            assert e.holder == str(os.getpid())
            assert str(path) in str(e)
        else:
            raise AssertionError("a second open of the database was allowed")
        # The same file by other names.
        (tmp_path / "link.db").symlink_to(path)
        for other in (tmp_path / "link.db", tmp_path / ".." / tmp_path.name / "spades.db"):
            try:
                await Database.open(other)
            except DatabaseInUseError:
                pass
            else:
                raise AssertionError(f"{other} opened the database a second time")
        # The refusals left the first one as it was.
        assert await first.execute("INSERT INTO users(user_id, updated_at) VALUES (1, 0)") == 1
    finally:
        await first.close()
    again = await Database.open(path)  # closed: free to open
    try:
        row = await again.fetchone("SELECT count(*) FROM users")
        assert row is not None and row[0] == 1
    finally:
        await again.close()


async def test_in_memory_databases_take_no_lock() -> None:
    first = await Database.open(":memory:")
    second = await Database.open(":memory:")
    await second.close()
    await first.close()


async def test_the_lock_ends_with_a_killed_process(tmp_path: Path) -> None:
    path = tmp_path / "spades.db"
    code = textwrap.dedent(
        f"""
        import asyncio, sys, time
        sys.path.insert(0, {str(ROOT)!r})
        from bot.storage import Database

        async def main():
            await Database.open({str(path)!r})
            print("open", flush=True)
            time.sleep(60)

        asyncio.run(main())
        """
    )
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", code, stdout=asyncio.subprocess.PIPE
    )
    try:
        assert proc.stdout is not None
        assert (await asyncio.wait_for(proc.stdout.readline(), 30)).strip() == b"open"
        try:
            await Database.open(path)
        except DatabaseInUseError as e:
            assert e.holder == str(proc.pid)
        else:
            raise AssertionError("the database was opened while another process had it")
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        await proc.wait()
    db = await Database.open(path)
    await db.close()


async def test_a_second_bot_on_the_same_database_exits_2(
    fake: FakeTelegram, bot_process: BotProcesses, db_path: Path, tmp_path: Path
) -> None:
    db = db_path
    first = await bot_process()
    second = bot_process.spawn(db, tmp_path / "second.err")
    code = await exit_of(second, 60)  # killed if it still runs: no bot outlives its test
    err = (tmp_path / "second.err").read_text()
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "DATABASE_PATH" in lines[0] and str(db) in lines[0], err
    assert first.proc is not None and str(first.proc.pid) in lines[0], err

    # The first bot runs on and answers.
    assert first.proc.poll() is None
    anna = fake.add_user(601, "Анна")
    await fake.start_bot(anna)
    await fake.wait_for(lambda: fake.chat_messages(anna.id), timeout=30)
    log = first.stop()
    assert "Traceback" not in log, log
