"""``python -m bot.health``: exit 0 if the running bot's deadline loop beat lately.

The loop writes a heartbeat into the database every second (it is what the
downtime after a crash is measured from); a bot that is up but stuck, or a
database the bot does not write to, shows as a heartbeat too old. Docker's
``HEALTHCHECK`` runs this. It only reads (the bot's lock is not touched).
"""

from __future__ import annotations

import sqlite3
import sys
import time
from pathlib import Path

from bot.config import ConfigError, load_settings
from bot.services.timers import HEARTBEAT

# Older than this, the bot is not well: the loop beats every second.
STALE_AFTER = 60.0


def heartbeat_age(database: Path) -> float | None:
    """Seconds since the last heartbeat, or None if there is none (yet)."""
    if not database.exists():
        return None
    con = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5)
    try:
        row = con.execute("SELECT value FROM meta WHERE key = ?", (HEARTBEAT,)).fetchone()
    except sqlite3.OperationalError:  # no schema yet
        return None
    finally:
        con.close()
    return time.time() - float(row[0]) if row else None


def main() -> int:
    try:
        settings = load_settings()
    except ConfigError as e:
        print(f"unhealthy: {e}", file=sys.stderr)
        return 1
    age = heartbeat_age(settings.database_path)
    if age is None:
        print(f"unhealthy: no heartbeat in {settings.database_path}", file=sys.stderr)
        return 1
    if age > STALE_AFTER:
        print(f"unhealthy: last heartbeat {age:.0f} s ago", file=sys.stderr)
        return 1
    print(f"healthy: last heartbeat {age:.1f} s ago")
    return 0


if __name__ == "__main__":
    sys.exit(main())
