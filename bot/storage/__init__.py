"""SQLite storage: one shared connection, serialised transactions, ordered migrations."""

from bot.storage.db import Database, DatabaseBusyError

__all__ = ["Database", "DatabaseBusyError"]
