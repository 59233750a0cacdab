"""Queries for users, tables, seats, games and actions.

Reads take the ``Database``; writes take the ``conn`` of the caller's
transaction so a move, its table update and its outgoing messages commit
together.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.storage.db import Conn, Database, defer, statement


@dataclass(slots=True)
class UserRow:
    user_id: int
    first_name: str
    username: str | None
    lang: str | None
    started: bool
    blocked: bool
    quiet: bool = False  # no "your turn" pings (/quiet)


@dataclass(slots=True)
class TableRow:
    table_id: int
    chat_id: int
    chat_title: str
    creator_id: int
    status: str
    rules_json: str
    players: int
    lang: str
    pace: int
    paused: bool
    hints: bool = False  # the table option «Подсказки»


@dataclass(slots=True)
class GameRow:
    game_id: int
    table_id: int
    seed: int
    rules_json: str
    first_dealer: int
    status: str
    winner: int | None


# SQLite integers are 64-bit; an id from a button or command beyond that range
# cannot name a row (and would make sqlite3 raise OverflowError).
_MIN_ID, _MAX_ID = -(2**63), 2**63 - 1


def storable(n: int) -> bool:
    """Whether ``n`` fits an SQLite INTEGER, i.e. could be the id of a row."""
    return _MIN_ID <= n <= _MAX_ID


async def _exec(conn: Conn, sql: str, args: Any = ()) -> None:
    """One write of the caller's transaction, sent along with its next trip."""
    await defer(conn, sql, args)


async def _insert(conn: Conn, sql: str, args: Any = ()) -> int:
    """An insert whose new row id the caller needs (one trip of its own)."""
    return (await statement(conn, sql, args))[0]


# ----------------------------------------------------------------- users
async def upsert_user(
    conn: Conn,
    user_id: int,
    first_name: str,
    username: str | None,
    lang: str | None,
    started: bool = False,
) -> None:
    """Remember a user's name; ``started`` marks that they wrote to the bot privately."""
    await _exec(
        conn,
        "INSERT INTO users(user_id, first_name, username, lang, started, blocked, updated_at)"
        " VALUES (?, ?, ?, ?, ?, 0, ?)"
        " ON CONFLICT(user_id) DO UPDATE SET first_name=excluded.first_name,"
        " username=excluded.username, lang=COALESCE(excluded.lang, users.lang),"
        " started=MAX(users.started, excluded.started),"
        " blocked=CASE WHEN excluded.started THEN 0 ELSE users.blocked END,"
        " updated_at=excluded.updated_at",
        (user_id, first_name or "", username, lang, int(started), time.time()),
    )


async def set_blocked(conn: Conn, user_id: int) -> None:
    await _exec(
        conn,
        "UPDATE users SET blocked=1, started=0, updated_at=? WHERE user_id=?",
        (time.time(), user_id),
    )


def _user(row: sqlite3.Row) -> UserRow:
    return UserRow(
        row["user_id"],
        row["first_name"],
        row["username"],
        row["lang"],
        bool(row["started"]),
        bool(row["blocked"]),
        bool(row["quiet"]),
    )


async def set_quiet(conn: Conn, user_id: int, quiet: bool) -> None:
    await _exec(
        conn,
        "UPDATE users SET quiet=?, updated_at=? WHERE user_id=?",
        (int(quiet), time.time(), user_id),
    )


async def get_user(db: Database, user_id: int) -> UserRow | None:
    row = await db.fetchone("SELECT * FROM users WHERE user_id=?", (user_id,))
    return _user(row) if row else None


async def get_users(db: Database, ids: list[int]) -> dict[int, UserRow]:
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    rows = await db.fetchall(f"SELECT * FROM users WHERE user_id IN ({marks})", ids)
    return {r["user_id"]: _user(r) for r in rows}


# ---------------------------------------------------------------- tables
def _table(row: sqlite3.Row) -> TableRow:
    return TableRow(
        row["table_id"],
        row["chat_id"],
        row["chat_title"],
        row["creator_id"],
        row["status"],
        row["rules_json"],
        row["players"],
        row["lang"],
        row["pace"],
        bool(row["paused"]),
        bool(row["hints"]),
    )


async def live_table(db: Database, chat_id: int) -> TableRow | None:
    row = await db.fetchone(
        "SELECT * FROM tables WHERE chat_id=? AND status IN ('open','playing')", (chat_id,)
    )
    return _table(row) if row else None


async def get_table(db: Database, table_id: int) -> TableRow | None:
    if not storable(table_id):
        return None
    row = await db.fetchone("SELECT * FROM tables WHERE table_id=?", (table_id,))
    return _table(row) if row else None


async def tables_with_status(db: Database, status: str) -> list[TableRow]:
    rows = await db.fetchall("SELECT * FROM tables WHERE status=? ORDER BY table_id", (status,))
    return [_table(r) for r in rows]


async def live_tables_of_user(db: Database, user_id: int) -> list[TableRow]:
    rows = await db.fetchall(
        "SELECT t.* FROM tables t JOIN seats s ON s.table_id=t.table_id"
        " WHERE s.user_id=? AND t.status IN ('open','playing') ORDER BY t.table_id",
        (user_id,),
    )
    return [_table(r) for r in rows]


async def create_table(
    conn: Conn,
    chat_id: int,
    title: str,
    creator_id: int,
    rules_json: str,
    players: int,
    lang: str,
) -> int:
    now = time.time()
    table_id = await _insert(
        conn,
        "INSERT INTO tables(chat_id, chat_title, creator_id, status, rules_json, players, lang,"
        " created_at, updated_at) VALUES (?, ?, ?, 'open', ?, ?, ?, ?, ?)",
        (chat_id, title, creator_id, rules_json, players, lang, now, now),
    )
    for seat in range(players):
        await _exec(conn, "INSERT INTO seats(table_id, seat) VALUES (?, ?)", (table_id, seat))
    return table_id


async def update_table(conn: Conn, table_id: int, **fields: Any) -> None:
    cols = ", ".join(f"{k}=?" for k in fields)
    await _exec(
        conn,
        f"UPDATE tables SET {cols}, updated_at=? WHERE table_id=?",
        (*fields.values(), time.time(), table_id),
    )


async def move_tables_to_chat(conn: Conn, old: int, new: int) -> None:
    """A group became a supergroup: its tables (live and finished) follow it.

    OR IGNORE: should the new chat already have a live table, both stay intact.
    """
    await _exec(
        conn,
        "UPDATE OR IGNORE tables SET chat_id=?, updated_at=? WHERE chat_id=?",
        (new, time.time(), old),
    )


async def resize_seats(conn: Conn, table_id: int, players: int) -> None:
    """Seat count follows the rules' player count; people beyond it stand up."""
    await _exec(conn, "DELETE FROM seats WHERE table_id=? AND seat>=?", (table_id, players))
    for seat in range(players):
        await _exec(
            conn,
            "INSERT OR IGNORE INTO seats(table_id, seat) VALUES (?, ?)",
            (table_id, seat),
        )


async def get_seats(db: Database, table_id: int) -> list[int | None]:
    rows = await db.fetchall(
        "SELECT seat, user_id FROM seats WHERE table_id=? ORDER BY seat", (table_id,)
    )
    return [r["user_id"] for r in rows]


async def get_away(db: Database, table_id: int) -> set[int]:
    rows = await db.fetchall("SELECT seat FROM seats WHERE table_id=? AND away=1", (table_id,))
    return {r["seat"] for r in rows}


async def set_away(conn: Conn, table_id: int, seat: int, away: bool) -> None:
    await _exec(
        conn, "UPDATE seats SET away=? WHERE table_id=? AND seat=?", (int(away), table_id, seat)
    )


async def get_timeouts(db: Database, table_id: int) -> dict[int, int]:
    rows = await db.fetchall(
        "SELECT seat, timeouts FROM seats WHERE table_id=? AND timeouts>0", (table_id,)
    )
    return {r["seat"]: r["timeouts"] for r in rows}


async def set_timeouts(conn: Conn, table_id: int, seat: int, n: int) -> None:
    await _exec(
        conn, "UPDATE seats SET timeouts=? WHERE table_id=? AND seat=?", (n, table_id, seat)
    )


async def set_seat(conn: Conn, table_id: int, seat: int, user_id: int | None) -> None:
    await _exec(
        conn, "UPDATE seats SET user_id=? WHERE table_id=? AND seat=?", (user_id, table_id, seat)
    )


# ----------------------------------------------------------------- games
def _game(row: sqlite3.Row) -> GameRow:
    return GameRow(
        row["game_id"],
        row["table_id"],
        row["seed"],
        row["rules_json"],
        row["first_dealer"],
        row["status"],
        row["winner"],
    )


async def create_game(
    conn: Conn, table_id: int, seed: int, rules_json: str, first_dealer: int
) -> int:
    return await _insert(
        conn,
        "INSERT INTO games(table_id, seed, rules_json, first_dealer, status, started_at)"
        " VALUES (?, ?, ?, ?, 'playing', ?)",
        (table_id, seed, rules_json, first_dealer, time.time()),
    )


async def last_game(db: Database, table_id: int) -> GameRow | None:
    row = await db.fetchone(
        "SELECT * FROM games WHERE table_id=? ORDER BY game_id DESC LIMIT 1", (table_id,)
    )
    return _game(row) if row else None


async def game_actions(db: Database, game_id: int) -> list[int]:
    rows = await db.fetchall("SELECT action FROM actions WHERE game_id=? ORDER BY seq", (game_id,))
    return [r["action"] for r in rows]


async def append_action(
    conn: Conn,
    game_id: int,
    seq: int,
    seat: int,
    action: int,
    by_user: int | None,
) -> None:
    """The event log is the truth: (game_id, seq) is the primary key, so a
    second writer of the same move number fails instead of forking the game."""
    await _exec(
        conn,
        "INSERT INTO actions(game_id, seq, seat, action, by_user, at) VALUES (?, ?, ?, ?, ?, ?)",
        (game_id, seq, seat, action, by_user, time.time()),
    )
    await _exec(conn, "UPDATE games SET seq=? WHERE game_id=?", (seq + 1, game_id))


async def end_game(
    conn: Conn,
    game_id: int,
    status: str,
    winner: int | None,
    totals_json: str | None = None,
) -> None:
    await _exec(
        conn,
        "UPDATE games SET status=?, winner=?, finished_at=?, totals_json=? WHERE game_id=?",
        (status, winner, time.time(), totals_json, game_id),
    )
    await _exec(conn, "DELETE FROM deadlines WHERE game_id=?", (game_id,))


# ----------------------------------------------------------------- looks
async def looked_seats(db: Database, game_id: int, hand_no: int) -> set[int]:
    """Seats that opened their cards this hand: they can no longer bid blind nil."""
    rows = await db.fetchall(
        "SELECT seat FROM looks WHERE game_id=? AND hand_no=?", (game_id, hand_no)
    )
    return {r["seat"] for r in rows}


async def add_look(conn: Conn, game_id: int, hand_no: int, seat: int) -> None:
    await _exec(
        conn,
        "INSERT OR IGNORE INTO looks(game_id, hand_no, seat) VALUES (?, ?, ?)",
        (game_id, hand_no, seat),
    )


# ------------------------------------------------------------- deadlines
@dataclass(slots=True)
class Deadline:
    game_id: int
    seq: int
    seat: int
    due_at: float
    remind_at: float | None
    reminders: int


async def set_deadline(
    conn: Conn,
    game_id: int,
    seq: int,
    seat: int,
    due_at: float,
    remind_at: float | None,
) -> None:
    await _exec(
        conn,
        "INSERT INTO deadlines(game_id, seq, seat, due_at, remind_at, reminders)"
        " VALUES (?, ?, ?, ?, ?, 0) ON CONFLICT(game_id) DO UPDATE SET seq=excluded.seq,"
        " seat=excluded.seat, due_at=excluded.due_at, remind_at=excluded.remind_at, reminders=0",
        (game_id, seq, seat, due_at, remind_at),
    )


async def clear_deadline(conn: Conn, game_id: int) -> None:
    await _exec(conn, "DELETE FROM deadlines WHERE game_id=?", (game_id,))


async def get_deadline(db: Database, game_id: int) -> Deadline | None:
    row = await db.fetchone("SELECT * FROM deadlines WHERE game_id=?", (game_id,))
    return _deadline(row) if row else None


def _deadline(row: sqlite3.Row) -> Deadline:
    return Deadline(
        row["game_id"], row["seq"], row["seat"], row["due_at"], row["remind_at"], row["reminders"]
    )


async def next_deadline(db: Database) -> Deadline | None:
    """The deadline or reminder that comes first."""
    row = await db.fetchone(
        "SELECT * FROM deadlines ORDER BY MIN(due_at, COALESCE(remind_at, due_at)) LIMIT 1"
    )
    return _deadline(row) if row else None


async def reminder_sent(conn: Conn, game_id: int, reminders: int, remind_at: float | None) -> None:
    await _exec(
        conn,
        "UPDATE deadlines SET reminders=?, remind_at=? WHERE game_id=?",
        (reminders, remind_at, game_id),
    )


async def shift_deadlines(conn: Conn, seconds: float) -> None:
    """Downtime of the bot is not the players' time: every deadline moves."""
    await _exec(
        conn,
        "UPDATE deadlines SET due_at=due_at+?, remind_at=remind_at+? ",
        (seconds, seconds),
    )


async def get_meta(db: Database, key: str) -> str | None:
    row = await db.fetchone("SELECT value FROM meta WHERE key=?", (key,))
    return row["value"] if row else None


async def set_meta(conn: Conn, key: str, value: str) -> None:
    await _exec(
        conn,
        "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
        (key, value),
    )


# --------------------------------------------------------------- results
async def save_results(
    conn: Conn,
    game_id: int,
    rows: Sequence[tuple[int, int | None, bool, int, int, int, int, int]],
) -> None:
    """Per seat: (seat, user, won, hands, contracts bid, made, nils bid, made)."""
    for seat, user_id, won, hands, cb, cm, nb, nm in rows:
        await _exec(
            conn,
            "INSERT OR REPLACE INTO results(game_id, seat, user_id, won, hands, contracts_bid,"
            " contracts_made, nils_bid, nils_made) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (game_id, seat, user_id, int(won), hands, cb, cm, nb, nm),
        )


async def finished_games(db: Database, chat_id: int, limit: int = 5) -> list[sqlite3.Row]:
    return await db.fetchall(
        "SELECT g.game_id, g.table_id, g.winner, g.totals_json, g.finished_at, g.rules_json"
        " FROM games g JOIN tables t ON t.table_id=g.table_id"
        " WHERE t.chat_id=? AND g.status='finished' ORDER BY g.game_id DESC LIMIT ?",
        (chat_id, limit),
    )


async def user_stats(db: Database, user_id: int) -> sqlite3.Row | None:
    return await db.fetchone(
        "SELECT COUNT(*) AS games, COALESCE(SUM(won),0) AS wins, COALESCE(SUM(hands),0) AS hands,"
        " COALESCE(SUM(contracts_bid),0) AS contracts_bid,"
        " COALESCE(SUM(contracts_made),0) AS contracts_made,"
        " COALESCE(SUM(nils_bid),0) AS nils_bid, COALESCE(SUM(nils_made),0) AS nils_made"
        " FROM results WHERE user_id=?",
        (user_id,),
    )


async def latest_table(db: Database, chat_id: int) -> TableRow | None:
    """The live table of a chat, else the most recent one (finished games stay readable)."""
    row = await db.fetchone(
        "SELECT * FROM tables WHERE chat_id=? AND status IN ('open','playing','finished')"
        " ORDER BY (status IN ('open','playing')) DESC, table_id DESC LIMIT 1",
        (chat_id,),
    )
    return _table(row) if row else None


async def game_table(db: Database, game_id: int) -> int | None:
    if not storable(game_id):
        return None
    row = await db.fetchone("SELECT table_id FROM games WHERE game_id=?", (game_id,))
    return row["table_id"] if row else None


# ------------------------------------------------------------------ club
def pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


async def add_partner_game(conn: Conn, a: int, b: int, won: bool, now: float) -> bool:
    """Count a finished game together; True when this one made them permanent."""
    x, y = pair(a, b)
    await _exec(
        conn,
        "INSERT INTO partners(a, b, games, wins) VALUES (?, ?, 1, ?)"
        " ON CONFLICT(a, b) DO UPDATE SET games=games+1, wins=wins+excluded.wins",
        (x, y, int(won)),
    )
    row = await conn.fetchone(
        "SELECT games, permanent_since FROM partners WHERE a=? AND b=?", (x, y)
    )
    if row is not None and row[0] >= 3 and row[1] is None:
        await _exec(conn, "UPDATE partners SET permanent_since=? WHERE a=? AND b=?", (now, x, y))
        return True
    return False


async def permanent_partners(db: Database, user_id: int) -> list[sqlite3.Row]:
    return await db.fetchall(
        "SELECT CASE WHEN a=? THEN b ELSE a END AS partner, games, wins, permanent_since"
        " FROM partners WHERE (a=? OR b=?) AND permanent_since IS NOT NULL"
        " ORDER BY games DESC",
        (user_id, user_id, user_id),
    )


async def open_afterword(
    conn: Conn, game_id: int, table_id: int, chat_id: int, closes_at: float
) -> None:
    await _exec(
        conn,
        "INSERT OR IGNORE INTO afterwords(game_id, table_id, chat_id, closes_at)"
        " VALUES (?, ?, ?, ?)",
        (game_id, table_id, chat_id, closes_at),
    )


async def get_afterword(db: Database, game_id: int) -> sqlite3.Row | None:
    if not storable(game_id):
        return None
    return await db.fetchone("SELECT * FROM afterwords WHERE game_id=?", (game_id,))


async def open_afterwords_of(db: Database, user_id: int) -> list[tuple[int, int]]:
    """(game, table) of the open afterwords at tables where the user sits."""
    rows = await db.fetchall(
        "SELECT a.game_id, a.table_id FROM afterwords a JOIN seats s ON s.table_id=a.table_id"
        " WHERE a.closed=0 AND s.user_id=?",
        (user_id,),
    )
    return [(r[0], r[1]) for r in rows]


async def next_afterword_close(db: Database) -> sqlite3.Row | None:
    return await db.fetchone("SELECT * FROM afterwords WHERE closed=0 ORDER BY closes_at LIMIT 1")


async def close_afterword(conn: Conn, game_id: int) -> None:
    await _exec(conn, "UPDATE afterwords SET closed=1 WHERE game_id=?", (game_id,))


async def add_gesture(
    conn: Conn, game_id: int, from_user: int, to_user: int, kind: str, at: float
) -> bool:
    """False when this gesture was already sent (once per game, per pair, per kind)."""
    added = await conn.execute(
        "INSERT OR IGNORE INTO gestures(game_id, from_user, to_user, kind, at)"
        " VALUES (?, ?, ?, ?, ?)",
        (game_id, from_user, to_user, kind, at),
    )
    return added == 1


async def gestures_of_game(db: Database, game_id: int) -> list[sqlite3.Row]:
    return await db.fetchall(
        "SELECT from_user, to_user, kind FROM gestures WHERE game_id=? ORDER BY id", (game_id,)
    )


async def authority(db: Database, user_ids: list[int]) -> dict[int, int]:
    """Gestures received: a warm afterword is the only way Authority grows."""
    if not user_ids:
        return {}
    marks = ",".join("?" * len(user_ids))
    rows = await db.fetchall(
        f"SELECT to_user, COUNT(*) AS n FROM gestures WHERE to_user IN ({marks}) GROUP BY to_user",
        user_ids,
    )
    return {r["to_user"]: r["n"] for r in rows}


async def chat_members_by_authority(
    db: Database, chat_id: int, limit: int = 20
) -> list[sqlite3.Row]:
    """Everyone who has sat at a table of this group, by Authority."""
    return await db.fetchall(
        "SELECT u.user_id, u.first_name,"
        " (SELECT COUNT(*) FROM gestures g WHERE g.to_user=u.user_id) AS authority"
        " FROM users u WHERE u.user_id IN ("
        "  SELECT s.user_id FROM seats s JOIN tables t ON t.table_id=s.table_id"
        "  WHERE t.chat_id=? AND s.user_id IS NOT NULL)"
        " ORDER BY authority DESC, u.first_name LIMIT ?",
        (chat_id, limit),
    )


_FORGET_USER = (
    "DELETE FROM users WHERE user_id=?",
    "UPDATE results SET user_id=NULL WHERE user_id=?",
    "UPDATE seats SET user_id=NULL, away=0, timeouts=0 WHERE user_id=?",
    "UPDATE actions SET by_user=NULL WHERE by_user=?",
    "UPDATE tables SET creator_id=0 WHERE creator_id=?",
    "DELETE FROM partners WHERE a=? OR b=?",
    "DELETE FROM gestures WHERE to_user=?",
    "UPDATE OR IGNORE gestures SET from_user=NULL WHERE from_user=?",
    "DELETE FROM outbox WHERE chat_id=?",
    "DELETE FROM messages WHERE chat_id=?",
)


def erase_user(raw: sqlite3.Connection, user_id: int, forms: list[str], replacement: str) -> None:
    """Erase a person (``db.run_tx``): their rows go, finished games keep
    results without them, and no queued or kept message text names them.

    Messages already sent are kept only for diagnosis: they all go (a name
    may be cut anywhere in them, with a partner's name before it). Those
    still to be sent go out with ``replacement`` in place of each of
    ``forms`` (every way a text may hold the person, longest first).
    Payloads are JSON, so a name with ``"`` or ``\\`` is stored escaped: each
    form is looked for as JSON writes it, and replaced in the decoded text.
    """
    for sql in _FORGET_USER:
        raw.execute(sql, (user_id,) * sql.count("?"))
    raw.execute("DELETE FROM outbox WHERE status != 'pending'")
    ids: set[int] = set()
    for form in forms:
        encoded = json.dumps(form, ensure_ascii=False)[1:-1]
        ids.update(
            r[0]
            for r in raw.execute("SELECT id FROM outbox WHERE instr(payload, ?) > 0", (encoded,))
        )
    for row_id in sorted(ids):
        (payload,) = raw.execute("SELECT payload FROM outbox WHERE id=?", (row_id,)).fetchone()
        data = _without(json.loads(payload), forms, replacement)
        raw.execute(
            "UPDATE outbox SET payload=? WHERE id=?",
            (json.dumps(data, ensure_ascii=False, separators=(",", ":")), row_id),
        )


def _without(value: Any, forms: list[str], replacement: str) -> Any:
    """A decoded payload with the forms replaced in every ``text`` (the
    message's and each button's); button data and the rest stay as they are."""
    if isinstance(value, list):
        return [_without(v, forms, replacement) for v in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, v in value.items():
        if key == "text" and isinstance(v, str):
            for form in forms:
                v = v.replace(form, replacement)
            out[key] = v
        else:
            out[key] = _without(v, forms, replacement)
    return out


# ------------------------------------------------------- the group's tail
async def group_tail(db: Database, chat_id: int) -> int | None:
    """The newest message the bot sent in this group, as far as it knows."""
    row = await db.fetchone("SELECT message_id FROM group_tail WHERE chat_id=?", (chat_id,))
    return int(row[0]) if row else None


async def message_of(db: Database, key: str) -> int | None:
    """The message id remembered under an outbox key."""
    row = await db.fetchone("SELECT message_id FROM messages WHERE key=?", (key,))
    return int(row[0]) if row else None


async def add_expiring(conn: Conn, key: str, chat_id: int, delete_at: float) -> None:
    await _exec(
        conn,
        "INSERT OR REPLACE INTO expiring(key, chat_id, delete_at) VALUES (?, ?, ?)",
        (key, chat_id, delete_at),
    )


async def due_expiring(db: Database, now: float, limit: int = 100) -> list[tuple[str, int]]:
    rows = await db.fetchall(
        "SELECT key, chat_id FROM expiring WHERE delete_at <= ? ORDER BY delete_at LIMIT ?",
        (now, limit),
    )
    return [(str(r[0]), int(r[1])) for r in rows]


async def next_expiring(db: Database) -> float | None:
    row = await db.fetchone("SELECT MIN(delete_at) FROM expiring")
    return float(row[0]) if row and row[0] is not None else None


async def drop_expiring(conn: Conn, keys: list[str]) -> None:
    for key in keys:
        await _exec(conn, "DELETE FROM expiring WHERE key=?", (key,))


# ------------------------------------------------------------- teaching
async def add_hint_use(conn: Conn, game_id: int, seat: int, seq: int) -> bool:
    """Count a hint shown to ``seat`` at move ``seq``; False when that one was
    counted already (the same 💡 pressed again)."""
    added = await conn.execute(
        "INSERT OR IGNORE INTO hint_uses(game_id, seat, seq) VALUES (?, ?, ?)",
        (game_id, seat, seq),
    )
    return added == 1


async def hint_counts(db: Database, game_id: int) -> dict[int, int]:
    """Hints shown per seat in a game."""
    rows = await db.fetchall(
        "SELECT seat, COUNT(*) AS n FROM hint_uses WHERE game_id=? GROUP BY seat", (game_id,)
    )
    return {r["seat"]: r["n"] for r in rows}


@dataclass(slots=True)
class ReviewCandidate:
    """A game at a table where the user sits, newest activity first."""

    game: GameRow
    seat: int


async def review_candidates(db: Database, user_id: int, limit: int = 3) -> list[ReviewCandidate]:
    """Games at the tables the user sits at (finished ones keep their seats),
    the most recently moved in first."""
    rows = await db.fetchall(
        "SELECT g.*, s.seat AS my_seat,"
        " (SELECT MAX(at) FROM actions a WHERE a.game_id=g.game_id) AS last_at"
        " FROM seats s JOIN games g ON g.table_id=s.table_id"
        " WHERE s.user_id=? ORDER BY last_at IS NULL, last_at DESC, g.game_id DESC LIMIT ?",
        (user_id, limit),
    )
    return [ReviewCandidate(_game(r), int(r["my_seat"])) for r in rows]


@dataclass(slots=True)
class ActionRow:
    seat: int
    action: int
    by_user: int | None
    at: float


async def game_action_rows(db: Database, game_id: int) -> list[ActionRow]:
    """The whole action log of a game, with who made each move and when."""
    rows = await db.fetchall(
        "SELECT seat, action, by_user, at FROM actions WHERE game_id=? ORDER BY seq", (game_id,)
    )
    return [ActionRow(r["seat"], r["action"], r["by_user"], r["at"]) for r in rows]


# ---------------------------------------------------------------- charts
async def add_chart_job(conn: Conn, game_id: int, chat_id: int) -> None:
    await _exec(
        conn,
        "INSERT OR IGNORE INTO chart_jobs(game_id, chat_id, created_at) VALUES (?, ?, ?)",
        (game_id, chat_id, time.time()),
    )


async def chart_jobs(db: Database) -> list[tuple[int, int]]:
    rows = await db.fetchall("SELECT game_id, chat_id FROM chart_jobs ORDER BY created_at")
    return [(int(r[0]), int(r[1])) for r in rows]


async def drop_chart_job(conn: Conn, game_id: int) -> None:
    await _exec(conn, "DELETE FROM chart_jobs WHERE game_id=?", (game_id,))
