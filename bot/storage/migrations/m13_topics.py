"""Migration 13: Forum topics: a table lives in one topic of a group (0: the group itself,
or General), and each topic may hold a live table of its own. ``paused``
now says why a game waits (bot.model.Pause; 1 was "the bot was removed")."""

STEPS = (
    "ALTER TABLE tables ADD COLUMN thread_id INTEGER NOT NULL DEFAULT 0",
    "DROP INDEX one_live_table_per_chat",
    """
    CREATE UNIQUE INDEX one_live_table_per_topic ON tables(chat_id, thread_id)
        WHERE status IN ('open', 'playing')
    """,
)
