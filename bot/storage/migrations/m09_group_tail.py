"""Migration 9: Keeping the table message in view. ``group_tail``: the newest message
the bot sent in each group (the outbox keeps it), so a table message with
too much under it is posted anew; ``expiring``: group replies deleted later."""

STEPS = (
    "CREATE TABLE group_tail(chat_id INTEGER PRIMARY KEY, message_id INTEGER NOT NULL)",
    """
    CREATE TABLE expiring(
        key TEXT PRIMARY KEY,
        chat_id INTEGER NOT NULL,
        delete_at REAL NOT NULL)
    """,
    "CREATE INDEX expiring_due ON expiring(delete_at)",
)
