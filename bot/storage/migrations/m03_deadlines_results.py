"""Migration 3: Pace and deadlines (daily games), timeouts in a row per seat, the last
heartbeat (so downtime is not charged to players), per-seat game results."""

STEPS = (
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
