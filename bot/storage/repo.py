"""The queries of the game's own tables under one name: ``repo.get_table(…)``.

Each module holds the queries of the tables it reads and writes:
:mod:`.repo_users` (``users``), :mod:`.repo_tables` (``tables``),
:mod:`.repo_seats` (``seats``), :mod:`.repo_games` (``games``, ``actions``,
``looks``, ``results``), :mod:`.repo_deadlines` (``deadlines``, ``meta``);
:mod:`.sql` the helpers they share. The club's, the claims', the calls'
and the others' queries are ``repo_<what>`` modules imported by their own
name. Reads take the ``Database``; writes take the ``conn`` of the caller's
transaction, so a move, its table update and its messages commit together.
"""

# Star imports: each module's own names (not what it imports) are re-exported.
from bot.storage.repo_deadlines import *  # noqa: F403
from bot.storage.repo_games import *  # noqa: F403
from bot.storage.repo_seats import *  # noqa: F403
from bot.storage.repo_tables import *  # noqa: F403
from bot.storage.repo_users import *  # noqa: F403
from bot.storage.sql import storable as storable
