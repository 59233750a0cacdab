"""The benchmarks, run from the checkout's root as ``python -m bench.<name>``
(docs/benchmarks.md). Not part of the wheel: they measure the checkout they
are run in, and drive the fake Telegram of its tests (``tests/fake_telegram``,
installed with the project as ``fake_telegram``)."""

from pathlib import Path

# The checkout: the bot and the benches' helper processes run from here, so
# that an A/B worktree measures its own code.
ROOT = Path(__file__).resolve().parent.parent
