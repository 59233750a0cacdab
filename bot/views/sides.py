"""Where each side stands in the hand, read at a glance: its score and bags;
while bids are made, the bids; in play, its contract (the sum of its
players' bids, a nil apart) against the tricks that count for it, each
player on their own when a nil is there."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.model import LiveTable
from bot.views.common import Tr, bid_text, capitalized, members_name, num, player_name
from engine.game import BIDDING
from engine.rules import Rules
from engine.scoring import sides
from engine.view import PublicView


def contract_of(
    rules: Rules, members: Sequence[int], bids: Sequence[int | None], tricks: Sequence[int]
) -> tuple[int, int]:
    """(the side's contract, the tricks counted towards it), as the scoring
    counts them (``engine.scoring.score_side``); bids not yet made count 0."""
    contract = taken = 0
    nils = []
    for s in members:
        bid = bids[s]
        if bid:
            contract += bid
            taken += tricks[s]
        elif bid == 0:
            nils.append(s)
    if contract and rules.failed_nil == "help_partner" and len(members) == 2 and len(nils) == 1:
        taken += tricks[nils[0]]
    return contract, taken


@dataclass(frozen=True, slots=True)
class SideScore:
    """One side as the table stands: its seats, its game total and bags, and
    its contract against the tricks that count for it (0 and 0 before bids)."""

    members: tuple[int, ...]
    total: int
    bags: int
    contract: int
    taken: int


#: Every side, in order: worked out once per change by the render pass
#: (:func:`standing_of`) and handed to each view that shows the score.
Standing = tuple[SideScore, ...]


def standing_of(v: PublicView) -> Standing:
    """The sides' totals, bags and contracts from the public view."""
    return tuple(
        SideScore(
            members, v.totals[i], v.bags[i], *contract_of(v.rules, members, v.bids, v.tricks_won)
        )
        for i, members in enumerate(sides(v.players))
    )


def bags_text(tr: Tr, rules: Rules, bags: int) -> str:
    """``3 мешка``; at 9 (with the penalty on) only what the next one costs:
    ``⚠️ ещё мешок — и −100``."""
    if rules.bag_penalty and bags == 9:
        return tr("bags-warn")
    return tr("bags", n=bags)


def _bid_part(tr: Tr, table: LiveTable, v: PublicView, seat: int, me: int | None) -> str:
    """``Аня 3``, ``Вика ноль``, ``Глеб …`` (not bid yet): one bid while bids are made."""
    name = player_name(tr, table, seat, me)
    bid = v.bids[seat]
    if bid is None:
        return tr("bid-waiting", name=name)
    return tr("bid-of", name=name, bid=bid_word(tr, bid, v.blind[seat]))


def bid_word(tr: Tr, bid: int, blind: bool) -> str:
    """A bid as the table reads it: ``3``, ``ноль``, ``слепой ноль``."""
    if bid == 0:
        return tr("bid-blind" if blind else "bid-nil")
    return str(bid)


def _nil_status(tr: Tr, v: PublicView, seat: int) -> str:
    """``ноль``, ``ноль ✗ (уже 1 взятка)``: a nil in play."""
    return tr("nil-status", blind=int(v.blind[seat]), taken=v.tricks_won[seat])


def _progress(tr: Tr, key: str, contract: int, taken: int) -> str:
    """``заказ 6 · взято 4 (ещё 2)``; ``… взято 6 ✓`` once reached."""
    return tr(key, contract=contract, bid=contract, taken=taken, left=max(0, contract - taken))


def _side_in_play(tr: Tr, table: LiveTable, v: PublicView, side: SideScore, me: int | None) -> str:
    """The line under a side's score in play: its contract against its tricks;
    with a nil there, each player (the nil, and the partner's bid as counted)."""
    members, contract, taken = side.members, side.contract, side.taken
    if all(v.bids[s] for s in members):
        return tr("side-detail", progress=_progress(tr, "contract-progress", contract, taken))
    parts = []
    for s in members:
        name = player_name(tr, table, s, me)
        if v.bids[s] == 0:
            parts.append(tr("player-nil", name=name, status=_nil_status(tr, v, s)))
        else:
            parts.append(
                tr(
                    "player-progress",
                    name=name,
                    taken=taken,
                    bid=contract,
                    done=int(taken >= contract),
                )
            )
    return tr("side-players", players=capitalized(" · ".join(parts)))


def _solo_part(tr: Tr, v: PublicView, seat: int) -> str:
    """An individual game's player after the score: the bid, then how it goes."""
    bid = v.bids[seat]
    if bid is None:
        return tr("bid-none")
    if v.phase == BIDDING:
        return bid_text(tr, bid, v.blind[seat])
    if bid == 0:
        return _nil_status(tr, v, seat)
    return _progress(tr, "solo-progress", bid, v.tricks_won[seat])


def standing_lines(
    tr: Tr,
    table: LiveTable,
    v: PublicView,
    me: int | None = None,
    standing: Standing | None = None,
) -> list[str]:
    """Two lines a side in a partnership game, one a player otherwise;
    ``me``: in that seat's own chat, «вы» and its side first. While bids are
    made the second line is the bids (a contract of bids not yet made would
    read as a nil); in play, the contract against the tricks. ``standing``:
    the sides as the render pass worked them out (else worked out here)."""
    out = []
    order = list(standing if standing is not None else standing_of(v))
    if me is not None:
        order.sort(key=lambda side: me not in side.members)
    for side in order:
        head = capitalized(
            tr(
                "side-head",
                side=members_name(tr, table, side.members, me),
                total=num(side.total),
                bags=bags_text(tr, v.rules, side.bags),
            )
        )
        if len(side.members) == 1:
            out.append(tr("solo-line", head=head, part=_solo_part(tr, v, side.members[0])))
            continue
        out.append(head)
        if v.phase == BIDDING:
            bids = ", ".join(_bid_part(tr, table, v, s, me) for s in side.members)
            out.append(tr("side-bids", bids=bids))
        else:
            out.append(_side_in_play(tr, table, v, side, me))
    return out
