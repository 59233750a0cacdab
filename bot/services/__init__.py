"""Use cases: what happens when someone opens a table, sits, bids or plays."""
