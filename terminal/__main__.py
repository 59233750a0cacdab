"""``python -m terminal``: play Spades in the terminal against the computer."""

from __future__ import annotations

import argparse
import sys

from engine.ai import LEVELS
from engine.rules import PRESETS
from terminal.game import run
from terminal.texts import LANGS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m terminal", description=__doc__)
    parser.add_argument("--level", choices=LEVELS, default="master")
    parser.add_argument("--preset", choices=sorted(PRESETS), default="classic")
    parser.add_argument("--players", type=int, default=4, choices=(3, 4, 5, 6))
    parser.add_argument("--seed", type=int, default=None, help="deal seed (random by default)")
    parser.add_argument("--hands", type=int, default=0, help="stop after this many hands (0: all)")
    parser.add_argument("--seat", type=int, default=0, help="your seat")
    parser.add_argument("--lang", choices=LANGS, default="ru")
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
