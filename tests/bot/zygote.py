"""A fork server for ``python -m bot``: the tests' bot processes are forked from it.

A fresh ``python -m bot`` spends five to seven seconds of CPU importing (most
of it aiogram building its pydantic models) before it does anything; tests
that kill the bot and start it again ten times spend most of their time
there. This process imports the bot (and parses its locales) once and waits;
for each start it forks, and the child takes the start's environment,
working directory, arguments and standard streams and runs them exactly as
``python -m MODULE`` (``runpy``, as ``__main__``) or ``python -c CODE`` does,
in a process of its own that a test may SIGKILL.

One zygote serves a whole test session: the workers (``pytest -n``) connect
to it on a Unix socket in the abstract namespace (bot_processes.Zygote starts
it under a lock when the first of them needs it), and it ends with the
session's process (``OWNER``, watched through a pidfd), killing whatever it
forked that still runs.

Requests are one packet each (``SOCK_SEQPACKET``): JSON with ``argv`` (what
follows ``python``: ``["-m", "bot"]``, ``["-c", code, ...]``), ``env``,
``cwd`` and ``fds`` (which of ``stdin``/``stdout``/``stderr`` the packet's
file descriptors are, in that order; the others are /dev/null). Answers, one
packet each: ``pid N`` with the child's pidfd attached (opened before anyone
could reap the child: no reused pid can fool it), and ``exit N CODE`` when it
has ended (``CODE`` negative for a signal, as ``subprocess`` has it).

Run as ``python tests/bot/zygote.py NAME OWNER`` from the checkout's root;
it writes ``ready`` to stdout once it listens.
"""

from __future__ import annotations

import contextlib
import json
import os
import runpy
import select
import signal
import socket
import sys
import threading
import types
from pathlib import Path
from typing import Any, NoReturn

ROOT = Path(__file__).resolve().parents[2]
STREAMS = ("stdin", "stdout", "stderr")

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


def become(request: dict[str, Any], fds: list[int], inherited: list[int]) -> NoReturn:
    """In the forked child: ``python *argv`` with the request's settings."""
    for fd in inherited:  # the zygote's sockets and pidfd: not the program's
        os.close(fd)
    given = dict(zip(request["fds"], fds, strict=True))
    null = os.open(os.devnull, os.O_RDWR)
    for target, name in enumerate(STREAMS):
        os.dup2(given.get(name, null), target)
    for fd in {null, *fds}:
        os.close(fd)
    os.environ.clear()
    os.environ.update(request["env"])
    os.chdir(request["cwd"])
    option, what, *rest = request["argv"]
    # An exception (SystemExit or the program's own) ends this process as it
    # would end `python`: nothing of the zygote's loop runs in the child again.
    if option == "-m":
        sys.argv = [what, *rest]  # runpy puts the module's file first
        runpy.run_module(what, run_name="__main__", alter_sys=True)
    elif option == "-c":
        sys.argv = ["-c", *rest]
        main = types.ModuleType("__main__")
        sys.modules["__main__"] = main
        exec(compile(what, "<string>", "exec"), main.__dict__)
    else:
        raise SystemExit(f"zygote: unknown option {option!r}")
    sys.exit(0)


def serve(listener: socket.socket, owner: int) -> None:
    """Fork for each request until the owner process ends."""
    clients: list[socket.socket] = []
    children: dict[int, socket.socket] = {}  # pid: whose request it was
    while True:
        waiting: list[socket.socket | int] = [listener, owner, *clients]
        ready, _, _ = select.select(waiting, [], [], 0.05 if children else None)
        while children:  # reap, and say who ended how
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            tell(children.pop(pid), f"exit {pid} {os.waitstatus_to_exitcode(status)}")
        if owner in ready:  # the test session is over: no bot outlives it
            for pid in children:
                os.kill(pid, signal.SIGKILL)
            return
        if listener in ready:
            clients.append(listener.accept()[0])
        for client in [c for c in clients if c in ready]:
            data, fds, _, _ = socket.recv_fds(client, 1 << 20, len(STREAMS))
            if not data:  # a test process is done (or died): so are its bots
                clients.remove(client)
                client.close()
                for pid, whose in children.items():
                    if whose is client:
                        os.kill(pid, signal.SIGKILL)
                continue
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                inherited = [listener.fileno(), owner, *(c.fileno() for c in clients)]
                become(json.loads(data), fds, inherited)
            for fd in fds:
                os.close(fd)
            pidfd = os.pidfd_open(pid)
            children[pid] = client
            with contextlib.suppress(OSError):  # gone meanwhile: its end is read next round
                socket.send_fds(client, [f"pid {pid}".encode()], [pidfd])
            os.close(pidfd)


def tell(client: socket.socket, answer: str) -> None:
    with contextlib.suppress(OSError):  # the test process is gone
        client.send(answer.encode())


def main(name: str, owner_pid: int) -> None:
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
    owner = os.pidfd_open(owner_pid)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind("\0" + name)
    listener.listen(64)
    os.write(1, b"ready\n")
    serve(listener, owner)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
