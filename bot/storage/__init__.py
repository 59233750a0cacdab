"""SQLite storage: one bot process per database, serialised transactions, ordered migrations."""

from bot.storage.db import Conn, Database, DatabaseBusyError, Statements
from bot.storage.process_lock import DatabaseInUseError

__all__ = ["Conn", "Database", "DatabaseBusyError", "DatabaseInUseError", "Statements"]
