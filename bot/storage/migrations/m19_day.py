"""Migration 19: «Сдача дня» (issue #49). A group that has it on
(``day_groups``: its opening minute, the moment its next day opens), the
deal of each date shared by every group (``day_deals``: fixed before any
group's day opens, never recomputed), a group's day (``days``: its link's
secret, when it opens and closes), a person's play of a date (``day_plays``,
once per date whichever group's link they came by) and its moves, one row
each (``day_moves``: a move acknowledged is committed), and the computer's
decisions of a date by the moves before them (``day_decisions``: the same
play meets the same decision, for everyone)."""

STEPS = (
    """CREATE TABLE day_groups(
        chat_id INTEGER PRIMARY KEY,
        enabled INTEGER NOT NULL DEFAULT 1,
        open_minute INTEGER NOT NULL DEFAULT 540,
        title TEXT NOT NULL DEFAULT '',
        lang TEXT NOT NULL DEFAULT 'ru',
        thread_id INTEGER NOT NULL DEFAULT 0,
        next_at REAL
    )""",
    "CREATE INDEX day_groups_next ON day_groups(next_at) WHERE next_at IS NOT NULL",
    """CREATE TABLE day_deals(
        date TEXT PRIMARY KEY,
        seed INTEGER NOT NULL,
        dealer INTEGER NOT NULL,
        seat INTEGER NOT NULL
    )""",
    """CREATE TABLE days(
        day_id INTEGER PRIMARY KEY AUTOINCREMENT,
        chat_id INTEGER NOT NULL,
        date TEXT NOT NULL,
        key TEXT NOT NULL,
        opens_at REAL NOT NULL,
        closes_at REAL NOT NULL,
        closed INTEGER NOT NULL DEFAULT 0,
        UNIQUE(chat_id, date)
    )""",
    "CREATE INDEX days_to_close ON days(closes_at) WHERE closed = 0",
    """CREATE TABLE day_plays(
        date TEXT NOT NULL,
        user_id INTEGER NOT NULL,
        day_id INTEGER NOT NULL,
        started_at REAL NOT NULL,
        finished_at REAL,
        bid INTEGER,
        tricks INTEGER,
        score INTEGER,
        PRIMARY KEY(date, user_id)
    )""",
    "CREATE INDEX day_plays_day ON day_plays(day_id)",
    """CREATE TABLE day_moves(
        date TEXT NOT NULL,
        user_id INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        action INTEGER NOT NULL,
        PRIMARY KEY(date, user_id, seq)
    )""",
    """CREATE TABLE day_decisions(
        date TEXT NOT NULL,
        history TEXT NOT NULL,
        action INTEGER NOT NULL,
        PRIMARY KEY(date, history)
    )""",
)
