"""The texts and buttons of a claim of the rest of a hand («Остальные мои»).

The cards shown are the claimer's own, handed in by the service from the
claimer's view of the game: nothing here reads a hand from the game itself."""

from __future__ import annotations

from collections.abc import Sequence

from bot.callbacks import ClaimCb, ClaimVoteCb
from bot.i18n import esc
from bot.model import UNREACHABLE, LiveTable, VoterOut
from bot.views.common import Tr, cards_line, player_name
from bot.views.keyboard import Keyboard, button, keyboard, rows_of
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
