"""The Bot API methods the fake implements, with Telegram's validation and errors.

Each handler takes the decoded request parameters and returns the ``result``
Telegram would send, or raises :class:`~.errors.ApiError`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from . import errors
from .errors import ApiError, bad_request

if TYPE_CHECKING:
    from .api import BotApi

MAX_ALERT = 200
#: A callback query must be answered within this many seconds of the press.
CALLBACK_TTL = 15.0
#: Telegram refuses to delete messages older than this (seconds).
DELETE_WINDOW = 48 * 3600
_CHAT_ACTIONS = frozenset(
    {
        "typing",
        "upload_photo",
        "record_video",
        "upload_video",
        "record_voice",
        "upload_voice",
        "upload_document",
        "choose_sticker",
        "find_location",
        "record_video_note",
        "upload_video_note",
    }
)
_BOT_COMMAND_RE = re.compile(r"^[a-z0-9_]{1,32}$")


Handler = Callable[["BotApi", dict[str, Any]], Any]
H = TypeVar("H", bound=Handler)
_HANDLERS: dict[str, tuple[str, Handler]] = {}


def api_method(name: str) -> Callable[[H], H]:
    """Register a handler under its Bot API name (looked up case-insensitively)."""

    def register(func: H) -> H:
        _HANDLERS[name.lower()] = (name, func)
        return func

    return register


def lookup(method: str) -> tuple[str, Handler] | None:
    """``(canonical name, handler)`` for a method name in any letter case."""
    return _HANDLERS.get(method.lower())


# ---------------------------------------------------------------- the methods


@api_method("getMe")
def get_me(api: BotApi, params: dict[str, Any]) -> dict[str, Any]:
    return {
        **api.world.bot.to_api(),
        "can_join_groups": True,
        "can_read_all_group_messages": not api.world.privacy_mode,
        "supports_inline_queries": api.world.inline_mode,
        "can_connect_to_business": False,
        "has_main_web_app": False,
    }


@api_method("sendMessage")
def send_message(api: BotApi, params: dict[str, Any]) -> dict[str, Any]:
    text, entities, raw, parse_mode = api.prepare_text(params, editing=False)
    markup = api.prepare_markup(params.get("reply_markup"), inline_only=False)
    chat = api.world.access(params.get("chat_id"), write=True)
    thread_id, reply_to = api.send_target(chat, params)
    message = api.world.add_message(
        chat,
        api.world.bot,
        text=text,
        html=raw,
        parse_mode=parse_mode,
        entities=entities,
        reply_markup=markup,
        reply_to=reply_to,
        thread_id=thread_id,
    )
    return message.to_api()


# What Telegram takes as a photo upload: PNG or JPEG, up to 10 MB.
_IMAGE_SIGNATURES = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff")
MAX_PHOTO_BYTES = 10 * 1024 * 1024
MAX_CAPTION = 1024


@api_method("sendPhoto")
def send_photo(api: BotApi, params: dict[str, Any]) -> dict[str, Any]:
    """An uploaded picture (multipart, as Telegram needs for a new file) with a caption.

    The file is the ``photo`` part itself, or the part ``photo`` names as
    ``attach://<part>`` (how aiogram uploads it).
    """
    photo = params.get("photo")
    if isinstance(photo, str) and photo.startswith("attach://"):
        photo = params.get(photo.removeprefix("attach://"))
    if not isinstance(photo, bytes) or not photo:
        raise bad_request(errors.PHOTO_MISSING)
    if len(photo) > MAX_PHOTO_BYTES or not photo.startswith(_IMAGE_SIGNATURES):
        raise bad_request(errors.PHOTO_INVALID)
    text, raw = "", ""
    entities: list[dict[str, Any]] = []
    parse_mode: str | None = None
    if params.get("caption"):
        text, entities, raw, parse_mode = api.prepare_text(
            {**params, "text": params["caption"]}, editing=False
        )
        if len(text) > MAX_CAPTION:
            raise bad_request(errors.CAPTION_TOO_LONG)
    markup = api.prepare_markup(params.get("reply_markup"), inline_only=False)
    chat = api.world.access(params.get("chat_id"), write=True)
    thread_id, reply_to = api.send_target(chat, params)
    message = api.world.add_message(
        chat,
        api.world.bot,
        text=text,
        html=raw or None,
        parse_mode=parse_mode,
        entities=entities,
        reply_markup=markup,
        reply_to=reply_to,
        thread_id=thread_id,
    )
    message.photo = photo
    return message.to_api()


@api_method("editMessageText")
def edit_message_text(api: BotApi, params: dict[str, Any]) -> dict[str, Any]:
    text, entities, raw, parse_mode = api.prepare_text(params, editing=True)
    # Omitting reply_markup removes the keyboard: Telegram does not keep it.
    markup = api.prepare_markup(params.get("reply_markup"), inline_only=True)
    message = api.message_for_edit(params, errors.EDIT_NOT_FOUND)
    return api.apply_edit(
        message, text=text, html=raw, parse_mode=parse_mode, entities=entities, markup=markup
    )


@api_method("editMessageReplyMarkup")
def edit_message_reply_markup(api: BotApi, params: dict[str, Any]) -> dict[str, Any]:
    markup = api.prepare_markup(params.get("reply_markup"), inline_only=True)
    message = api.message_for_edit(params, errors.EDIT_NOT_FOUND)
    return api.apply_edit(
        message,
        text=message.text,
        html=message.html,
        parse_mode=message.parse_mode,
        entities=message.entities,
        markup=markup,
    )


@api_method("deleteMessage")
def delete_message(api: BotApi, params: dict[str, Any]) -> bool:
    chat = api.world.access(params.get("chat_id"), write=True)
    if params.get("message_id") in (None, ""):
        raise bad_request(errors.MESSAGE_ID_MISSING)
    message = api.world.live_message(chat, params["message_id"])
    if message is None:
        raise bad_request(errors.DELETE_NOT_FOUND)
    too_old = api.world.now() - message.date > DELETE_WINDOW
    foreign_in_group = not message.from_bot and chat.is_group and not api.world.bot_is_admin(chat)
    # A topic's first message goes only with the whole topic (deleteForumTopic).
    opens_topic = message.message_id in chat.topics
    if too_old or foreign_in_group or opens_topic:
        raise bad_request(errors.CANT_DELETE)
    message.deleted = True
    del chat.messages[message.message_id]
    if message.message_id in chat.pinned:
        chat.pinned.remove(message.message_id)
    api.world.on_change()
    return True


@api_method("answerCallbackQuery")
def answer_callback_query(api: BotApi, params: dict[str, Any]) -> bool:
    pending = api.world.callbacks.get(str(params.get("callback_query_id", "")))
    if pending is None or pending.answered or api.world.now() - pending.created > CALLBACK_TTL:
        raise bad_request(errors.QUERY_TOO_OLD)
    text = params.get("text")
    if isinstance(text, str) and len(text) > MAX_ALERT:
        raise bad_request(errors.ALERT_TOO_LONG)
    pending.answered = True
    answer = {
        "text": text,
        "show_alert": bool(params.get("show_alert", False)),
        "url": params.get("url"),
        "cache_time": params.get("cache_time"),
    }
    if not pending.answer.done():
        pending.answer.set_result(answer)
    api.world.on_change()
    return True


@api_method("setMyCommands")
def set_my_commands(api: BotApi, params: dict[str, Any]) -> bool:
    commands = params.get("commands")
    if not isinstance(commands, list):
        raise bad_request("Bad Request: can't parse commands JSON object")
    clean: list[dict[str, Any]] = []
    for command in commands:
        if not isinstance(command, dict):
            raise bad_request("Bad Request: can't parse BotCommand JSON object")
        name = str(command.get("command", "")).removeprefix("/")
        description = str(command.get("description", ""))
        if not _BOT_COMMAND_RE.match(name):
            raise bad_request(errors.BOT_COMMAND_INVALID)
        if not 1 <= len(description) <= 256:
            raise bad_request("Bad Request: BOT_COMMAND_DESCRIPTION_INVALID")
        clean.append({"command": name, "description": description})
    key = api.scope_key(params)
    if clean:
        api.world.commands[key] = clean
    else:
        api.world.commands.pop(key, None)
    return True


@api_method("getMyCommands")
def get_my_commands(api: BotApi, params: dict[str, Any]) -> list[dict[str, Any]]:
    return list(api.world.commands.get(api.scope_key(params), []))


@api_method("deleteMyCommands")
def delete_my_commands(api: BotApi, params: dict[str, Any]) -> bool:
    api.world.commands.pop(api.scope_key(params), None)
    return True


@api_method("getChat")
def get_chat(api: BotApi, params: dict[str, Any]) -> dict[str, Any]:
    chat = api.world.access(params.get("chat_id"), write=False)
    info: dict[str, Any] = {
        **chat.to_api(),
        "accent_color_id": 0,
        "max_reaction_count": 11,
        "accepted_gift_types": {
            "unlimited_gifts": False,
            "limited_gifts": False,
            "unique_gifts": False,
            "premium_subscription": False,
            "gifts_from_channels": False,
        },
    }
    if chat.pinned:
        info["pinned_message"] = chat.messages[chat.pinned[-1]].to_api()
    if chat.migrated_from is not None:
        info["migrated_from_chat_id"] = chat.migrated_from
    return info


@api_method("getChatMember")
def get_chat_member(api: BotApi, params: dict[str, Any]) -> dict[str, Any]:
    """The member's status; @GroupAnonymousBot and @Channel_Bot are ``left``.

    Those two only stand in ``from`` for an anonymous admin and a channel;
    they are not members of the group, and asked about them Telegram answers
    as for any known user outside the chat: ChatMemberLeft.
    """
    chat = api.world.access(params.get("chat_id"), write=False)
    user_id = api.user_id_param(params)
    user = api.world.known_user(user_id)
    if user is None:
        raise bad_request(errors.USER_NOT_FOUND)
    return api.world.member_object(user, api.world.member_status(chat, user_id))


@api_method("getChatAdministrators")
def get_chat_administrators(api: BotApi, params: dict[str, Any]) -> list[dict[str, Any]]:
    chat = api.world.access(params.get("chat_id"), write=False)
    if not chat.is_group:
        raise bad_request(errors.NO_ADMINS_IN_PRIVATE)
    admins = [
        api.world.member_object(api.world.users[user_id], status)
        for user_id, status in chat.members.items()
        if status in {"creator", "administrator"}
    ]
    if api.world.bot_is_admin(chat):
        admins.append(api.world.member_object(api.world.bot, chat.bot_status))
    return admins


@api_method("sendChatAction")
def send_chat_action(api: BotApi, params: dict[str, Any]) -> bool:
    if params.get("action") not in _CHAT_ACTIONS:
        raise bad_request(errors.WRONG_ACTION)
    api.world.access(params.get("chat_id"), write=True)
    return True


@api_method("pinChatMessage")
def pin_chat_message(api: BotApi, params: dict[str, Any]) -> bool:
    chat = api.world.access(params.get("chat_id"), write=True)
    if chat.is_group and not api.world.bot_is_admin(chat):
        raise bad_request(errors.NO_PIN_RIGHTS)
    message = api.world.live_message(chat, params.get("message_id"))
    if message is None:
        raise bad_request(errors.PIN_NOT_FOUND)
    if message.message_id in chat.pinned:
        chat.pinned.remove(message.message_id)
    chat.pinned.append(message.message_id)
    api.world.on_change()
    return True


@api_method("unpinChatMessage")
def unpin_chat_message(api: BotApi, params: dict[str, Any]) -> bool:
    chat = api.world.access(params.get("chat_id"), write=True)
    if chat.is_group and not api.world.bot_is_admin(chat):
        raise bad_request(errors.NO_PIN_RIGHTS)
    message_id = params.get("message_id")
    if message_id in (None, ""):
        if chat.pinned:
            chat.pinned.pop()
    else:
        if api.world.live_message(chat, message_id) is None:
            raise bad_request("Bad Request: message to unpin not found")
        if message_id in chat.pinned:
            chat.pinned.remove(message_id)
    api.world.on_change()
    return True


@api_method("setChatMenuButton")
def set_chat_menu_button(api: BotApi, params: dict[str, Any]) -> bool:
    chat_id = None
    if params.get("chat_id") not in (None, ""):
        chat_id = api.world.access(params["chat_id"], write=False).id
    button = params.get("menu_button") or {"type": "default"}
    if not isinstance(button, dict) or button.get("type") not in {"default", "commands", "web_app"}:
        raise bad_request("Bad Request: can't parse menu button JSON object")
    api.world.menu_buttons[chat_id] = button
    return True


@api_method("getChatMenuButton")
def get_chat_menu_button(api: BotApi, params: dict[str, Any]) -> dict[str, Any]:
    chat_id = None
    if params.get("chat_id") not in (None, ""):
        chat_id = api.world.access(params["chat_id"], write=False).id
    buttons = api.world.menu_buttons
    return buttons.get(chat_id) or buttons.get(None) or {"type": "default"}


@api_method("setWebhook")
def set_webhook(api: BotApi, params: dict[str, Any]) -> bool:
    """As a local Bot API server (``--local``) does: plain HTTP and any port are fine."""
    url = params.get("url")
    if not isinstance(url, str) or not url:
        return delete_webhook(api, params)
    if not url.startswith(("http://", "https://")):
        raise ApiError(400, errors.BAD_WEBHOOK_URL)
    secret = params.get("secret_token") or ""
    if not isinstance(secret, str) or not re.fullmatch(r"[A-Za-z0-9_-]{0,256}", secret):
        raise ApiError(400, errors.BAD_SECRET_TOKEN)
    allowed = params.get("allowed_updates")
    if isinstance(allowed, list):
        api.world.allowed_updates = frozenset(allowed) if allowed else None
    if params.get("drop_pending_updates"):
        api.world.updates.clear()
    api.world.webhook = {"url": url, "secret_token": secret}
    api.world.on_change()
    return True


@api_method("deleteWebhook")
def delete_webhook(api: BotApi, params: dict[str, Any]) -> bool:
    api.world.webhook = None
    if params.get("drop_pending_updates"):
        api.world.updates.clear()
    api.world.on_change()
    return True


@api_method("getWebhookInfo")
def get_webhook_info(api: BotApi, params: dict[str, Any]) -> dict[str, Any]:
    hook = api.world.webhook
    return {
        "url": hook["url"] if hook else "",
        "has_custom_certificate": False,
        "pending_update_count": len(api.world.updates),
    }


@api_method("close")
def close(api: BotApi, params: dict[str, Any]) -> bool:
    return True


@api_method("logOut")
def log_out(api: BotApi, params: dict[str, Any]) -> bool:
    return True
