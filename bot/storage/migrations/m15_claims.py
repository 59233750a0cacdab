"""Migration 15: Claims of the rest of a hand («Остальные мои»): one row per claim (the
claimer's n-th of the hand, counted against the limit; ``seq`` is the move it
was made at), and each acceptance of a claim the engine did not prove."""

STEPS = (
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
