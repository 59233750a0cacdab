"""Runtime settings, read from the environment and an optional ``.env`` file.

Everything the bot needs to know about its deployment lives here so that the
rest of the code never reads ``os.environ`` directly.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from aiogram.utils.token import TokenValidationError, validate_token
from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class ConfigError(Exception):
    """The configuration cannot start the bot; the message says what to set."""


class Settings(BaseSettings):
    """All knobs of the bot; names match the environment variables (case-insensitive)."""

    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
    )

    bot_token: SecretStr
    bot_api_url: str = Field(default="https://api.telegram.org", pattern=r"^https?://[^/\s]+\S*$")
    database_path: Path = Path("spades.db")
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = "INFO"
    # Seconds a computer move stays visible before the next one is made.
    ai_move_delay: float = Field(default=1.0, ge=0)
    ai_level: Literal["novice", "amateur", "master"] = "master"
    # Processes the computer player thinks in, so a search never holds up the
    # bot's event loop; 0: a thread of the bot's own process.
    ai_workers: int = Field(default_factory=lambda: max(1, (os.cpu_count() or 2) - 1), ge=0)
    # Telegram's limits; a value <= 0 disables that limit (tests do so).
    group_messages_per_minute: int = 20
    private_messages_per_second: float = 1.0
    global_messages_per_second: float = 30.0
    # Button mashing: at most PRESS_LIMIT presses per PRESS_WINDOW seconds per
    # user (0 disables the limit).
    press_limit: int = Field(default=8, ge=0)
    press_window: float = Field(default=3.0, gt=0)
    # Real time: a player whose turn has waited this many seconds gets a
    # message that notifies (edits never do); deleted when they move. 0: off.
    turn_ping_after: float = Field(default=8.0, ge=0)
    # Commands: at most COMMAND_LIMIT per COMMAND_WINDOW seconds per user (0:
    # no limit): enough for a quick check of the game (ten lookups in a row),
    # few enough that one person cannot spend the group's ~20 messages a minute.
    command_limit: int = Field(default=12, ge=0)
    command_window: float = Field(default=20.0, gt=0)
    # Webhook mode: Telegram POSTs updates to this public URL (its path is
    # served); unset: long polling. The bot listens on WEBHOOK_LISTEN:WEBHOOK_PORT
    # behind a TLS proxy. WEBHOOK_SECRET (default: derived from the token)
    # is the header Telegram sends so that nobody else can post updates.
    webhook_url: str | None = Field(default=None, pattern=r"^https?://[^/\s]+(/\S*)?$")
    webhook_listen: str = "0.0.0.0"
    webhook_port: int = Field(default=8080, ge=1, le=65535)
    webhook_secret: SecretStr | None = None
    default_lang: Literal["ru", "en"] = "ru"
    # The clock the groups read deadlines by («до 14:16»): an IANA zone name.
    time_zone: str = "Europe/Moscow"
    # The Mini App (the table drawn in Telegram): WEBAPP_URL is its public
    # HTTPS base, served by the bot itself (with the webhook in webhook mode,
    # else on WEBAPP_LISTEN:WEBAPP_PORT behind a TLS proxy); unset: no app and
    # no button. WEBAPP_SHORT_NAME is the app's short name at @BotFather, for
    # the group's t.me/<bot>/<name>?startapp= link (unset: no link in groups).
    # WEBAPP_AUTH_TTL: seconds Telegram's initData is accepted after the app opened.
    webapp_url: str | None = Field(default=None, pattern=r"^https?://[^/\s?#]+(/[^\s?#]*)?$")
    webapp_listen: str = "0.0.0.0"
    webapp_port: int = Field(default=8080, ge=1, le=65535)
    webapp_short_name: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_]{3,30}$")
    webapp_auth_ttl: float = Field(default=86400.0, gt=0)

    @field_validator("bot_token")
    @classmethod
    def _token_shape(cls, value: SecretStr) -> SecretStr:
        token = value.get_secret_value().strip()
        try:
            if token:
                validate_token(token)  # aiogram's own rule, so Bot() accepts what passes here
        except TokenValidationError:
            raise ValueError(
                "not a bot token; @BotFather gives one like 123456789:AAE-xYz…"
            ) from None
        return SecretStr(token)

    @field_validator("log_level", "default_lang", mode="before")
    @classmethod
    def _any_case(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        value = value.strip()
        return value.upper() if value.upper() in LOG_LEVELS else value.lower()

    @field_validator(
        "webhook_url", "webhook_secret", "webapp_url", "webapp_short_name", mode="before"
    )
    @classmethod
    def _empty_is_unset(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("time_zone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError("an IANA time zone, like Europe/Moscow or UTC") from None
        return value

    @property
    def zone(self) -> ZoneInfo:
        """The time zone deadlines are shown in."""
        return ZoneInfo(self.time_zone)

    @field_validator("webhook_secret")
    @classmethod
    def _telegram_secret(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not re.fullmatch(
            r"[A-Za-z0-9_-]{1,256}", value.get_secret_value()
        ):
            raise ValueError("1-256 characters of A-Z, a-z, 0-9, _ and - (Telegram's rule)")
        return value

    @field_validator("webapp_url")
    @classmethod
    def _webapp_https(cls, value: str | None) -> str | None:
        """Telegram opens Mini Apps over HTTPS only; plain http is for this machine."""
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme != "https" and parts.hostname not in ("127.0.0.1", "localhost", "::1"):
            raise ValueError("Telegram opens Mini Apps only over https://")
        return value.rstrip("/")


def load_settings(env_file: str | Path | None = ".env", **overrides: object) -> Settings:
    """Build :class:`Settings`, turning validation errors into a readable :class:`ConfigError`.

    ``overrides`` win over the environment (handy in tests); ``env_file=None``
    ignores any ``.env`` file.
    """
    try:
        settings = Settings(_env_file=env_file, **overrides)  # type: ignore[call-arg,arg-type]
    except ValidationError as exc:
        problems: list[str] = []
        for err in exc.errors():
            name = ".".join(str(part) for part in err["loc"]).upper()
            if name == "BOT_TOKEN" and err["type"] == "missing":
                raise ConfigError(
                    "BOT_TOKEN is not set. Set the BOT_TOKEN environment variable "
                    "(or add a line BOT_TOKEN=<token> to .env) to the token that "
                    "@BotFather gave you."
                ) from None
            # Not the value itself: it may be a secret (the token, the webhook secret).
            problems.append(f"{name}: {str(err['msg']).removeprefix('Value error, ')}")
        raise ConfigError("Invalid settings: " + "; ".join(problems)) from None
    if not settings.bot_token.get_secret_value().strip():
        raise ConfigError(
            "BOT_TOKEN is empty. Set the BOT_TOKEN environment variable "
            "(or add a line BOT_TOKEN=<token> to .env) to the token that "
            "@BotFather gave you."
        )
    return settings


def webhook_secret(settings: Settings) -> str:
    """WEBHOOK_SECRET, or one derived from the token: stable across restarts,
    unknown to anyone without the token."""
    if settings.webhook_secret is not None:
        return settings.webhook_secret.get_secret_value()
    token = settings.bot_token.get_secret_value().encode()
    return hashlib.sha256(b"piki-webhook:" + token).hexdigest()
