"""Ordered schema migrations, recorded in ``PRAGMA user_version``.

Migration *n* (1-based) is applied in one transaction that also sets
``user_version = n``, so a crash mid-migration leaves the previous version
intact and a restart simply applies what is missing. Never edit a released
migration: append a new one.

The app applies them at its start, right after ``Database.open`` (which only
opens the database): :func:`apply_migrations`.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Awaitable, Callable, Sequence

from bot.storage.db import Conn, Database

log = logging.getLogger(__name__)

Step = str | Callable[[Conn], Awaitable[None]]

_M1: tuple[Step, ...] = (
    """
    CREATE TABLE users(
        user_id INTEGER PRIMARY KEY,
        first_name TEXT NOT NULL DEFAULT '',
        username TEXT,
        lang TEXT,
        started INTEGER NOT NULL DEFAULT 0,  -- pressed Start in the private chat
        blocked INTEGER NOT NULL DEFAULT 0,  -- Telegram answered 403 for their private chat
        updated_at REAL NOT NULL)
    """,
    """
    CREATE TABLE tables(
        table_id INTEGER PRIMARY KEY AUTOINCREMENT,
        chat_id INTEGER NOT NULL,
        chat_title TEXT NOT NULL DEFAULT '',
        creator_id INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('open', 'playing', 'finished', 'cancelled')),
        rules_json TEXT NOT NULL,
        players INTEGER NOT NULL DEFAULT 4,
        lang TEXT NOT NULL DEFAULT 'ru',
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL)
    """,
    """
    CREATE UNIQUE INDEX one_live_table_per_chat ON tables(chat_id)
        WHERE status IN ('open', 'playing')
    """,
    "CREATE INDEX tables_by_chat ON tables(chat_id)",
    """
    CREATE TABLE seats(
        table_id INTEGER NOT NULL REFERENCES tables(table_id),
        seat INTEGER NOT NULL,
        user_id INTEGER,  -- NULL: the computer
        PRIMARY KEY(table_id, seat))
    """,
    """
    CREATE UNIQUE INDEX one_seat_per_user ON seats(table_id, user_id)
        WHERE user_id IS NOT NULL
    """,
    "CREATE INDEX seats_by_user ON seats(user_id) WHERE user_id IS NOT NULL",
    """
    CREATE TABLE games(
        game_id INTEGER PRIMARY KEY AUTOINCREMENT,
        table_id INTEGER NOT NULL REFERENCES tables(table_id),
        seed INTEGER NOT NULL,
        rules_json TEXT NOT NULL,
        first_dealer INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('playing', 'finished', 'cancelled')),
        seq INTEGER NOT NULL DEFAULT 0,
        state_json TEXT,
        winner INTEGER,
        started_at REAL NOT NULL,
        finished_at REAL)
    """,
    "CREATE INDEX games_by_table ON games(table_id)",
    """
    CREATE UNIQUE INDEX one_live_game_per_table ON games(table_id)
        WHERE status = 'playing'
    """,
    """
    CREATE TABLE actions(
        game_id INTEGER NOT NULL REFERENCES games(game_id),
        seq INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        action INTEGER NOT NULL,
        by_user INTEGER,
        at REAL NOT NULL,
        PRIMARY KEY(game_id, seq))
    """,
    """
    CREATE TABLE messages(
        key TEXT PRIMARY KEY,
        chat_id INTEGER NOT NULL,
        message_id INTEGER NOT NULL)
    """,
    "CREATE INDEX messages_by_chat ON messages(chat_id)",
    """
    CREATE TABLE outbox(
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        chat_id INTEGER NOT NULL,
        op TEXT NOT NULL CHECK (op IN ('put', 'send', 'delete')),
        key TEXT CHECK (op = 'send' OR key IS NOT NULL),
        payload TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending'
            CHECK (status IN ('pending', 'sent', 'superseded', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        not_before REAL NOT NULL DEFAULT 0,
        created_at REAL NOT NULL,
        error TEXT)
    """,
    # The sender's hot queries: the pending rows of one chat in id order.
    "CREATE INDEX outbox_pending ON outbox(chat_id, id) WHERE status = 'pending'",
    # Pruning old sent rows by age.
    "CREATE INDEX outbox_by_created ON outbox(created_at)",
)

# 2: who opened their cards this hand (blind nil given up), and seats whose
# owner left the game to the computer.
_M2: tuple[Step, ...] = (
    """
    CREATE TABLE looks(
        game_id INTEGER NOT NULL REFERENCES games(game_id),
        hand_no INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        PRIMARY KEY(game_id, hand_no, seat))
    """,
    "ALTER TABLE seats ADD COLUMN away INTEGER NOT NULL DEFAULT 0",
)

# 3: pace and deadlines (daily games), timeouts in a row per seat, the last
# heartbeat (so downtime is not charged to players), per-seat game results.
_M3: tuple[Step, ...] = (
    "ALTER TABLE tables ADD COLUMN pace INTEGER NOT NULL DEFAULT 60",
    "ALTER TABLE seats ADD COLUMN timeouts INTEGER NOT NULL DEFAULT 0",
    """
    CREATE TABLE deadlines(
        game_id INTEGER PRIMARY KEY REFERENCES games(game_id),
        seq INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        due_at REAL NOT NULL,
        remind_at REAL,
        reminders INTEGER NOT NULL DEFAULT 0)
    """,
    "CREATE INDEX deadlines_due ON deadlines(due_at)",
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "ALTER TABLE games ADD COLUMN totals_json TEXT",
    """
    CREATE TABLE results(
        game_id INTEGER NOT NULL REFERENCES games(game_id),
        seat INTEGER NOT NULL,
        user_id INTEGER,
        won INTEGER NOT NULL,
        hands INTEGER NOT NULL,
        contracts_bid INTEGER NOT NULL,
        contracts_made INTEGER NOT NULL,
        nils_bid INTEGER NOT NULL,
        nils_made INTEGER NOT NULL,
        PRIMARY KEY(game_id, seat))
    """,
    "CREATE INDEX results_by_user ON results(user_id) WHERE user_id IS NOT NULL",
)

# 4: a table whose group removed the bot is paused (its game kept) until the
# bot is added back.
_M4: tuple[Step, ...] = ("ALTER TABLE tables ADD COLUMN paused INTEGER NOT NULL DEFAULT 0",)

# 5: the club — partners' record together, the afterword and its gestures
# (Authority is the count of gestures received; it is derived, not stored).
_M5: tuple[Step, ...] = (
    """
    CREATE TABLE partners(
        a INTEGER NOT NULL,
        b INTEGER NOT NULL,  -- a < b
        games INTEGER NOT NULL DEFAULT 0,
        wins INTEGER NOT NULL DEFAULT 0,
        permanent_since REAL,
        PRIMARY KEY(a, b))
    """,
    "CREATE INDEX partners_b ON partners(b)",
    """
    CREATE TABLE afterwords(
        game_id INTEGER PRIMARY KEY REFERENCES games(game_id),
        table_id INTEGER NOT NULL,
        chat_id INTEGER NOT NULL,
        closes_at REAL NOT NULL,
        closed INTEGER NOT NULL DEFAULT 0)
    """,
    "CREATE INDEX afterwords_open ON afterwords(closes_at) WHERE closed = 0",
    """
    CREATE TABLE gestures(
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        game_id INTEGER NOT NULL REFERENCES games(game_id),
        from_user INTEGER,  -- NULL once the sender asked to be forgotten
        to_user INTEGER NOT NULL,
        kind TEXT NOT NULL,
        at REAL NOT NULL,
        UNIQUE(game_id, from_user, to_user, kind))
    """,
    "CREATE INDEX gestures_to ON gestures(to_user)",
)


async def _drop_state_json(conn: Conn) -> None:
    """SQLite learned ``DROP COLUMN`` in 3.35; an older one keeps the column,
    which is nullable and never read or written, so nothing depends on it."""
    if sqlite3.sqlite_version_info >= (3, 35, 0):
        await conn.execute("ALTER TABLE games DROP COLUMN state_json")
    else:
        log.info("SQLite %s cannot drop games.state_json; it stays unused", sqlite3.sqlite_version)


# 6: games.state_json was never written (a game is its seed and its actions).
_M6: tuple[Step, ...] = (_drop_state_json,)

# 7: the inbox of long polling (bot/storage/inbox.py): an update is kept
# before Telegram is told it arrived, and marked done once handled.
_M7: tuple[Step, ...] = (
    """
    CREATE TABLE inbox(
        update_id INTEGER PRIMARY KEY,
        body TEXT NOT NULL,
        received_at REAL NOT NULL,
        done_at REAL)
    """,
    "CREATE INDEX inbox_unhandled ON inbox(update_id) WHERE done_at IS NULL",
    "CREATE INDEX inbox_done ON inbox(done_at) WHERE done_at IS NOT NULL",
)

# 8: /quiet: no "your turn" pings for this person.
_M8: tuple[Step, ...] = ("ALTER TABLE users ADD COLUMN quiet INTEGER NOT NULL DEFAULT 0",)

# 9: keeping the table message in view. ``group_tail``: the newest message
# the bot sent in each group (the outbox keeps it), so a table message with
# too much under it is posted anew; ``expiring``: group replies deleted later.
_M9: tuple[Step, ...] = (
    "CREATE TABLE group_tail(chat_id INTEGER PRIMARY KEY, message_id INTEGER NOT NULL)",
    """
    CREATE TABLE expiring(
        key TEXT PRIMARY KEY,
        chat_id INTEGER NOT NULL,
        delete_at REAL NOT NULL)
    """,
    "CREATE INDEX expiring_due ON expiring(delete_at)",
)

# 10: the table option «Подсказки» (a table setting, not a rule of the game),
# and each hint shown: one row per seat and move, so a second press of the
# same 💡 is not counted twice.
_M10: tuple[Step, ...] = (
    "ALTER TABLE tables ADD COLUMN hints INTEGER NOT NULL DEFAULT 0",
    """
    CREATE TABLE hint_uses(
        game_id INTEGER NOT NULL REFERENCES games(game_id),
        seat INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        PRIMARY KEY(game_id, seat, seq))
    """,
)

# 11: score charts still to draw and send (a game's end writes one; the
# chart service draws it in a worker and sends it, in one transaction).
_M11: tuple[Step, ...] = (
    """
    CREATE TABLE chart_jobs(
        game_id INTEGER PRIMARY KEY,
        chat_id INTEGER NOT NULL,
        created_at REAL NOT NULL)
    """,
)

# 12: when the user last pressed Start (time.time()): Telegram's refusal of a
# message sent before it is old news and does not mark them blocked again.
_M12: tuple[Step, ...] = ("ALTER TABLE users ADD COLUMN started_at REAL NOT NULL DEFAULT 0",)

# 13: forum topics: a table lives in one topic of a group (0: the group itself,
# or General), and each topic may hold a live table of its own. ``paused``
# now says why a game waits (bot.model.Pause; 1 was "the bot was removed").
_M13: tuple[Step, ...] = (
    "ALTER TABLE tables ADD COLUMN thread_id INTEGER NOT NULL DEFAULT 0",
    "DROP INDEX one_live_table_per_chat",
    """
    CREATE UNIQUE INDEX one_live_table_per_topic ON tables(chat_id, thread_id)
        WHERE status IN ('open', 'playing')
    """,
)

# Calls and rematches: who wants to be called when a table opens in a group
# (``last_called_at``: at most one call an hour), the computer's strength at
# each table ('': the bot's AI_LEVEL, for tables opened before it), and the
# finished table a table is the rematch of (the unique index: one rematch
# each, however many press).
_M_CALLS: tuple[Step, ...] = (
    """
    CREATE TABLE call_me(
        chat_id INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        last_called_at REAL,
        PRIMARY KEY(chat_id, user_id))
    """,
    "CREATE INDEX call_me_by_user ON call_me(user_id)",
    "ALTER TABLE tables ADD COLUMN ai_level TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE tables ADD COLUMN rematch_of INTEGER",
    """
    CREATE UNIQUE INDEX one_rematch_per_table ON tables(rematch_of)
        WHERE rematch_of IS NOT NULL
    """,
)

# Claims of the rest of a hand («Остальные мои»): one row per claim (the
# claimer's n-th of the hand, counted against the limit; ``seq`` is the move it
# was made at), and each acceptance of a claim the engine did not prove.
_M_CLAIMS: tuple[Step, ...] = (
    """
    CREATE TABLE claims(
        game_id INTEGER NOT NULL REFERENCES games(game_id),
        hand_no INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        n INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        voters TEXT NOT NULL,
        status TEXT NOT NULL
            CHECK (status IN ('vote', 'proved', 'accepted', 'refused', 'expired')),
        PRIMARY KEY(game_id, hand_no, seat, n))
    """,
    "CREATE INDEX claims_open ON claims(game_id) WHERE status = 'vote'",
    """
    CREATE TABLE claim_votes(
        game_id INTEGER NOT NULL,
        hand_no INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        n INTEGER NOT NULL,
        voter INTEGER NOT NULL,
        PRIMARY KEY(game_id, hand_no, seat, n, voter))
    """,
)

# A hand record sent to a person: a second press of the same button (a double
# tap, or the press handled again after a restart) does not send it twice.
_M_RECORD: tuple[Step, ...] = (
    """
    CREATE TABLE record_requests(
        user_id INTEGER NOT NULL,
        table_id INTEGER NOT NULL,
        hand_no INTEGER NOT NULL,
        sent_at REAL NOT NULL,
        PRIMARY KEY (user_id, table_id, hand_no))
    """,
)

# A claim's vote has its own deadline: the claimer's time left on the move
# when the claim was made is kept, given back when play goes on (NULL: none
# was running, or the claim predates this column: the move's time anew).
_M_CLAIM_TIME: tuple[Step, ...] = ("ALTER TABLE claims ADD COLUMN time_left REAL",)

# A table's join link carries a secret of its own (``join_<table>_<seat>_<key>``):
# a table number counts up and says nothing a stranger could not guess. The
# tables there already get theirs here (randomblob is drawn per row).
_M_JOIN_KEY: tuple[Step, ...] = (
    "ALTER TABLE tables ADD COLUMN join_key TEXT NOT NULL DEFAULT ''",
    "UPDATE tables SET join_key = lower(hex(randomblob(8)))",
)

MIGRATIONS: list[Sequence[Step]] = [
    _M1,
    _M2,
    _M3,
    _M4,
    _M5,
    _M6,
    _M7,
    _M8,
    _M9,
    _M10,
    _M11,
    _M12,
    _M13,
    _M_CALLS,
    _M_CLAIMS,
    _M_RECORD,
    _M_CLAIM_TIME,
    _M_JOIN_KEY,
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
