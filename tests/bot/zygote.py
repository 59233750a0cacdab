"""A fork server for ``python -m bot``: ``harness.BotProcess`` starts bots by it.

A fresh ``python -m bot`` spends about three seconds of CPU importing (most of
it aiogram building its pydantic models) before it does anything; tests that
kill the bot and start it again ten times spend most of their time there. This
process imports the bot (and parses its locales) once and waits; for each start it forks, and the
child takes the start's environment, working directory and stderr and runs
``bot`` exactly as ``python -m bot`` does (``runpy``: ``bot/__main__.py`` as
``__main__``, then ``sys.exit(main())``), in a process of its own that a test
may SIGKILL.

Requests come on stdin, one JSON object a line: ``env``, ``cwd`` and
``stderr`` (a file to append to), and ``module`` when the start is another
of the bot's commands (``bot.health``: ``python -m bot.health``). Answers go to stdout: ``ready`` once the
imports are done, ``pid N`` for each start, ``exit N CODE`` when a child has
ended (``CODE`` negative for a signal, as ``subprocess`` has it).

Run as ``python tests/bot/zygote.py`` from the checkout's root.
"""

from __future__ import annotations

import json
import os
import runpy
import select
import sys
import threading
from pathlib import Path
from typing import Any, NoReturn

ROOT = Path(__file__).resolve().parents[2]

#: aiogram's answer models, held (``hold_answer_models``).
ANSWER_MODELS: list[type] = []


def hold_answer_models() -> None:
    """aiogram reads each answer of the Bot API as ``Response[T]``, a class
    pydantic builds on first use and keeps only weakly: each collection of
    the old generation frees them, and the next calls build them again
    (~3 ms of CPU each, two seconds in a long test). Held here for the
    process (the tests' and the bots this zygote forks), all 41 of them in
    ~0.15 s; the bot itself keeps aiogram's plain way (#48)."""
    import inspect

    from aiogram import methods

    if not ANSWER_MODELS:
        ANSWER_MODELS.extend(
            methods.Response[kind.__returning__]
            for kind in vars(methods).values()
            if inspect.isclass(kind)
            and issubclass(kind, methods.TelegramMethod)
            and kind is not methods.TelegramMethod
        )


def become_bot(request: dict[str, Any]) -> NoReturn:
    """In the forked child: ``python -m bot`` (or ``-m`` the request's
    ``module``) with the request's settings."""
    err = os.open(request["stderr"], os.O_WRONLY | os.O_APPEND)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)  # the requests' pipe: not the bot's
    os.dup2(null, 1)  # the answers' pipe, likewise
    os.dup2(err, 2)
    os.close(null)
    os.close(err)
    os.environ.clear()
    os.environ.update(request["env"])
    os.chdir(request["cwd"])
    # SystemExit (or the bot's own exception) ends this process as it would
    # end `python -m bot`: nothing of the loop below runs in the child again.
    runpy.run_module(request.get("module", "bot"), run_name="__main__", alter_sys=True)
    sys.exit(0)


def serve() -> None:
    children: set[int] = set()
    pending = b""
    while True:
        ready, _, _ = select.select([0], [], [], 0.05 if children else None)
        while children:  # reap, and say who ended how
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                children.clear()
                break
            if pid == 0:
                break
            children.discard(pid)
            os.write(1, f"exit {pid} {os.waitstatus_to_exitcode(status)}\n".encode())
        if not ready:
            continue
        data = os.read(0, 1 << 20)
        if not data:
            return  # the tests are done with us
        pending += data
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            request = json.loads(line)
            pid = os.fork()
            if pid == 0:
                become_bot(request)
            children.add(pid)
            os.write(1, f"pid {pid}\n".encode())


if __name__ == "__main__":
    sys.path[0] = str(ROOT)  # as `python -m bot` run there has it (not this script's folder)
    import bot
    import bot.__main__  # noqa: F401  (every import a start makes, made once here)
    from bot.i18n import make_core

    # The locales parsed once here too (bot/i18n.py keeps them for the process):
    # parsing is most of a start's CPU after the imports.
    make_core().find_locales()
    hold_answer_models()

    # What a start runs, it runs afresh (as `python -m bot` does: its imports made).
    del sys.modules["bot.__main__"], bot.__main__
    # Forking is only safe with one thread: the imports must not have started any.
    assert threading.active_count() == 1, threading.enumerate()
    os.write(1, b"ready\n")
    serve()
