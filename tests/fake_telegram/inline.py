"""Inline mode: a person types ``@bot …`` in a chat (an ``inline_query``
update), the bot answers with ``answerInlineQuery``, the person picks a
result and it goes into that chat as their message ``via_bot`` (with a
``chosen_inline_result`` update when feedback is on).

Telegram's rules kept here: inline mode is off until @BotFather's
``/setinline`` (``fake.world.inline_mode``), and ``chosen_inline_result``
comes only after ``/setinlinefeedback`` (``inline_feedback``); a query must
be answered within about 10 seconds and once; at most 50 results, each id
1–64 bytes and unique; an answer is cached by Telegram for ``cache_time``
seconds (per person with ``is_personal``), and a query that hits the cache
never reaches the bot; ``web_app`` buttons are refused in results (they
belong to the private chat with the bot only).
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import errors
from .errors import bad_request
from .markup import parse_html, trim
from .methods import api_method
from .models import PRESENT, FakeMessage, FakeUser, PendingInline
from .state import ServerState

if TYPE_CHECKING:
    from .api import BotApi

#: Seconds Telegram waits for the bot's answer to an inline query.
INLINE_TTL = 10.0
MAX_RESULTS = 50
MAX_RESULT_ID_BYTES = 64
DEFAULT_CACHE_TIME = 300
_START_PARAMETER = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
CHAT_TYPES = frozenset({"sender", "private", "group", "supergroup", "channel"})


@dataclass
class InlineAsk:
    """One inline query as a test typed it. ``update`` is None when
    Telegram answered from its cache (``cached``) or the bot's
    ``allowed_updates`` left the kind out."""

    query_id: str
    update: dict[str, Any] | None
    cached: dict[str, Any] | None
    _pending: PendingInline | None

    async def answer(self, timeout: float = 5.0) -> dict[str, Any]:
        """The answer's parameters (``results``, ``cache_time``,
        ``is_personal``, ``button``, ``next_offset``), or AssertionError."""
        if self.cached is not None:
            return self.cached
        assert self._pending is not None
        try:
            return await asyncio.wait_for(asyncio.shield(self._pending.answer), timeout)
        except TimeoutError:
            raise AssertionError(
                f"the bot did not answer inline query {self.query_id} within {timeout}s"
            ) from None

    @property
    def answered(self) -> bool:
        return self.cached is not None or (self._pending is not None and self._pending.answered)


@api_method("answerInlineQuery")
def answer_inline_query(api: BotApi, params: dict[str, Any]) -> bool:
    world = api.world
    pending = world.inline_queries.get(str(params.get("inline_query_id", "")))
    if pending is None or pending.answered or world.now() - pending.created > INLINE_TTL:
        raise bad_request(errors.QUERY_TOO_OLD)
    results = params.get("results")
    if not isinstance(results, list) or not all(isinstance(r, dict) for r in results):
        raise bad_request(errors.INLINE_RESULTS_JSON)
    if len(results) > MAX_RESULTS:
        raise bad_request(errors.RESULTS_TOO_MUCH)
    seen: set[str] = set()
    for result in results:
        rid = result.get("id")
        if not isinstance(rid, str) or not rid or len(rid.encode()) > MAX_RESULT_ID_BYTES:
            raise bad_request(errors.RESULT_ID_INVALID)
        if rid in seen:
            raise bad_request(errors.RESULT_ID_DUPLICATE)
        seen.add(rid)
        _check_result(api, result)
    button = params.get("button")
    if button is not None:
        _check_button(button)
    offset = params.get("next_offset") or ""
    if len(str(offset).encode()) > MAX_RESULT_ID_BYTES:
        raise bad_request(errors.NEXT_OFFSET_INVALID)
    raw_cache = params.get("cache_time")
    cache_time = DEFAULT_CACHE_TIME if raw_cache is None else int(raw_cache)
    personal = bool(params.get("is_personal", False))
    answer: dict[str, Any] = {
        "results": results,
        "cache_time": cache_time,
        "is_personal": personal,
        "button": button,
        "next_offset": offset,
        "query": pending.query,
    }
    pending.answered = True
    if cache_time > 0:
        owner = pending.user.id if personal else None
        key = (owner, pending.query, pending.offset)
        world.inline_cache[key] = (world.now() + cache_time, answer)
    if not pending.answer.done():
        pending.answer.set_result(answer)
    world.on_change()
    return True


def _check_result(api: BotApi, result: dict[str, Any]) -> None:
    """An article with a text to send, as this bot answers (other kinds are refused
    as unimplemented rather than passed unchecked)."""
    if result.get("type") != "article":
        raise bad_request(
            f"the fake Telegram checks only article results, not {result.get('type')!r}"
        )
    title = result.get("title")
    if not isinstance(title, str) or not title.strip():
        raise bad_request(errors.RESULT_TITLE_EMPTY)
    content = result.get("input_message_content")
    if not isinstance(content, dict):
        raise bad_request(errors.INLINE_RESULTS_JSON)
    api.prepare_text(
        {"text": content.get("message_text"), "parse_mode": content.get("parse_mode")},
        editing=False,
    )
    markup = api.prepare_markup(result.get("reply_markup"), inline_only=True)
    for row in (markup or {}).get("inline_keyboard", []):
        for button in row:
            if "web_app" in button:
                raise bad_request(errors.BUTTON_TYPE_INVALID)


def _check_button(button: Any) -> None:
    """InlineQueryResultsButton: a text and either a start parameter or a Mini App."""
    if not isinstance(button, dict) or not isinstance(button.get("text"), str):
        raise bad_request(errors.INLINE_RESULTS_JSON)
    start = button.get("start_parameter")
    if ("web_app" in button) == (start is not None):
        raise bad_request(errors.INLINE_RESULTS_JSON)
    if start is not None and not (isinstance(start, str) and _START_PARAMETER.match(start)):
        raise bad_request(errors.START_PARAM_INVALID)


class Inline(ServerState):
    """People typing the bot's name in a chat, and choosing what it offers."""

    async def inline_query(
        self, user: FakeUser, query: str, *, chat_type: str = "sender", offset: str = ""
    ) -> InlineAsk:
        """``user`` types ``@bot query`` in a chat of ``chat_type`` ("sender":
        their private chat with the bot). Telegram answers from its cache
        when it can; otherwise the bot gets an ``inline_query`` update."""
        world = self.world
        if not world.inline_mode:
            raise AssertionError("inline mode is off (@BotFather /setinline): no query is sent")
        if chat_type not in CHAT_TYPES:
            raise AssertionError(f"no chat type {chat_type!r}")
        world.ensure_known(user)
        now = self.now()
        for owner in (user.id, None):
            kept = world.inline_cache.get((owner, query, offset))
            if kept is not None and kept[0] > now:
                return InlineAsk("", None, kept[1], None)
        query_id = str(world.next_inline_id)
        world.next_inline_id += 1
        pending = PendingInline(
            query_id=query_id,
            user=user,
            query=query,
            offset=offset,
            chat_type=chat_type,
            created=now,
            answer=asyncio.get_running_loop().create_future(),
        )
        world.inline_queries[query_id] = pending
        update = world.enqueue(
            "inline_query",
            {
                "id": query_id,
                "from": user.to_api(),
                "query": query,
                "offset": offset,
                "chat_type": chat_type,
            },
        )
        self._bump()
        await asyncio.sleep(0)
        return InlineAsk(query_id, update, None, pending)

    async def choose_inline(
        self, user: FakeUser, answer: dict[str, Any], result_id: str, chat_id: int
    ) -> FakeMessage:
        """``user`` picks the result ``result_id`` of ``answer`` in chat
        ``chat_id`` (a group they are in, or their private chat with the
        bot): the result's text goes there as their message via the bot."""
        world = self.world
        result = next((r for r in answer["results"] if r["id"] == result_id), None)
        if result is None:
            raise AssertionError(
                f"no result {result_id!r} among {[r['id'] for r in answer['results']]}"
            )
        chat = world.chat(chat_id)
        if chat.type == "private":
            if chat.id != user.id:
                raise AssertionError(f"user {user.id} cannot write in the private chat {chat.id}")
        elif chat.members.get(user.id) not in PRESENT:
            raise AssertionError(f"user {user.id} is not a member of {chat.id}")
        content = result["input_message_content"]
        raw = content["message_text"]
        if content.get("parse_mode", "").lower() == "html":
            text, entities = parse_html(raw)
        else:
            text, entities = raw, []
        text, entities = trim(text, entities)
        markup = result.get("reply_markup")
        message = world.add_message(
            chat,
            user,
            text=text,
            entities=entities,
            html=raw if content.get("parse_mode") else None,
            parse_mode=content.get("parse_mode"),
            reply_markup=markup if markup else None,
        )
        message.via_bot = self.bot
        if world.delivered_to_bot(chat, message):
            world.enqueue("message", message.to_api())
        if world.inline_feedback:
            chosen: dict[str, Any] = {
                "result_id": result_id,
                "from": user.to_api(),
                "query": answer.get("query", ""),
            }
            if markup:
                chosen["inline_message_id"] = f"inl-{chat.id}-{message.message_id}"
            world.enqueue("chosen_inline_result", chosen)
        self._bump()
        await asyncio.sleep(0)
        return message
