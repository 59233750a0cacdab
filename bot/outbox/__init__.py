"""The durable outbox: every message the bot sends goes through the ``outbox`` table.

Services queue messages in the same transaction that records a move, so an
acknowledged move always has its messages on disk; :class:`Outbox` then sends
them at Telegram's pace. Delivery is *at least once*: a crash (or a network
error) after Telegram received a call but before we marked the row sent
repeats the call on restart. For ``put`` that is harmless (an identical edit
is "not modified"); a ``send`` may rarely appear twice.

Operations:

* ``put``: make the message remembered under ``key`` show this text, editing it
  if we know its id, else sending it and remembering the new id. Several
  pending puts for one key collapse into the newest, so a burst of moves costs
  one edit of the table message.
* ``send``: always a new message (remembered under ``key`` if one is given).
* ``delete``: delete the message remembered under ``key`` and forget it.

Modules: :mod:`.enqueue` (rows queued in the caller's transaction),
:mod:`.calls` (a row's payload and the aiogram method it becomes),
:mod:`.plans` (what to send next for a chat), :mod:`.pacer` (Telegram's
rate limits), :mod:`.sender` (:class:`Outbox`: a worker per chat),
:mod:`.delivery` (one call and what aiogram's answer or exception means),
:mod:`.errors` (which 400 is which), :mod:`.bookkeeping` (what an attempt
leaves in the tables), :mod:`.pruning` (finished rows deleted),
:mod:`.stats` (the counters).

Message texts can contain a player's hidden cards, so nothing here logs them.
"""

from bot.outbox.calls import Markup
from bot.outbox.delivery import ForbiddenHandler, MigratedHandler, TopicHandler
from bot.outbox.enqueue import (
    ANSWER,
    enqueue_answer,
    enqueue_delete,
    enqueue_delete_message,
    enqueue_edit,
    enqueue_put,
    enqueue_repost,
    enqueue_send,
    forget_key,
)
from bot.outbox.pacer import Pacer
from bot.outbox.sender import Outbox
from bot.outbox.stats import OutboxStats

__all__ = [
    "ANSWER",
    "enqueue_answer",
    "ForbiddenHandler",
    "Markup",
    "MigratedHandler",
    "Outbox",
    "OutboxStats",
    "Pacer",
    "TopicHandler",
    "enqueue_delete",
    "enqueue_delete_message",
    "enqueue_edit",
    "enqueue_put",
    "enqueue_repost",
    "enqueue_send",
    "forget_key",
]
