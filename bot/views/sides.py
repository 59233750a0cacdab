"""Where each side stands in the hand, read at a glance: its score and bags,
its contract (the sum of its players' bids, a nil apart) against the tricks
that count for it, and each player's «взято из заявки»."""

from __future__ import annotations

from collections.abc import Sequence

from bot.model import LiveTable
from bot.views.common import Tr, capitalized, num, player_name, side_name
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


def bags_text(tr: Tr, rules: Rules, bags: int) -> str:
    """``3 мешка``; at 9 (with the penalty on) what the next one costs."""
    text = tr("bags", n=bags)
    if rules.bag_penalty and bags == 9:
        text += tr("bags-warn")
    return text


def player_part(tr: Tr, table: LiveTable, v: PublicView, seat: int, me: int | None = None) -> str:
    """``Аня 1 из 3``, ``Вика ноль``, ``Глеб …`` (not bid yet)."""
    name = player_name(tr, table, seat, me)
    bid = v.bids[seat]
    if bid is None:
        return tr("player-waiting", name=name)
    if bid == 0:
        return tr("player-nil", name=name, blind=int(v.blind[seat]), taken=v.tricks_won[seat])
    return tr("player-progress", name=name, taken=v.tricks_won[seat], bid=bid)


def standing_lines(tr: Tr, table: LiveTable, v: PublicView, me: int | None = None) -> list[str]:
    """Two lines a side in a partnership game, one a player otherwise;
    ``me``: in that seat's own chat, «вы» and its side first."""
    out = []
    order = list(enumerate(sides(v.players)))
    if me is not None:
        order.sort(key=lambda item: me not in item[1])
    for i, members in order:
        head = capitalized(
            tr(
                "side-head",
                side=side_name(tr, table, i, me),
                total=num(v.totals[i]),
                bags=bags_text(tr, v.rules, v.bags[i]),
            )
        )
        if len(members) == 1:
            part = player_part(tr, table, v, members[0], me)
            out.append(tr("solo-line", head=head, part=part))
            continue
        contract, taken = contract_of(v.rules, members, v.bids, v.tricks_won)
        parts = ", ".join(player_part(tr, table, v, s, me) for s in members)
        out.append(head)
        out.append(tr("side-detail", contract=contract, taken=taken, players=parts))
    return out
