"""The texts and buttons of a claim of the rest of a hand («Остальные мои»).

The cards shown are the claimer's own, handed in by the service from the
claimer's view of the game: nothing here reads a hand from the game itself.
:func:`claim_messages` is the render pass's part for a claim's events."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.callbacks import ClaimCb, ClaimVoteCb
from bot.i18n import esc
from bot.model import UNREACHABLE, LiveTable, VoterOut
from bot.views.common import Tr, cards_line, player_name
from bot.views.keyboard import Keyboard, button, keyboard, rows_of
from bot.views.outcome import (
    ClaimAccepted,
    ClaimClosed,
    ClaimProved,
    ClaimPut,
    ClaimRefused,
    Event,
    Message,
    Put,
    Question,
    Send,
    VoteTaken,
)
from engine.game import PLAY
from engine.view import View


def claim_part(
    tr: Tr, table: LiveTable, v: View, markup: Keyboard | None
) -> tuple[str | None, Keyboard | None]:
    """What a claim adds to the player's hand on their turn: a line while the
    claim is voted on, or the button (``LiveTable.claim_number``: the rule
    the Mini App and the claim's service follow too)."""
    if v.to_move != v.seat or v.phase != PLAY:
        return None, markup
    if table.voting:
        return tr("claim-waiting"), markup
    n = table.claim_number(v.seat)
    if n is not None:
        claim = button(tr("btn-claim"), ClaimCb.packed(t=table.table_id, s=table.seq, n=n))
        return None, keyboard([*rows_of(markup), [claim]])
    return None, markup


def claim_note(
    tr: Tr, table: LiveTable, seat: int, cards: Sequence[int] | None, left: int, side: bool
) -> str:
    """The group's line: who claims how many tricks, with the claimer's cards
    once the claim ends the hand (``None``: without them, for a claim being
    voted on or one that does not stand)."""
    name = player_name(tr, table, seat)
    whose = "side" if side else "self"
    if cards is None:
        return tr("claim-made-bare", name=name, whose=whose, left=left)
    return tr("claim-made", name=name, whose=whose, left=left, cards=cards_line(list(cards)))


def closed_note(tr: Tr, table: LiveTable, seat: int, left: int, side: bool) -> str:
    """The group's claim once play goes on (never with the cards)."""
    return f"{claim_note(tr, table, seat, None, left, side)}\n{tr('claim-not-accepted')}"


def proved_note(tr: Tr, table: LiveTable, seat: int, side: bool) -> str:
    return tr("claim-proved", name=player_name(tr, table, seat), whose="side" if side else "self")


def voters_note(tr: Tr, table: LiveTable, voters: Sequence[int]) -> str:
    """Who decides; the cards are theirs to see alone (the partner reads the group)."""
    names = ", ".join(player_name(tr, table, s) for s in voters)
    return f"{tr('claim-vote', names=names)}\n{tr('claim-cards-to-voters')}"


def ask(
    tr: Tr, table: LiveTable, seat: int, cards: Sequence[int], left: int, seq: int, n: int
) -> tuple[str, Keyboard]:
    """The private question to one of the other side, with its two buttons."""
    text = tr(
        "claim-ask",
        group=esc(table.chat_title),
        name=player_name(tr, table, seat),
        left=left,
        cards=cards_line(list(cards)),
    )
    t = table.table_id
    markup = keyboard(
        [
            [
                button(tr("btn-claim-accept"), ClaimVoteCb.packed(t=t, s=seq, n=n, v=1)),
                button(tr("btn-claim-refuse"), ClaimVoteCb.packed(t=t, s=seq, n=n, v=0)),
            ]
        ]
    )
    return text, markup


def ask_accepted(tr: Tr, table: LiveTable) -> str:
    return tr("claim-ask-accepted", group=esc(table.chat_title))


def voter_out_note(tr: Tr, table: LiveTable, seat: int, why: VoterOut) -> str:
    """A voter whose answer cannot come counts as a refusal: the bot cannot
    write to them (``unreachable``), or the computer plays their seat now."""
    key = "claim-unreachable" if why == UNREACHABLE else "claim-voter-computer"
    return tr(key, name=player_name(tr, table, seat))


def ask_closed(tr: Tr, table: LiveTable) -> str:
    """The question once decided: the claimer's cards are no longer shown."""
    return tr("claim-ask-closed", group=esc(table.chat_title))


def claim_messages(
    event: Event, table: LiveTable, tr: Tr, person: Callable[[int], Tr]
) -> list[Message]:
    """A claim's messages (the render pass's part for claims; ``tr``: the
    group's words, ``person``: a person's). The group sees the claimer's
    cards only when the claim ends the hand; while the other side votes,
    only the voters do, in their questions."""

    def note(text: str) -> Send:
        return Send(table.chat_id, text, thread=table.thread_id, quiet=True)

    def closed(questions: tuple[Question, ...]) -> list[Message]:
        """Each question, decided, without the claimer's cards or buttons."""
        return [
            Put(uid, key, ask_closed(person(uid), table))
            for s, key in questions
            if (uid := table.seats[s]) is not None and s not in table.blocked
        ]

    match event:
        case ClaimProved(claim=c):
            text = claim_note(tr, table, c.seat, c.cards, c.left, c.side)
            return [note(f"{text}\n{proved_note(tr, table, c.seat, c.side)}")]
        case ClaimAccepted(claim=c, questions=questions):
            text = claim_note(tr, table, c.seat, c.cards, c.left, c.side)
            return [note(f"{text}\n{tr('claim-accepted')}"), *closed(questions)]
        case ClaimRefused(claim=c, voter=voter):
            bare = claim_note(tr, table, c.seat, None, c.left, c.side)
            why = (
                tr("claim-computer-refuses")
                if voter is None
                else voter_out_note(tr, table, voter, UNREACHABLE)
            )
            return [note(f"{bare}\n{why}")]
        case ClaimPut(claim=c, questions=questions):
            bare = claim_note(tr, table, c.seat, None, c.left, c.side)
            text = f"{bare}\n{voters_note(tr, table, [s for s, _ in questions])}"
            out: list[Message] = [
                Send(table.chat_id, text, None, event.key, table.thread_id, quiet=True)
            ]
            for s, key in questions:
                uid = table.seats[s]
                assert uid is not None
                q, markup = ask(person(uid), table, c.seat, event.cards, c.left, event.seq, event.n)
                out.append(Send(uid, q, markup, key))
            return out
        case ClaimClosed(claim=c):
            if event.by is None:
                line = tr("claim-expired")
            elif event.why is not None:
                line = voter_out_note(tr, table, event.by, event.why)
            else:
                line = tr("claim-refused", name=player_name(tr, table, event.by))
            text = closed_note(tr, table, c.seat, c.left, c.side)
            return [
                Put(table.chat_id, event.key, text, thread=table.thread_id),
                note(line),
                *closed(event.questions),
            ]
        case VoteTaken(question=(seat, key)):
            uid = table.seats[seat]
            assert uid is not None
            return [Put(uid, key, ask_accepted(person(uid), table))]
    raise AssertionError(f"no messages for {event!r}")
