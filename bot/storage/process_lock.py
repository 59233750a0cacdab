"""One process per database: an exclusive ``flock`` on ``<database>.lock``."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit


class DatabaseInUseError(RuntimeError):
    """Another process has this database open: one bot, one process, one database."""

    def __init__(self, path: str, holder: str) -> None:
        self.path = path
        self.holder = holder  # the other process's id, as it wrote it ('' if unknown)
        who = f"process {holder}" if holder else "another process"
        super().__init__(f"database {path} is already in use by {who}")


def database_file(path: str) -> Path | None:
    """The file behind a database name; None for an in-memory database."""
    if path in ("", ":memory:"):
        return None
    if not path.startswith("file:"):
        return Path(path)
    uri = urlsplit(path)
    if "memory" in parse_qs(uri.query).get("mode", []) or uri.path in ("", ":memory:"):
        return None
    return Path(unquote(uri.path))


class ProcessLock:
    """An exclusive ``flock`` on ``<database>.lock``, held while the database is open.

    A lock file of its own, not the database file: SQLite's POSIX locks on a
    file are all dropped when the process closes *any* descriptor of it. The
    file stays behind (removing it would race with the next start); it holds
    the id of the process that last took the lock, for the error message.
    """

    def __init__(self, fd: int) -> None:
        self._fd = fd

    @classmethod
    def take(cls, database: Path, name: str) -> ProcessLock:
        real = Path(os.path.realpath(database))
        fd = os.open(real.with_name(real.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode(errors="replace").strip()
            os.close(fd)
            raise DatabaseInUseError(name, holder) from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        return cls(fd)

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)  # closing the descriptor drops the lock
            self._fd = -1
