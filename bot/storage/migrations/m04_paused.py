"""Migration 4: A table whose group removed the bot is paused (its game kept) until the
bot is added back."""

STEPS = ("ALTER TABLE tables ADD COLUMN paused INTEGER NOT NULL DEFAULT 0",)
