"""The game in a terminal, against the computer: a client of the engine like
the bot, reading the bot's words from ``locales/`` (so it lives outside the
stdlib-only ``engine`` package). Run: ``python -m terminal``."""
