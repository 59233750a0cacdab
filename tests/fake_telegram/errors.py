"""Bot API errors exactly as Telegram words them.

The bot decides what to do with a failure by the HTTP status and, for some
errors, by the description text or ``parameters`` (aiogram maps
``retry_after`` to ``TelegramRetryAfter`` and ``migrate_to_chat_id`` to
``TelegramMigrateToChat``).  A fake that answered with approximate texts
would let string-matching bugs slip through, so every description used by the
fake lives here, copied from what the real Bot API returns.
"""

from __future__ import annotations

from typing import Any

NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup "
    "are exactly the same as a content and reply markup of the current message"
)
QUERY_TOO_OLD = "Bad Request: query is too old and response timeout expired or query ID is invalid"
# answerInlineQuery's checks of the results and the button above them.
INLINE_RESULTS_JSON = "Bad Request: can't parse inline query results JSON object"
RESULTS_TOO_MUCH = "Bad Request: RESULTS_TOO_MUCH"
RESULT_ID_INVALID = "Bad Request: RESULT_ID_INVALID"
RESULT_ID_DUPLICATE = "Bad Request: RESULT_ID_DUPLICATE"
RESULT_TITLE_EMPTY = "Bad Request: RESULT_TITLE_EMPTY"
NEXT_OFFSET_INVALID = "Bad Request: NEXT_OFFSET_INVALID"
BUTTON_TYPE_INVALID = "Bad Request: BUTTON_TYPE_INVALID"
START_PARAM_INVALID = "Bad Request: START_PARAM_INVALID"
CHAT_NOT_FOUND = "Bad Request: chat not found"
CHAT_ID_EMPTY = "Bad Request: chat_id is empty"
TEXT_EMPTY = "Bad Request: message text is empty"
TEXT_TOO_LONG = "Bad Request: message is too long"
PHOTO_MISSING = "Bad Request: there is no photo in the request"
PHOTO_INVALID = "Bad Request: IMAGE_PROCESS_FAILED"
CAPTION_TOO_LONG = "Bad Request: message caption is too long"
# editMessageText reports an over-long text with the raw MTProto error name.
EDIT_TEXT_TOO_LONG = "Bad Request: MESSAGE_TOO_LONG"
# answerCallbackQuery as well (text is limited to 200 characters).
ALERT_TOO_LONG = "Bad Request: MESSAGE_TOO_LONG"
EDIT_NOT_FOUND = "Bad Request: message to edit not found"
DELETE_NOT_FOUND = "Bad Request: message to delete not found"
PIN_NOT_FOUND = "Bad Request: message to pin not found"
REPLY_NOT_FOUND = "Bad Request: message to be replied not found"
CANT_EDIT = "Bad Request: message can't be edited"
CANT_DELETE = "Bad Request: message can't be deleted"
MESSAGE_ID_MISSING = "Bad Request: message identifier is not specified"
BUTTON_DATA_INVALID = "Bad Request: BUTTON_DATA_INVALID"
BUTTON_URL_INVALID = "Bad Request: BUTTON_URL_INVALID"
TEXT_BUTTONS_UNALLOWED = (
    "Bad Request: can't parse inline keyboard button: "
    "Text buttons are unallowed in the inline keyboard"
)
BAD_MARKUP = "Bad Request: can't parse reply keyboard markup JSON object"
BAD_ENTITIES_JSON = "Bad Request: can't parse entities JSON object"
PARSE_ENTITIES = "Bad Request: can't parse entities: "
UNSUPPORTED_PARSE_MODE = "Bad Request: unsupported parse_mode"
WRONG_ACTION = "Bad Request: wrong parameter action in request"
NO_PIN_RIGHTS = "Bad Request: not enough rights to manage pinned messages in the chat"
NO_ADMINS_IN_PRIVATE = "Bad Request: there are no administrators in the private chat"
USER_NOT_FOUND = "Bad Request: user not found"
INVALID_USER_ID = "Bad Request: invalid user_id specified"
BOT_COMMAND_INVALID = "Bad Request: BOT_COMMAND_INVALID"
# A message_thread_id that names no live forum topic (a deleted one, General's
# id 1, a reply thread's root in a forum), and a topic only admins may write in.
THREAD_NOT_FOUND = "Bad Request: message thread not found"
TOPIC_CLOSED = "Bad Request: TOPIC_CLOSED"
UPGRADED_TO_SUPERGROUP = "Bad Request: group chat was upgraded to a supergroup chat"
CANT_INITIATE = "Forbidden: bot can't initiate conversation with a user"
BLOCKED_BY_USER = "Forbidden: bot was blocked by the user"
USER_DEACTIVATED = "Forbidden: user is deactivated"
KICKED_FROM_GROUP = "Forbidden: bot was kicked from the group chat"
KICKED_FROM_SUPERGROUP = "Forbidden: bot was kicked from the supergroup chat"
NOT_MEMBER_OF_GROUP = "Forbidden: bot is not a member of the group chat"
NOT_MEMBER_OF_SUPERGROUP = "Forbidden: bot is not a member of the supergroup chat"
METHOD_NOT_FOUND = "Not Found: method not found"
UNAUTHORIZED = "Unauthorized"
WEBHOOK_ACTIVE = (
    "Conflict: can't use getUpdates method while webhook is active; "
    "use deleteWebhook to delete the webhook first"
)
BAD_WEBHOOK_URL = "Bad Request: bad webhook: An HTTP URL must be provided for webhook"
BAD_SECRET_TOKEN = "Bad Request: secret token contains unallowed characters"
GET_UPDATES_CONFLICT = (
    "Conflict: terminated by other getUpdates request; "
    "make sure that only one bot instance is running"
)
INTERNAL_SERVER_ERROR = "Internal Server Error"
BAD_GATEWAY = "Bad Gateway"
# What Telegram's nginx front answers when the Bot API backend is down: not JSON
# at all, so the client has to survive a decode error, not just a 5xx.
NGINX_502_HTML = (
    "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
    "<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.18.0</center>\r\n"
    "</body>\r\n</html>\r\n"
)


def too_many_requests(retry_after: int) -> str:
    """Description of a flood-wait answer; Telegram repeats the delay in the text."""
    return f"Too Many Requests: retry after {retry_after}"


class ApiError(Exception):
    """A Bot API failure: the HTTP status doubles as ``error_code`` in the JSON body."""

    def __init__(
        self,
        error_code: int,
        description: str,
        parameters: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(f"{error_code} {description}")
        self.error_code = error_code
        self.description = description
        self.parameters = parameters

    def to_json(self) -> dict[str, Any]:
        """The body Telegram sends for this error."""
        body: dict[str, Any] = {
            "ok": False,
            "error_code": self.error_code,
            "description": self.description,
        }
        if self.parameters:
            body["parameters"] = self.parameters
        return body

    def __repr__(self) -> str:
        return f"ApiError({self.error_code}, {self.description!r}, {self.parameters!r})"


def bad_request(description: str, parameters: dict[str, Any] | None = None) -> ApiError:
    """A 400 answer (``description`` already carries the ``Bad Request:`` prefix)."""
    return ApiError(400, description, parameters)


def forbidden(description: str) -> ApiError:
    """A 403 answer (``description`` already carries the ``Forbidden:`` prefix)."""
    return ApiError(403, description)


def flood_wait(retry_after: int) -> ApiError:
    """A 429 answer; ``parameters.retry_after`` is what aiogram turns into TelegramRetryAfter."""
    return ApiError(429, too_many_requests(retry_after), {"retry_after": retry_after})
