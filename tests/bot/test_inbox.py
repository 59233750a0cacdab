"""The inbox of long polling: pruning handled updates a chunk at a time, so
no transaction makes every table's moves wait (bot/storage/inbox.py)."""

from __future__ import annotations

import sqlite3
import time

import pytest
from fake_telegram import FakeTelegram
from harness import MakeBot, count

from bot import polling
from bot.polling import prune_inbox
from bot.storage import Database, Statements, inbox


async def fill(db: Database, old: int, recent: int, unhandled: int) -> None:
    """Updates handled long ago, handled just now, and not handled yet."""
    now = time.time()
    rows = [(i, "{}") for i in range(old + recent + unhandled)]
    await db.run_tx(inbox.store, rows)
    await db.run_tx(inbox.done, list(range(old + recent)))

    async def age(st: Statements, ids: list[int]) -> None:
        await st.executemany(
            "UPDATE inbox SET done_at = ? WHERE update_id = ?",
            [(now - inbox.KEEP_DONE - 60, i) for i in ids],
        )

    await db.run_tx(age, list(range(old)))


async def kept(db: Database) -> list[int]:
    return sorted(await db.run(inbox.kept_ids))


async def test_one_prune_deletes_one_chunk_of_the_oldest_handled(db: Database) -> None:
    await fill(db, old=30, recent=5, unhandled=3)
    assert await db.run_tx(inbox.prune, None, 20) == 20
    assert await kept(db) == list(range(20, 38))
    assert await db.run_tx(inbox.prune, None, 20) == 10
    assert await db.run_tx(inbox.prune, None, 20) == 0
    assert await kept(db) == list(range(30, 38))  # the recent and the unhandled stay


async def test_pruning_the_inbox_takes_every_old_row_in_chunks(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(inbox, "PRUNE_CHUNK", 7)
    chunks: list[int] = []
    real = inbox.prune

    async def counted(st, now=None, limit=inbox.PRUNE_CHUNK):  # type: ignore[no-untyped-def]
        n = await real(st, now, limit)
        chunks.append(n)
        return n

    monkeypatch.setattr(inbox, "prune", counted)
    await fill(db, old=30, recent=4, unhandled=2)
    assert await prune_inbox(db) == 30
    assert max(chunks) <= 7 and len(chunks) == 5  # 7 + 7 + 7 + 7 + 2
    assert await kept(db) == list(range(30, 36))


async def test_the_poller_prunes_the_inbox_beside_its_polling(
    fake: FakeTelegram, tmp_path, monkeypatch: pytest.MonkeyPatch, make_bot: MakeBot
) -> None:
    """Every PRUNE_EVERY the running bot forgets the old handled updates, in
    chunks, and goes on answering meanwhile."""
    monkeypatch.setattr(polling, "PRUNE_EVERY", 0.5)
    monkeypatch.setattr(inbox, "PRUNE_CHUNK", 10)
    path = tmp_path / "spades.db"
    await make_bot()
    long_ago = time.time() - inbox.KEEP_DONE - 60
    con = sqlite3.connect(path, timeout=10)
    try:
        with con:
            con.executemany(
                "INSERT INTO inbox(update_id, body, received_at, done_at) VALUES (?, '', ?, ?)",
                [(10**9 + i, long_ago, long_ago) for i in range(35)],
            )
    finally:
        con.close()

    anna = fake.add_user(341, "Анна")
    await fake.start_bot(anna)  # ends the long poll: the loop comes round to pruning
    await fake.wait_for(
        lambda: count(path, "SELECT COUNT(*) FROM inbox WHERE update_id >= ?", 10**9) == 0,
        timeout=30,
    )
    await fake.wait_for(lambda: fake.last_message(anna.id) is not None, timeout=30)
