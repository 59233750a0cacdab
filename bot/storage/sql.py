"""What every module of queries uses: a write of the caller's transaction, an
insert's new row id, and whether a number can be a row's id at all."""

from __future__ import annotations

from typing import Any

from bot.storage.db import Conn, defer, statement

# SQLite integers are 64-bit; an id from a button or command beyond that range
# cannot name a row (and would make sqlite3 raise OverflowError).
_MIN_ID, _MAX_ID = -(2**63), 2**63 - 1


def storable(n: int) -> bool:
    """Whether ``n`` fits an SQLite INTEGER, i.e. could be the id of a row."""
    return _MIN_ID <= n <= _MAX_ID


async def execute(conn: Conn, sql: str, args: Any = ()) -> None:
    """One write of the caller's transaction whose outcome it does not read."""
    await defer(conn, sql, args)


async def insert(conn: Conn, sql: str, args: Any = ()) -> int:
    """An insert whose new row id the caller needs."""
    return (await statement(conn, sql, args))[0]
