"""``python -m engine replay|agent`` — the engine's command line.

The game in a terminal is ``python -m terminal`` (it reads the bot's locales,
so it lives outside this stdlib-only package)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable

from engine.replay import ReplayError, replay


def _cmd_replay(args: argparse.Namespace) -> int:
    src = sys.stdin if args.file == "-" else open(args.file, encoding="utf-8")  # noqa: SIM115
    with src:
        text = src.read()
    try:
        record = json.loads(text)
    except json.JSONDecodeError as e:
        err = ReplayError(None, None, "bad_record", f"not JSON: {e.msg} at line {e.lineno}")
        print(json.dumps(err.to_json(), ensure_ascii=False))
        return 1
    try:
        result = replay(record, trace=args.trace)
    except ReplayError as e:
        print(json.dumps(e.to_json(), ensure_ascii=False))
        return 1
    print(json.dumps(result, ensure_ascii=False))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("replay", help="score a JSON game record")
    p.add_argument("file", help="record file, or - for standard input")
    p.add_argument("--trace", action="store_true", help="add every step with its legal set")
    p.set_defaults(func=_cmd_replay)
    try:
        from engine.ai.cli import add_commands
    except ImportError:
        pass
    else:
        add_commands(sub)
    args = parser.parse_args(argv)
    command: Callable[[argparse.Namespace], int] = args.func
    return command(args)


if __name__ == "__main__":
    sys.exit(main())
