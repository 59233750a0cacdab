"""Migration 18: A table's join link carries a secret of its own (``join_<table>_<seat>_<key>``):
a table number counts up and says nothing a stranger could not guess. The
tables there already get theirs here (randomblob is drawn per row)."""

STEPS = (
    "ALTER TABLE tables ADD COLUMN join_key TEXT NOT NULL DEFAULT ''",
    "UPDATE tables SET join_key = lower(hex(randomblob(8)))",
)
