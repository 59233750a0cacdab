"""Migration 6: ``games.state_json`` was never written (a game is its seed and
its actions), so it goes where SQLite can drop a column."""

from __future__ import annotations

import logging
import sqlite3

from bot.storage.db import Conn

log = logging.getLogger(__name__)


async def _drop_state_json(conn: Conn) -> None:
    """SQLite learned ``DROP COLUMN`` in 3.35; an older one keeps the column,
    which is nullable and never read or written, so nothing depends on it."""
    if sqlite3.sqlite_version_info >= (3, 35, 0):
        await conn.execute("ALTER TABLE games DROP COLUMN state_json")
    else:
        log.info("SQLite %s cannot drop games.state_json; it stays unused", sqlite3.sqlite_version)


STEPS = (_drop_state_json,)
