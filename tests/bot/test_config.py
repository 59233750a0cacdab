"""Configuration: a clear error without a token, every setting from the environment."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from fake_telegram import FakeTelegram
from harness import bot_env

from bot.config import ConfigError, load_settings

ROOT = Path(__file__).resolve().parents[2]


def test_missing_token_is_a_clear_error(tmp_path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "BOT_TOKEN"}
    result = subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "BOT_TOKEN is not set" in result.stderr and "@BotFather" in result.stderr
    assert "Traceback" not in result.stderr


def test_settings_from_environment(monkeypatch) -> None:
    for name, value in {
        "BOT_TOKEN": "1:x",
        "BOT_API_URL": "http://127.0.0.1:8081",
        "DATABASE_PATH": "/tmp/x.db",
        "LOG_LEVEL": "DEBUG",
        "AI_MOVE_DELAY": "0.5",
        "AI_LEVEL": "amateur",
        "PRESS_LIMIT": "3",
    }.items():
        monkeypatch.setenv(name, value)
    s = load_settings(env_file=None)
    assert s.bot_token.get_secret_value() == "1:x"
    assert (s.bot_api_url, str(s.database_path), s.log_level) == (
        "http://127.0.0.1:8081",
        "/tmp/x.db",
        "DEBUG",
    )
    assert (s.ai_move_delay, s.ai_level, s.press_limit) == (0.5, "amateur", 3)


def test_bad_value_names_the_setting(monkeypatch) -> None:
    monkeypatch.setenv("BOT_TOKEN", "1:x")
    monkeypatch.setenv("AI_MOVE_DELAY", "-1")
    try:
        load_settings(env_file=None)
    except ConfigError as e:
        assert "AI_MOVE_DELAY" in str(e)
    else:
        raise AssertionError("a negative delay was accepted")


async def test_a_token_telegram_refuses_is_a_clear_error(tmp_path) -> None:
    """A wrong token is not waited out like an outage: the bot says so and exits."""
    async with FakeTelegram() as fake:
        env = {**os.environ, **bot_env(fake, tmp_path / "spades.db")}
        env["BOT_TOKEN"] = "1:not-this-bots-token"
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", cwd=ROOT, env=env, stderr=asyncio.subprocess.PIPE
        )
        try:
            async with asyncio.timeout(60):
                _, err = await proc.communicate()
        finally:
            if proc.returncode is None:  # still running: no bot may outlive its test
                proc.kill()
                await proc.wait()
    assert proc.returncode == 2, err.decode()
    assert "BOT_TOKEN" in err.decode() and "Unauthorized" in err.decode()
    assert "Traceback" not in err.decode()
