"""Ordered schema migrations, recorded in ``PRAGMA user_version``.

Each migration is a module of its own here (``mNN_what.py``: its ``STEPS``,
SQL statements or functions of the transaction's ``conn``), listed in order
in :data:`MIGRATIONS`. Migration *n* (1-based) is applied in one transaction
that also sets ``user_version = n``, so a crash mid-migration leaves the
previous version intact and a restart simply applies what is missing. Never
edit a released migration: add a module and append it to the list.

The app applies them at its start, right after ``Database.open`` (which only
opens the database): :func:`apply_migrations`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from bot.storage.db import Conn, Database
from bot.storage.migrations import (
    m01_first,
    m02_looks_away,
    m03_deadlines_results,
    m04_paused,
    m05_club,
    m06_no_state_json,
    m07_inbox,
    m08_quiet,
    m09_group_tail,
    m10_hints,
    m11_chart_jobs,
    m12_started_at,
    m13_topics,
    m14_calls,
    m15_claims,
    m16_record_requests,
    m17_claim_time,
    m18_join_key,
    m19_day,
)

Step = str | Callable[[Conn], Awaitable[None]]

MIGRATIONS: list[Sequence[Step]] = [
    m01_first.STEPS,
    m02_looks_away.STEPS,
    m03_deadlines_results.STEPS,
    m04_paused.STEPS,
    m05_club.STEPS,
    m06_no_state_json.STEPS,
    m07_inbox.STEPS,
    m08_quiet.STEPS,
    m09_group_tail.STEPS,
    m10_hints.STEPS,
    m11_chart_jobs.STEPS,
    m12_started_at.STEPS,
    m13_topics.STEPS,
    m14_calls.STEPS,
    m15_claims.STEPS,
    m16_record_requests.STEPS,
    m17_claim_time.STEPS,
    m18_join_key.STEPS,
    m19_day.STEPS,
]


async def apply_migrations(db: Database, migrations: Sequence[Sequence[Step]] = MIGRATIONS) -> int:
    """Bring the schema up to ``len(migrations)``; returns the resulting version.

    The version is re-read inside each transaction, so two processes starting
    at once cannot apply the same migration twice.
    """
    target = len(migrations)
    for number, steps in enumerate(migrations, start=1):
        async with db.tx() as conn:
            row = await conn.fetchone("PRAGMA user_version")
            current = int(row[0]) if row else 0
            if current > target:
                raise RuntimeError(
                    f"database schema version {current} is newer than this code "
                    f"knows ({target}); refusing to run an older bot on it"
                )
            if current >= number:
                continue
            for step in steps:
                if isinstance(step, str):
                    await conn.execute(step)
                else:
                    await step(conn)
            await conn.execute(f"PRAGMA user_version = {number}")
    row = await db.fetchone("PRAGMA user_version")
    version = int(row[0]) if row else 0
    if version > target:
        raise RuntimeError(
            f"database schema version {version} is newer than this code knows ({target})"
        )
    return version
