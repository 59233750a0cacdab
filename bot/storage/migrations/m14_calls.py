"""Migration 14: Calls and rematches: who wants to be called when a table opens in a group
(``last_called_at``: at most one call an hour), the computer's strength at
each table ('': the bot's AI_LEVEL, for tables opened before it), and the
finished table a table is the rematch of (the unique index: one rematch
each, however many press)."""

STEPS = (
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
