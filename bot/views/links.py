"""Where the Mini App opens: the private hand's button and the group's link."""

from __future__ import annotations

from urllib.parse import quote


def table_url(webapp_url: str, table_id: int) -> str:
    """The page for one table (the ``web_app`` button of the private hand)."""
    return f"{webapp_url}/?t={table_id}"


def group_link(bot_username: str, short_name: str, table_id: int) -> str:
    """``t.me/<bot>/<app>?startapp=t<id>``: groups may not carry ``web_app``
    buttons, but a link to the app registered with @BotFather opens it in
    Telegram, with the table in ``start_param``."""
    return f"https://t.me/{quote(bot_username)}/{quote(short_name)}?startapp=t{table_id}"
