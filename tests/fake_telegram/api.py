"""Validation the Bot API methods share, and the decoding of request parameters.

:class:`BotApi` holds what several methods check the same way (text and
entities, inline keyboards, the message an edit targets, reply targets);
the methods themselves are in ``methods.py``.  Transport matters (long
polling, faults, rate limits, recording) are the server's business;
getUpdates therefore lives in ``delivery.py``.
"""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any

import aiogram.methods
from aiogram.methods.base import TelegramMethod

from . import errors
from .errors import ApiError, bad_request
from .markup import parse_failure, parse_html, trim
from .methods import lookup
from .models import FakeChat, FakeMessage, MessageVersion
from .world import World

MAX_TEXT = 4096
MAX_CALLBACK_DATA_BYTES = 64

_JSON_FIELDS = frozenset(
    {
        "reply_markup",
        "entities",
        "caption_entities",
        "allowed_updates",
        "commands",
        "scope",
        "menu_button",
        "reply_parameters",
        "link_preview_options",
        "message_ids",
        "results",
        "button",
    }
)
_INT_FIELDS = frozenset(
    {
        "chat_id",
        "from_chat_id",
        "message_id",
        "offset",
        "limit",
        "timeout",
        "cache_time",
        "reply_to_message_id",
        "user_id",
        "message_thread_id",
        "until_date",
    }
)
_BOOL_FIELDS = frozenset(
    {
        "show_alert",
        "disable_notification",
        "drop_pending_updates",
        "protect_content",
        "allow_sending_without_reply",
        "disable_web_page_preview",
        "only_if_banned",
        "revoke_messages",
        "is_personal",
    }
)
_BUTTON_ACTIONS = frozenset(
    {
        "callback_data",
        "url",
        "login_url",
        "switch_inline_query",
        "switch_inline_query_current_chat",
        "switch_inline_query_chosen_chat",
        "callback_game",
        "pay",
        "web_app",
        "copy_text",
    }
)
_BUTTON_URL_RE = re.compile(r"^(?:https?|tg)://\S+$", re.I)
_SCOPES_WITH_CHAT = frozenset({"chat", "chat_administrators", "chat_member"})

#: Every method name the real Bot API knows (taken from aiogram), to tell a
#: typo (404 as on Telegram) from a real method this fake does not implement.
REAL_METHODS: frozenset[str] = frozenset(
    cls.__api_method__.lower()
    for cls in vars(aiogram.methods).values()
    if isinstance(cls, type)
    and issubclass(cls, TelegramMethod)
    and isinstance(getattr(cls, "__api_method__", None), str)
)


def decode_params(raw: dict[str, Any]) -> dict[str, Any]:
    """Turn form fields (all strings on the wire) into Python values.

    aiogram sends scalars as text and objects as JSON strings; a value that
    fails to decode is kept as the raw string so the handler can answer with
    the error Telegram gives for it.
    """
    params: dict[str, Any] = {}
    for key, value in raw.items():
        if isinstance(value, str):
            if key in _JSON_FIELDS:
                with contextlib.suppress(ValueError):
                    value = json.loads(value)
            elif key in _INT_FIELDS:
                with contextlib.suppress(ValueError):
                    value = int(value)
            elif key in _BOOL_FIELDS:
                value = value.lower() in {"true", "1"}
        params[key] = value
    return params


class BotApi:
    """Implementations of the Bot API methods over a :class:`World`.

    ``strict_html`` is forwarded to the HTML parser (see
    :func:`~.markup.parse_html`).
    """

    def __init__(self, world: World) -> None:
        self.world = world
        self.strict_html = True

    async def call(self, method: str, params: dict[str, Any]) -> Any:
        entry = lookup(method)
        if entry is None:
            raise ApiError(404, errors.METHOD_NOT_FOUND)
        return entry[1](self, params)

    # ------------------------------------------------------------- validation

    def prepare_text(
        self, params: dict[str, Any], *, editing: bool
    ) -> tuple[str, list[dict[str, Any]], str, str | None]:
        """``(plain text, entities, raw text, parse_mode)`` or Telegram's 400.

        The length limit applies after entity parsing and trimming, like on
        Telegram, so markup does not count against the 4096 characters.
        """
        raw = params.get("text")
        if raw is None or raw == "":
            raise bad_request(errors.TEXT_EMPTY)
        raw = str(raw)
        parse_mode = params.get("parse_mode") or None
        if "entities" in params:
            entities = params["entities"]
            if not isinstance(entities, list) or not all(isinstance(e, dict) for e in entities):
                raise bad_request(errors.BAD_ENTITIES_JSON)
            plain = raw
        elif parse_mode is not None:
            mode = str(parse_mode).lower()
            if mode == "html":
                plain, entities = parse_html(raw, strict_ampersand=self.strict_html)
            elif mode in {"markdown", "markdownv2"}:
                raise parse_failure(
                    f"the fake Telegram implements only the HTML parse mode, not {parse_mode}"
                )
            else:
                raise bad_request(errors.UNSUPPORTED_PARSE_MODE)
        else:
            plain, entities = raw, []
        plain, entities = trim(plain, entities)
        if not plain:
            raise bad_request(errors.TEXT_EMPTY)
        if len(plain) > MAX_TEXT:
            raise bad_request(errors.EDIT_TEXT_TOO_LONG if editing else errors.TEXT_TOO_LONG)
        return plain, entities, raw, parse_mode

    def prepare_markup(self, raw: Any, *, inline_only: bool) -> dict[str, Any] | None:
        """Validate reply_markup like Telegram; an empty inline keyboard means none."""
        if raw is None or raw == "":
            return None
        if not isinstance(raw, dict):
            raise bad_request(errors.BAD_MARKUP)
        if "inline_keyboard" not in raw:
            if inline_only or not ({"keyboard", "remove_keyboard", "force_reply"} & raw.keys()):
                raise bad_request(errors.BAD_MARKUP)
            return raw
        rows = raw["inline_keyboard"]
        if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
            raise bad_request(errors.BAD_MARKUP)
        clean_rows: list[list[dict[str, Any]]] = []
        for row in rows:
            clean_row = [self.check_button(button) for button in row]
            if clean_row:
                clean_rows.append(clean_row)
        return {"inline_keyboard": clean_rows} if clean_rows else None

    def check_button(self, button: Any) -> dict[str, Any]:
        if not isinstance(button, dict) or not isinstance(button.get("text"), str):
            raise bad_request(
                "Bad Request: can't parse inline keyboard button: "
                'Field "text" must be of type String'
            )
        clean = {k: v for k, v in button.items() if v is not None}
        if "callback_data" in clean:
            data = clean["callback_data"]
            if (
                not isinstance(data, str)
                or not data
                or len(data.encode("utf-8")) > MAX_CALLBACK_DATA_BYTES
            ):
                raise bad_request(errors.BUTTON_DATA_INVALID)
        elif "url" in clean:
            if not isinstance(clean["url"], str) or not _BUTTON_URL_RE.match(clean["url"]):
                raise bad_request(errors.BUTTON_URL_INVALID)
        elif not (_BUTTON_ACTIONS & clean.keys()):
            raise bad_request(errors.TEXT_BUTTONS_UNALLOWED)
        return clean

    def message_for_edit(self, params: dict[str, Any], missing: str) -> FakeMessage:
        if params.get("inline_message_id"):
            raise bad_request("Bad Request: MESSAGE_ID_INVALID")
        chat = self.world.access(params.get("chat_id"), write=True)
        if params.get("message_id") in (None, ""):
            raise bad_request(errors.MESSAGE_ID_MISSING)
        message = self.world.live_message(chat, params["message_id"])
        if message is None:
            raise bad_request(missing)
        return message

    def apply_edit(
        self,
        message: FakeMessage,
        *,
        text: str,
        html: str | None,
        parse_mode: str | None,
        entities: list[dict[str, Any]],
        markup: dict[str, Any] | None,
    ) -> dict[str, Any]:
        """Change a bot message, refusing a no-op with Telegram's "not modified"."""
        if not message.from_bot:
            raise bad_request(errors.CANT_EDIT)
        if (
            text == message.text
            and entities == message.entities
            and markup == message.inline_keyboard
        ):
            raise bad_request(errors.NOT_MODIFIED)
        message.history.append(
            MessageVersion(
                text=message.text,
                html=message.html,
                entities=message.entities,
                reply_markup=message.reply_markup,
                date=self.world.now(),
            )
        )
        message.text, message.html, message.parse_mode = text, html, parse_mode
        message.entities = entities
        message.reply_markup = markup
        message.edits += 1
        message.edit_date = int(self.world.now())
        self.world.on_change()
        return message.to_api()

    def reply_target(self, chat: FakeChat, params: dict[str, Any]) -> FakeMessage | None:
        reply = params.get("reply_parameters")
        allow_missing = bool(params.get("allow_sending_without_reply"))
        if isinstance(reply, dict):
            reply_id = reply.get("message_id")
            allow_missing = allow_missing or bool(reply.get("allow_sending_without_reply"))
            if reply.get("chat_id") not in (None, chat.id):
                reply_chat = self.world.resolve_chat(reply["chat_id"])
                target = self.world.live_message(reply_chat, reply_id)
                if target is None and not allow_missing:
                    raise bad_request(errors.REPLY_NOT_FOUND)
                return target
        else:
            reply_id = params.get("reply_to_message_id")
        if reply_id in (None, ""):
            return None
        target = self.world.live_message(chat, reply_id)
        if target is None and not allow_missing:
            raise bad_request(errors.REPLY_NOT_FOUND)
        return target

    def send_target(
        self, chat: FakeChat, params: dict[str, Any]
    ) -> tuple[int | None, FakeMessage | None]:
        """Where a new message goes: ``(forum topic or None for General, replied message)``.

        In a forum, ``message_thread_id`` must name a live topic ("message
        thread not found" otherwise: a deleted topic, General's id 1, the root
        of a reply thread) that is open (``TOPIC_CLOSED``; admins with
        can_manage_topics may still write there, a right this fake never
        gives the bot).  Without it, a reply goes into the replied message's
        topic, as Telegram infers it.  Outside forums ``message_thread_id``
        is ignored.  A reply to a message of another topic than the one named
        is kept as a plain reply (Telegram would show it as ``external_reply``).
        """
        thread_id: int | None = None
        raw = params.get("message_thread_id")
        explicit = chat.is_forum and raw not in (None, "", 0)
        if explicit:
            topic = chat.topics.get(raw) if isinstance(raw, int) else None
            if topic is None or topic.deleted:
                raise bad_request(errors.THREAD_NOT_FOUND)
            if topic.closed:
                raise bad_request(errors.TOPIC_CLOSED)
            thread_id = topic.thread_id
        reply_to = self.reply_target(chat, params)
        if (
            not explicit
            and reply_to is not None
            and reply_to.chat is chat
            and reply_to.thread_id is not None
        ):
            if chat.topics[reply_to.thread_id].closed:
                raise bad_request(errors.TOPIC_CLOSED)
            thread_id = reply_to.thread_id
        return thread_id, reply_to

    def user_id_param(self, params: dict[str, Any]) -> int:
        value = params.get("user_id")
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise bad_request(errors.INVALID_USER_ID)
        return value

    def scope_key(self, params: dict[str, Any]) -> tuple[str, str]:
        scope = params.get("scope") or {"type": "default"}
        if not isinstance(scope, dict) or "type" not in scope:
            raise bad_request("Bad Request: can't parse BotCommandScope JSON object")
        if scope["type"] in _SCOPES_WITH_CHAT:
            self.world.resolve_chat(scope.get("chat_id"))
        return json.dumps(scope, sort_keys=True), str(params.get("language_code") or "")
