"""Migration 12: When the user last pressed Start (time.time()): Telegram's refusal of a
message sent before it is old news and does not mark them blocked again."""

STEPS = ("ALTER TABLE users ADD COLUMN started_at REAL NOT NULL DEFAULT 0",)
