"""Migration 10: The table option «Подсказки» (a table setting, not a rule of the game),
and each hint shown: one row per seat and move, so a second press of the
same 💡 is not counted twice."""

STEPS = (
    "ALTER TABLE tables ADD COLUMN hints INTEGER NOT NULL DEFAULT 0",
    """
    CREATE TABLE hint_uses(
        game_id INTEGER NOT NULL REFERENCES games(game_id),
        seat INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        PRIMARY KEY(game_id, seat, seq))
    """,
)
