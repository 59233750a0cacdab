"""Migration 7: The inbox of long polling (bot/storage/inbox.py): an update is kept
before Telegram is told it arrived, and marked done once handled."""

STEPS = (
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
