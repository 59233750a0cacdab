"""Migration 5: The club — partners' record together, the afterword and its gestures
(Authority is the count of gestures received; it is derived, not stored)."""

STEPS = (
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
