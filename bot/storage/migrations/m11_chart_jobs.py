"""Migration 11: Score charts still to draw and send (a game's end writes one; the
chart service draws it in a worker and sends it, in one transaction)."""

STEPS = (
    """
    CREATE TABLE chart_jobs(
        game_id INTEGER PRIMARY KEY,
        chat_id INTEGER NOT NULL,
        created_at REAL NOT NULL)
    """,
)
