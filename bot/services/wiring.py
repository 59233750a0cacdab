"""The services built once, each through its constructor, in the order their
needs give: nothing is patched into a service after it is built.

- A claim's vote ended without a press (its deadline, a voter out of
  reach) needs only the registry (:class:`~bot.services.claims.ClaimVotes`):
  the deadlines and the absence services are built with it, the claims'
  presses after them.
- The end of a game runs its finish hooks in its transaction: the
  partners' record, then the afterword, then the chart owed to the group
  (drawn once the end is committed).
- «Call me»: opening a table calls its group's subscribers, in its
  transaction (:class:`~bot.services.calls.CallService` before the tables).
- Who is in a group now, as Telegram says (one cache, one quota per
  person): for every seat, the rematch and the Mini App's watchers.
- Inline mode remembers people for a few seconds: ``/forget_me`` (the
  club's) drops them there too.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from aiogram import Bot

from bot.services.absence import Absence
from bot.services.afterword import AfterwordService
from bot.services.calls import CallService
from bot.services.charts import ChartService
from bot.services.claims import ClaimService, ClaimVotes
from bot.services.club import ClubService, record_partners
from bot.services.computer import Chooser
from bot.services.day import DayService
from bot.services.day_play import DayPlays
from bot.services.deadlines import Deadlines
from bot.services.group_events import GroupEvents
from bot.services.inline import InlineService
from bot.services.live import Ctx, Registry
from bot.services.lookups import LookupService
from bot.services.membership import Members, ask_telegram
from bot.services.moves import Moves
from bot.services.play import PlayService
from bot.services.record import RecordService
from bot.services.rematch import RematchService
from bot.services.replies import Replies
from bot.services.seats import SeatService
from bot.services.tables import AdminCheck, TableService
from bot.services.teach import TeachService
from bot.services.timers import Timers


@dataclass(frozen=True, slots=True)
class Services:
    """Every service of the bot, for the handlers (``Dispatcher`` data) and the app."""

    registry: Registry
    members: Members
    play: PlayService
    tables: TableService
    seats: SeatService
    groups: GroupEvents
    calls: CallService
    rematch: RematchService
    claims: ClaimService
    lookups: LookupService
    inline: InlineService
    records: RecordService
    teach: TeachService
    club: ClubService
    afterword: AfterwordService
    charts: ChartService
    replies: Replies
    day: DayService
    timers: Timers


def build_services(
    ctx: Ctx, bot: Bot, is_admin: AdminCheck, chooser: Chooser | None = None
) -> Services:
    """``is_admin``: asks Telegram about a group's admins; ``chooser``: the
    computer's decision (tests inject one; the engine's by default)."""
    registry = Registry(ctx)
    charts = ChartService(registry)
    afterword = AfterwordService(registry, ctx.changed)
    votes = ClaimVotes(registry)
    moves = Moves(
        registry,
        chooser,
        finish_hooks=(partial(record_partners, registry), afterword.open, charts.game_over),
        after_finish=charts.wake,
    )
    deadlines = Deadlines(moves, votes)
    play = PlayService(moves, deadlines, Absence(moves, votes))
    members = Members(partial(ask_telegram, bot), ctx.clock.now)
    calls = CallService(registry)
    tables = TableService(registry, play, is_admin, on_open=calls.on_open)
    replies = Replies(registry)
    inline = InlineService(registry)
    registry.on_forget.append(inline.forget)
    day = DayService(ctx, DayPlays(ctx, play.computer, members), is_admin)
    return Services(
        registry=registry,
        members=members,
        play=play,
        tables=tables,
        seats=SeatService(tables, members),
        groups=GroupEvents(tables),
        calls=calls,
        rematch=RematchService(registry, tables, members),
        claims=ClaimService(registry, play, votes),
        lookups=LookupService(registry),
        inline=inline,
        records=RecordService(registry),
        teach=TeachService(registry, play),
        club=ClubService(registry, play, afterword),
        afterword=afterword,
        charts=charts,
        replies=replies,
        day=day,
        timers=Timers(deadlines, afterword, replies, day.due),
    )
