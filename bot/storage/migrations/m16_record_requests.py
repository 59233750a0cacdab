"""Migration 16: A hand record sent to a person: a second press of the same button (a double
tap, or the press handled again after a restart) does not send it twice."""

STEPS = (
    """
    CREATE TABLE record_requests(
        user_id INTEGER NOT NULL,
        table_id INTEGER NOT NULL,
        hand_no INTEGER NOT NULL,
        sent_at REAL NOT NULL,
        PRIMARY KEY (user_id, table_id, hand_no))
    """,
)
