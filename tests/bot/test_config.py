"""Configuration: a clear error without a token, every setting from the environment."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import pytest
from bot_processes import python
from fake_telegram import FakeTelegram
from harness import MakeBot, bot_env

from bot.config import ConfigError, load_settings

ROOT = Path(__file__).resolve().parents[2]


def run(
    env: dict[str, str], cwd: Path, module: str = "bot", timeout: float = 60
) -> tuple[int, str]:
    """``python -m bot`` (or ``-m module``) with ``env`` in ``cwd`` until it
    exits: its exit code and what it wrote to stderr.

    The process is forked from the zygote (bot_processes.python), which made
    the bot's imports once for the session (a fresh interpreter spends
    seconds of CPU on them); from the module on it is ``python -m``. A fresh
    ``python -m bot`` runs in test_a_relative_database_path_is_where_the_bot_runs,
    as the image starts it.
    """
    with tempfile.TemporaryDirectory(prefix="bot-err-") as folder:
        err = Path(folder) / "stderr"
        with err.open("wb") as sink:
            proc = python(["-m", module], env, cwd, stderr=sink.fileno())
        try:
            code = proc.wait(timeout)
        finally:
            if proc.returncode is None:  # still running: no bot may outlive its test
                proc.kill()
                proc.wait(10)
        return code, err.read_bytes().decode(errors="replace")


def test_missing_token_is_a_clear_error(tmp_path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "BOT_TOKEN"}
    code, err = run(env, tmp_path)
    assert code == 2
    assert "BOT_TOKEN is not set" in err and "@BotFather" in err
    assert "Traceback" not in err


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
        code, err = await asyncio.to_thread(run, env, ROOT)
    assert code == 2, err
    assert "BOT_TOKEN" in err and "Unauthorized" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("BOT_TOKEN", "bad"),
        ("BOT_TOKEN", "123:has space"),
        ("LOG_LEVEL", "verbose"),
        ("BOT_API_URL", "api.telegram.org"),
        ("AI_LEVEL", "god"),
        ("AI_WORKERS", "-1"),
        ("AI_MOVE_DELAY", "soon"),
        ("GROUP_MESSAGES_PER_MINUTE", "many"),
        ("PRIVATE_MESSAGES_PER_SECOND", "fast"),
        ("GLOBAL_MESSAGES_PER_SECOND", "x"),
        ("PRESS_LIMIT", "-3"),
        ("PRESS_WINDOW", "0"),
        ("WEBHOOK_URL", "telegram.example/hook"),
        ("WEBHOOK_PORT", "99999"),
        ("WEBHOOK_SECRET", "has spaces"),
        ("DEFAULT_LANG", "fr"),
    ],
)
def test_every_bad_setting_is_one_line_naming_it(monkeypatch, name: str, value: str) -> None:
    monkeypatch.setenv("BOT_TOKEN", "1:x")
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as caught:
        load_settings(env_file=None)
    text = str(caught.value)
    assert name in text and "\n" not in text, text


def test_settings_read_in_any_case(monkeypatch) -> None:
    monkeypatch.setenv("BOT_TOKEN", " 1:x ")
    monkeypatch.setenv("LOG_LEVEL", "debug")
    monkeypatch.setenv("DEFAULT_LANG", "EN")
    s = load_settings(env_file=None)
    assert (s.bot_token.get_secret_value(), s.log_level, s.default_lang) == ("1:x", "DEBUG", "en")


@pytest.mark.parametrize(("name", "value"), [("BOT_TOKEN", "bad"), ("LOG_LEVEL", "verbose")])
def test_a_bad_setting_exits_2_without_a_traceback(tmp_path, name: str, value: str) -> None:
    env = {**os.environ, "BOT_TOKEN": "1:x", "PYTHONPATH": str(ROOT), name: value}
    code, err = run(env, tmp_path)
    assert code == 2, err
    assert name in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err


def health(db: Path, cwd: Path) -> tuple[int, str]:
    """``python -m bot.health`` as Docker's HEALTHCHECK runs it: exit code, stderr."""
    env = {**os.environ, "BOT_TOKEN": "1:x", "PYTHONPATH": str(ROOT), "DATABASE_PATH": str(db)}
    return run(env, cwd, "bot.health")


@pytest.mark.slow
async def test_the_health_check_reads_the_heartbeat(
    tmp_path, db_path: Path, make_bot: MakeBot
) -> None:
    """Docker's HEALTHCHECK: healthy while the bot beats, not before, not when it stopped."""
    db = db_path
    assert health(db, tmp_path)[0] == 1  # no database yet
    bot = await make_bot()
    code, err = await asyncio.to_thread(health, db, tmp_path)
    assert code == 0, err
    await bot.stop()
    con = sqlite3.connect(db)
    con.execute("UPDATE meta SET value = ? WHERE key = 'heartbeat_at'", (repr(time.time() - 600),))
    con.commit()
    con.close()
    code, err = health(db, tmp_path)
    assert code == 1 and "heartbeat" in err


async def test_a_relative_database_path_is_where_the_bot_runs(tmp_path) -> None:
    """The image runs the bot in /data with the code on PYTHONPATH, so the
    DATABASE_PATH=spades.db of a copied .env.example still lands on the volume.

    The suite's one fresh ``python -m bot`` from start to polling (every other
    bot process is forked from the zygote, its imports made): the command the
    README and the image run, found through PYTHONPATH from another folder,
    which no fork (its imports made already) can show."""
    workdir = tmp_path / "data"
    workdir.mkdir()
    async with FakeTelegram() as fake:
        env = {**os.environ, **bot_env(fake, Path("spades.db")), "PYTHONPATH": str(ROOT)}
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", cwd=workdir, env=env, stderr=asyncio.subprocess.PIPE
        )
        try:
            await fake.wait_for(
                lambda: any(c.method == "getUpdates" for c in fake.calls), timeout=90
            )
        finally:
            proc.terminate()
            await proc.wait()
    assert (workdir / "spades.db").exists()
