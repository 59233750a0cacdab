"""Migration 17: A claim's vote has its own deadline: the claimer's time left on the move
when the claim was made is kept, given back when play goes on (NULL: none
was running, or the claim predates this column: the move's time anew)."""

STEPS = ("ALTER TABLE claims ADD COLUMN time_left REAL",)
