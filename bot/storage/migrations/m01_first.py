"""Migration 1, the first schema: people, tables and their seats, games and
the event log of their moves, the outbox and the messages it remembers."""

STEPS = (
    """
    CREATE TABLE users(
        user_id INTEGER PRIMARY KEY,
        first_name TEXT NOT NULL DEFAULT '',
        username TEXT,
        lang TEXT,
        started INTEGER NOT NULL DEFAULT 0,  -- pressed Start in the private chat
        blocked INTEGER NOT NULL DEFAULT 0,  -- Telegram answered 403 for their private chat
        updated_at REAL NOT NULL)
    """,
    """
    CREATE TABLE tables(
        table_id INTEGER PRIMARY KEY AUTOINCREMENT,
        chat_id INTEGER NOT NULL,
        chat_title TEXT NOT NULL DEFAULT '',
        creator_id INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('open', 'playing', 'finished', 'cancelled')),
        rules_json TEXT NOT NULL,
        players INTEGER NOT NULL DEFAULT 4,
        lang TEXT NOT NULL DEFAULT 'ru',
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL)
    """,
    """
    CREATE UNIQUE INDEX one_live_table_per_chat ON tables(chat_id)
        WHERE status IN ('open', 'playing')
    """,
    "CREATE INDEX tables_by_chat ON tables(chat_id)",
    """
    CREATE TABLE seats(
        table_id INTEGER NOT NULL REFERENCES tables(table_id),
        seat INTEGER NOT NULL,
        user_id INTEGER,  -- NULL: the computer
        PRIMARY KEY(table_id, seat))
    """,
    """
    CREATE UNIQUE INDEX one_seat_per_user ON seats(table_id, user_id)
        WHERE user_id IS NOT NULL
    """,
    "CREATE INDEX seats_by_user ON seats(user_id) WHERE user_id IS NOT NULL",
    """
    CREATE TABLE games(
        game_id INTEGER PRIMARY KEY AUTOINCREMENT,
        table_id INTEGER NOT NULL REFERENCES tables(table_id),
        seed INTEGER NOT NULL,
        rules_json TEXT NOT NULL,
        first_dealer INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('playing', 'finished', 'cancelled')),
        seq INTEGER NOT NULL DEFAULT 0,
        state_json TEXT,
        winner INTEGER,
        started_at REAL NOT NULL,
        finished_at REAL)
    """,
    "CREATE INDEX games_by_table ON games(table_id)",
    """
    CREATE UNIQUE INDEX one_live_game_per_table ON games(table_id)
        WHERE status = 'playing'
    """,
    """
    CREATE TABLE actions(
        game_id INTEGER NOT NULL REFERENCES games(game_id),
        seq INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        action INTEGER NOT NULL,
        by_user INTEGER,
        at REAL NOT NULL,
        PRIMARY KEY(game_id, seq))
    """,
    """
    CREATE TABLE messages(
        key TEXT PRIMARY KEY,
        chat_id INTEGER NOT NULL,
        message_id INTEGER NOT NULL)
    """,
    "CREATE INDEX messages_by_chat ON messages(chat_id)",
    """
    CREATE TABLE outbox(
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        chat_id INTEGER NOT NULL,
        op TEXT NOT NULL CHECK (op IN ('put', 'send', 'delete')),
        key TEXT CHECK (op = 'send' OR key IS NOT NULL),
        payload TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending'
            CHECK (status IN ('pending', 'sent', 'superseded', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        not_before REAL NOT NULL DEFAULT 0,
        created_at REAL NOT NULL,
        error TEXT)
    """,
    # The sender's hot queries: the pending rows of one chat in id order.
    "CREATE INDEX outbox_pending ON outbox(chat_id, id) WHERE status = 'pending'",
    # Pruning old sent rows by age.
    "CREATE INDEX outbox_by_created ON outbox(created_at)",
)
