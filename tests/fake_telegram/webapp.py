"""What Telegram does for a Mini App, for tests and bench/: sign ``initData``
with the bot token (Telegram's algorithm, written out here rather than taken
from the code under test) and find the page a ``web_app`` button opens."""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import socket
from urllib.parse import parse_qs, urlencode, urlsplit

from .models import FakeMessage, FakeUser

#: Ports handed to servers the tests start: below Linux's ephemeral range
#: (32768-60999), which every outgoing connection draws from, so that no
#: client socket of another test can take the port between this check and
#: the server's bind (a port the kernel picks is in that range).
PORTS = range(20000, 32000)


def free_port() -> int:
    """A port free now, outside the ephemeral range."""
    for port in random.sample(PORTS, 200):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port in the test range")


def sign_init_data(
    token: str,
    user: FakeUser,
    auth_date: float,
    *,
    start_param: str | None = None,
    extra: dict[str, str] | None = None,
) -> str:
    """``initData`` as Telegram hands it to a Mini App opened by ``user``."""
    fields = {
        "query_id": "AAHdF6IQAAAAAN0XohDhrOrc",
        "user": json.dumps(
            {
                "id": user.id,
                "first_name": user.first_name,
                "language_code": user.language_code or "ru",
                "allows_write_to_pm": True,
            },
            ensure_ascii=False,
            separators=(",", ":"),
        ),
        "auth_date": str(int(auth_date)),
        **({"start_param": start_param} if start_param else {}),
        **(extra or {}),
    }
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    secret = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    fields["hash"] = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    return urlencode(fields)


def web_app_url(message: FakeMessage) -> str | None:
    """The ``web_app`` button's page on a bot message, if it has one."""
    markup = message.inline_keyboard or {"inline_keyboard": []}
    for row in markup["inline_keyboard"]:
        for button in row:
            if "web_app" in button:
                return str(button["web_app"]["url"])
    return None


def table_of_url(url: str) -> int:
    """The table a «🃏 Стол» button's page opens (its ``?t=``)."""
    return int(parse_qs(urlsplit(url).query)["t"][0])
