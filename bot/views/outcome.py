"""What a change did to a table, and the messages it causes: data only.

A service decides and records a change, then says what changed in a
:class:`Change`: which of the table's own messages to redraw, and the events
that happened (a hand ended, a seat timed out, a claim was proved). The one
render pass, :func:`bot.views.messages.messages`, turns the table as it now
stands plus that change into every message it causes (:data:`Message`), once;
``bot.services.render.publish`` queues them in the change's transaction.

Nothing here is text: an event names what happened, the views choose the words.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.model import SeatResult, VoterOut
from bot.views.keyboard import Keyboard
from bot.views.results import LastTrick

# ------------------------------------------------------------ the table's own


@dataclass(frozen=True, slots=True)
class Repost:
    """The table message posted anew at the bottom of the chat (it had sunk);
    ``old``: the message to delete, if known."""

    old: int | None


@dataclass(frozen=True, slots=True)
class Hands:
    """The seated people's private hands, as the game now stands.

    ``new_hand``: a new message each (a new hand notifies; later changes edit
    it). ``only``: these seats alone. ``turn``: in a daily game this seat's
    hand comes anew at the bottom of the chat (an edit would not notify, and
    the move may be a day away). ``fresh``: anew at the bottom for each seat
    shown (the ping's button, /back)."""

    new_hand: bool = False
    only: frozenset[int] | None = None
    turn: int | None = None
    fresh: bool = False


# ------------------------------------------------------------------- events


@dataclass(frozen=True, slots=True)
class HandClosed:
    """A hand ended (``hand_no``, its sheet ``line``, the trick it ended on):
    the group's result, and each player's hand message kept as that result."""

    hand_no: int
    line: Mapping[str, Any]
    last: LastTrick | None


@dataclass(frozen=True, slots=True)
class GameOver:
    """The game ended: the group's final note, each player's own result."""

    results: tuple[SeatResult, ...]


@dataclass(frozen=True, slots=True)
class TimedOut:
    """The computer made ``seat``'s move (``action``) when its time ran out;
    ``away``: the third time in a row, the computer keeps the seat."""

    seat: int
    action: int
    away: bool


@dataclass(frozen=True, slots=True)
class CameBack:
    """The seat's person took it back from the computer."""

    seat: int


@dataclass(frozen=True, slots=True)
class Blocked:
    """The seat's person cannot get their cards (the bot is blocked)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Reminded:
    """A daily game's reminder to the seat to move, ``left`` seconds before its deadline."""

    seat: int
    left: float


@dataclass(frozen=True, slots=True)
class Pinged:
    """A real-time game's "your turn" ping, ``left`` seconds before the deadline
    (a new one replaces the older: a new message notifies, an edit would not)."""

    seat: int
    left: float


@dataclass(frozen=True, slots=True)
class PingDone:
    """The pinged seat moved (or the turn ended otherwise): the ping goes."""

    seat: int


@dataclass(frozen=True, slots=True)
class Cancelled:
    """The table was cancelled: its message and the hands say so."""


@dataclass(frozen=True, slots=True)
class Called:
    """A person who asked to be called gets this new table's call (in ``lang``)."""

    user_id: int
    lang: str


# -------------------------------------------------------------------- claims


@dataclass(frozen=True, slots=True)
class Claim:
    """A claim of the rest as it is told: who, how many tricks, for the side
    or alone; ``cards`` (the claimer's, from their own view) only where they
    may be shown."""

    seat: int
    left: int
    side: bool
    cards: tuple[int, ...] | None = None


#: A voter's seat and the key of its private question.
Question = tuple[int, str]


@dataclass(frozen=True, slots=True)
class ClaimProved:
    """The engine proved the claim: the group sees it with the cards."""

    claim: Claim


@dataclass(frozen=True, slots=True)
class ClaimAccepted:
    """The last voter accepted: the group sees the cards, the questions close."""

    claim: Claim
    questions: tuple[Question, ...]


@dataclass(frozen=True, slots=True)
class ClaimRefused:
    """Refused at once, without cards: a computer among the voters (``voter``
    None), or a voter the bot cannot write to."""

    claim: Claim
    voter: int | None


@dataclass(frozen=True, slots=True)
class ClaimPut:
    """Put to the vote: the group's note under ``key`` names the voters (no
    cards); each voter's question shows ``cards`` with its two buttons."""

    claim: Claim
    key: str
    cards: tuple[int, ...]
    seq: int
    n: int
    questions: tuple[Question, ...]


@dataclass(frozen=True, slots=True)
class ClaimClosed:
    """The vote ended without the hand: refused ``by`` a voter (for them:
    ``why``) or expired (``by`` None). The group's note under ``key`` says so,
    and the questions close."""

    claim: Claim
    key: str
    questions: tuple[Question, ...]
    by: int | None = None
    why: VoterOut | None = None


@dataclass(frozen=True, slots=True)
class VoteTaken:
    """One voter accepted, others still to answer: their question says so."""

    question: Question


@dataclass(frozen=True, slots=True)
class VotersReminded:
    """The voters who have not answered, ``left`` seconds before the vote's deadline."""

    seats: tuple[int, ...]
    left: float


Event = (
    HandClosed
    | GameOver
    | TimedOut
    | CameBack
    | Blocked
    | Reminded
    | Pinged
    | PingDone
    | Cancelled
    | Called
    | ClaimProved
    | ClaimAccepted
    | ClaimRefused
    | ClaimPut
    | ClaimClosed
    | VoteTaken
    | VotersReminded
)


@dataclass(frozen=True, slots=True)
class Change:
    """What one change did to a table: its ``events`` (their messages come
    first, in order), then the table message redrawn (``table``; ``options``:
    its settings screen; ``repost``: at the bottom of the chat), then the
    private ``hands``."""

    events: tuple[Event, ...] = ()
    table: bool = False
    options: bool = False
    repost: Repost | None = None
    hands: Hands | None = None


# ------------------------------------------------------------------ messages


@dataclass(frozen=True, slots=True)
class Send:
    """A new message (remembered under ``key`` if given); ``quiet``: without
    a notification; ``thread``: the forum topic."""

    chat: int
    text: str
    markup: Keyboard | None = None
    key: str | None = None
    thread: int | None = None
    quiet: bool = False


@dataclass(frozen=True, slots=True)
class Put:
    """The message under ``key`` shows this (edited, or sent if unknown)."""

    chat: int
    key: str
    text: str
    markup: Keyboard | None = None
    thread: int | None = None


@dataclass(frozen=True, slots=True)
class Delete:
    """The message under ``key`` is deleted."""

    chat: int
    key: str


@dataclass(frozen=True, slots=True)
class PostAnew:
    """The message under ``key`` anew at the bottom of the chat, ``old`` deleted."""

    chat: int
    key: str
    text: str
    markup: Keyboard | None
    old: int | None
    thread: int | None = None


Message = Send | Put | Delete | PostAnew
