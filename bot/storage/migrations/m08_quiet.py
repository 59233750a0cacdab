"""Migration 8: /quiet, no "your turn" pings for this person."""

STEPS = ("ALTER TABLE users ADD COLUMN quiet INTEGER NOT NULL DEFAULT 0",)
