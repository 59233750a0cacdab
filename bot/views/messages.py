"""The one render pass: a table as it stands plus what changed, into every
message that change causes (the group's table message, the private hands,
the hand's and the game's results, the notes, the pings, the claim's
messages), each once.

The game is read through the engine's views only: the group's messages
from one ``public_view`` a change, each hand from its seat's own ``view``.
The sides' totals and contracts are worked out once a change
(:func:`bot.views.sides.standing_of`) and handed to every view that shows
them. Message keys name logical messages: the table message is edited in
place; each hand is one private message per player, edited as it goes on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import tzinfo
from functools import partial

from bot.callbacks import BackCb, HandCb
from bot.i18n import Texts, esc
from bot.model import LiveTable, TableStatus
from bot.pace import is_daily
from bot.views.claim import claim_messages
from bot.views.common import Tr, card, duration, player_name
from bot.views.hand import hand_message
from bot.views.keyboard import Keyboard, button, keyboard
from bot.views.links import group_link
from bot.views.outcome import (
    Blocked,
    Called,
    CameBack,
    Cancelled,
    Change,
    Delete,
    Event,
    GameOver,
    HandClosed,
    Hands,
    Message,
    PingDone,
    Pinged,
    PostAnew,
    Put,
    Reminded,
    Repost,
    Send,
    TimedOut,
    VotersReminded,
)
from bot.views.record import record_button
from bot.views.results import game_over, hand_result, private_hand_result, private_result
from bot.views.sides import Standing, standing_of
from bot.views.social import call_message, over_keyboard, rematch_keyboard
from bot.views.table import game_table, open_table, options_screen
from engine.game import BID, BLIND
from engine.view import PublicView, public_view, views


@dataclass(frozen=True, slots=True)
class Scene:
    """What the render pass needs besides the table: the words, each
    person's language, the time zone of deadlines, the links. Built once."""

    texts: Texts
    langs: Mapping[int, str]  # user id -> the language of their private chat
    zone: tzinfo
    bot_username: str
    webapp_url: str | None = None
    app_name: str | None = None  # the Mini App's short name (WEBAPP_SHORT_NAME)


def table_key(table_id: int) -> str:
    """The group's one table message."""
    return f"table:{table_id}"


def hand_key(game_id: int | None, hand_no: int, seat: int) -> str:
    """The seat's private message for one hand."""
    return f"hand:{game_id}:{hand_no}:{seat}"


def ping_key(game_id: int | None, seat: int) -> str:
    return f"ping:{game_id}:{seat}"


def messages(change: Change, live: LiveTable, scene: Scene, now: float) -> list[Message]:
    """Every message ``change`` causes at ``live`` as it now stands, in the
    order they go out: the events' first, then the table, then the hands."""
    render = _Pass(live, scene, now)
    out: list[Message] = []
    for event in change.events:
        out += render.event(event)
    if change.table:
        out.append(render.table(change.options, change.repost))
    if change.hands is not None:
        out += render.hands(change.hands)
    return out


def timeout_move(tr: Tr, action: int) -> str:
    """What the club player did for a player whose time ran out: «сыграл 7♦», «заявил 3»."""
    if action == BLIND:
        return tr("timeout-bid", bid=tr("bid-blind"))
    if action >= BID:
        bid = action - BID
        return tr("timeout-bid", bid=tr("bid-nil") if bid == 0 else str(bid))
    return tr("timeout-played", card=card(action))


def back_keyboard(tr: Tr, live: LiveTable) -> Keyboard:
    """Under the private line of a player the computer replaced: back to the game."""
    return keyboard([[button(tr("btn-back"), BackCb.packed(t=live.table_id))]])


class _Pass:
    """One change being rendered: the group's words, the public view and the
    sides, each worked out once (and only if a message needs them)."""

    def __init__(self, live: LiveTable, scene: Scene, now: float) -> None:
        self.live = live
        self.scene = scene
        self.now = now
        self.group: Tr = partial(scene.texts, live.lang)
        self._public: PublicView | None = None
        self._standing: Standing | None = None

    def person(self, user_id: int) -> Tr:
        """A person's words: their own language, else the table's."""
        return partial(self.scene.texts, self.scene.langs.get(user_id, self.live.lang))

    @property
    def public(self) -> PublicView:
        if self._public is None:
            assert self.live.game is not None
            self._public = public_view(self.live.game)
        return self._public

    @property
    def standing(self) -> Standing:
        if self._standing is None:
            self._standing = standing_of(self.public)
        return self._standing

    def note(self, text: str, markup: Keyboard | None = None) -> Send:
        """A new line in the table's group, in its topic, without a sound."""
        live = self.live
        return Send(live.chat_id, text, markup, thread=live.thread_id, quiet=True)

    # ---------------------------------------------------------- the table's own
    def table(self, options: bool, repost: Repost | None) -> Message:
        """The group's table message as it stands (``options``: the settings
        screen of an open table); ``repost``: anew at the bottom of the chat."""
        live, tr = self.live, self.group
        if live.game is not None and live.status != TableStatus.OPEN:
            scene = self.scene
            text, markup = game_table(
                tr, live, self.public, self.now, scene.zone, self._app_link(), self.standing
            )
        elif options:
            text, markup = options_screen(tr, live)
        else:
            text, markup = open_table(tr, live)
        key = table_key(live.table_id)
        if repost is None:
            return Put(live.chat_id, key, text, markup, thread=live.thread_id)
        return PostAnew(live.chat_id, key, text, markup, repost.old, thread=live.thread_id)

    def _app_link(self) -> str | None:
        """The Mini App's link for the group (WEBAPP_URL and WEBAPP_SHORT_NAME set)."""
        s = self.scene
        if s.webapp_url is None or s.app_name is None or not s.bot_username:
            return None
        return group_link(s.bot_username, s.app_name, self.live.table_id)

    def hands(self, hands: Hands) -> list[Message]:
        """Each seated person's hand (not those the bot cannot write to)."""
        live = self.live
        assert live.game is not None
        people = [
            (seat, uid)
            for seat, uid in live.humans()
            if seat not in live.blocked and (hands.only is None or seat in hands.only)
        ]
        anew = hands.turn if is_daily(live.pace) else None
        out: list[Message] = []
        seat_views = views(live.game, [seat for seat, _ in people])
        for (seat, uid), v in zip(people, seat_views, strict=True):
            text, markup = hand_message(
                self.person(uid), live, v, self.scene.webapp_url, self.standing
            )
            key = hand_key(live.game_id, v.hand_no, seat)
            if hands.new_hand:
                out.append(Send(uid, text, markup, key))
            elif hands.fresh or anew == seat:
                out += [Delete(uid, key), Send(uid, text, markup, key)]
            else:
                out.append(Put(uid, key, text, markup))
        return out

    # ---------------------------------------------------------------- events
    def event(self, event: Event) -> list[Message]:
        live, tr = self.live, self.group
        match event:
            case HandClosed():
                return self.hand_closed(event)
            case GameOver():
                return self.game_over(event)
            case TimedOut(seat=seat, action=action, away=away):
                name, move = player_name(tr, live, seat), timeout_move(tr, action)
                if not away:
                    return [self.note(tr("timeout-move", name=name, move=move))]
                out: list[Message] = [self.note(tr("timeout-away", name=name, move=move))]
                uid = live.seats[seat]
                if uid is not None:
                    ut = self.person(uid)
                    text = ut("away-private", group=esc(live.chat_title))
                    out.append(Send(uid, text, back_keyboard(ut, live)))
                return out
            case CameBack(seat=seat):
                return [self.note(tr("back-note", name=player_name(tr, live, seat)))]
            case Blocked(seat=seat):
                name = esc(live.names.get(live.seats[seat] or 0, ""))
                return [self.note(tr("blocked-note", name=name, bot=self.scene.bot_username))]
            case Reminded(seat=seat, left=left):
                return [self.private(seat, "reminder", left)]
            case Pinged():
                return self.ping(event)
            case PingDone(seat=seat):
                uid = live.seats[seat]
                return [] if uid is None else [Delete(uid, ping_key(live.game_id, seat))]
            case Cancelled():
                return self.cancelled()
            case Called(user_id=user_id, lang=lang):
                text, markup = call_message(partial(self.scene.texts, lang), live)
                return [Send(user_id, text, markup)]
            case VotersReminded(seats=seats, left=left):
                return [self.private(s, "claim-vote-reminder", left) for s in seats]
        return claim_messages(event, live, tr, self.person)

    def private(self, seat: int, key: str, left: float) -> Send:
        """A line to the seat's person about their group, with the time left."""
        uid = self.live.seats[seat]
        assert uid is not None
        ut = self.person(uid)
        return Send(uid, ut(key, group=esc(self.live.chat_title), left=duration(ut, left)))

    def hand_closed(self, closed: HandClosed) -> list[Message]:
        """The group's result of the hand (its record under it), and each
        player's hand message kept as the hand's last trick and side's result."""
        live, tr, line = self.live, self.group, closed.line
        text = hand_result(tr, live, line, closed.last, self.standing)
        out: list[Message] = [self.note(text, record_button(tr, live.table_id, line["hand"]))]
        for seat, uid in live.humans():
            if seat not in live.blocked:
                ut = self.person(uid)
                text = private_hand_result(ut, live, line, seat, closed.last, self.standing)
                out.append(Put(uid, hand_key(live.game_id, closed.hand_no, seat), text))
        return out

    def game_over(self, over: GameOver) -> list[Message]:
        """The group's final note (the rematch, the calls) and each player's result."""
        live, tr, v = self.live, self.group, self.public
        text = game_over(tr, live, v, self.standing)
        out: list[Message] = [self.note(text, over_keyboard(tr, live))]
        for seat, uid in live.humans():
            if seat not in live.blocked:
                ut = self.person(uid)
                text = private_result(ut, live, over.results[seat], v, self.standing)
                out.append(Send(uid, text, rematch_keyboard(ut, live)))
        return out

    def ping(self, ping: Pinged) -> list[Message]:
        """The ping, replacing an older one: a new message notifies, an edit would not."""
        live = self.live
        uid = live.seats[ping.seat]
        assert uid is not None
        ut = self.person(uid)
        key = ping_key(live.game_id, ping.seat)
        markup = keyboard([[button(ut("btn-to-hand"), HandCb.packed(t=live.table_id))]])
        left = duration(ut, ping.left)
        text = ut("turn-ping", group=esc(live.chat_title), left=left)
        return [Delete(uid, key), Send(uid, text, markup, key)]

    def cancelled(self) -> list[Message]:
        live = self.live
        key = table_key(live.table_id)
        out: list[Message] = [
            Put(live.chat_id, key, self.group("table-cancelled"), thread=live.thread_id)
        ]
        if live.game is not None:
            hand_no = self.public.hand_no
            for seat, uid in live.humans():
                text = self.person(uid)("hand-cancelled")
                out.append(Put(uid, hand_key(live.game_id, hand_no, seat), text))
        return out
