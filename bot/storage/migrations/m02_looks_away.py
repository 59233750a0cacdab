"""Migration 2: Who opened their cards this hand (blind nil given up), and seats whose
owner left the game to the computer."""

STEPS = (
    """
    CREATE TABLE looks(
        game_id INTEGER NOT NULL REFERENCES games(game_id),
        hand_no INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        PRIMARY KEY(game_id, hand_no, seat))
    """,
    "ALTER TABLE seats ADD COLUMN away INTEGER NOT NULL DEFAULT 0",
)
