"""What the bot and its streams process (:mod:`bot.webapp.streams`) say to
each other, over one Unix socket pair of the bot's own making.

Each message is one datagram (``SOCK_SEQPACKET``: boundaries kept, order
kept), a pickled tuple. Pickle is safe here: both ends are the same code,
started by the bot, and nobody else holds the socket.

Bot to streams:

* ``("open", user_id, lang, table_copy, now)`` with one descriptor: a page's
  ``/api/events`` connection, already authenticated and checked by the bot,
  for the streams process to answer from now on.
* ``("changed", now, [table_copy, ...])``: tables that changed since the
  last message, each as little as needed (see :func:`copy_of`).

Streams to bot: ``("closed", table_id)`` when a page's stream ends, so the
bot knows which tables are still watched.

A table copy is ``(table_id, fields, game)``: ``fields`` every field of
:class:`~bot.model.LiveTable` but the game; ``game`` ``None``, or
``("full", game_id, rules, seed, first_dealer, actions)``, or ``("more",
game_id, start, actions)``: the moves made since ``start`` (a game only
grows while its table's lock is free, so the moves already sent stand).
"""

from __future__ import annotations

import pickle
import socket
from dataclasses import fields
from typing import Any

from bot.model import LiveTable
from engine import EngineError, Game

# The largest datagram either side sends; the bot splits its updates to fit.
MAX_MESSAGE = 128 * 1024
# Everything the streams process keeps of a table, the game aside.
TABLE_FIELDS = tuple(f.name for f in fields(LiveTable) if f.name != "game")

TableCopy = tuple[int, dict[str, Any], tuple[Any, ...] | None]


def pair() -> tuple[socket.socket, socket.socket]:
    """The bot's end and the streams process's end, neither blocking."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    ours.setblocking(False)
    theirs.setblocking(False)
    return ours, theirs


def encode(message: tuple[Any, ...]) -> bytes:
    return pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)


def decode(data: bytes) -> tuple[Any, ...]:
    message = pickle.loads(data)
    assert isinstance(message, tuple)
    return message


def copy_of(live: LiveTable, sent_game: tuple[int, int] | None) -> TableCopy:
    """The table for the streams process. ``sent_game``: ``(game_id, moves)``
    it already holds of this table's game; the moves since are sent, or the
    whole game when it holds another one."""
    values = {name: getattr(live, name) for name in TABLE_FIELDS}
    g = live.game
    if g is None or live.game_id is None:
        return live.table_id, values, None
    if sent_game is not None and sent_game[0] == live.game_id and sent_game[1] <= len(g.actions):
        start = sent_game[1]
        return live.table_id, values, ("more", live.game_id, start, g.actions[start:])
    game = ("full", live.game_id, g.rules, g.seed, g.first_dealer, list(g.actions))
    return live.table_id, values, game


def game_held(copy: TableCopy) -> tuple[int, int] | None:
    """What the streams process holds of the game once it has ``copy``."""
    game = copy[2]
    if game is None:
        return None
    if game[0] == "full":
        return game[1], len(game[5])
    return game[1], game[2] + len(game[3])


class OutOfStep(Exception):
    """A ``more`` that does not follow what is held: the copy must be dropped."""


def apply_copy(held: LiveTable | None, copy: TableCopy) -> LiveTable:
    """The streams process's table after ``copy``: a new object each time
    (the per-change caches compare tables by identity)."""
    _, values, game = copy
    live = LiveTable(**values)
    if game is None:
        return live
    if game[0] == "full":
        _, game_id, rules, seed, first_dealer, actions = game
        live.game = Game.replay(rules, seed, actions, first_dealer)
        return live
    _, game_id, start, actions = game
    if held is None or held.game is None or held.game_id != game_id or held.seq != start:
        raise OutOfStep(f"table {live.table_id}: moves from {start}")
    g = held.game  # the held table is dropped: its game may go on in place
    try:
        for action in actions:
            g.apply_action(action)
    except EngineError as e:
        raise OutOfStep(f"table {live.table_id}: {e.code}") from None
    live.game = g
    return live
