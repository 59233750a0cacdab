## Answers to commands and buttons.

welcome = Hi, { $name }! I host Spades in group chats. Add me to a group and type /newgame there — friends sit down with buttons, empty seats are taken by the computer. Your cards come here, to this private chat.
joined = ✅ You are seated at the table in “{ $group }”. Your cards will come here when the creator starts the game.
newgame-no-creator = The table was opened on behalf of the group: anyone who sits down, or an admin, can start the game. To make the table yours, send /newgame as yourself.
newgame-in-group = Tables are opened in groups: add me to a group with friends and type /newgame there.
left-open = You stood up from the table.
left-game = You left the game — the computer plays for you.
cancel-confirm = Cancel the game at this table? The score will not be kept.
btn-cancel-yes = Yes, cancel
btn-cancel-no = No, play on
cancel-done = The game was cancelled.
cancel-kept = Playing on.
help =
    <b>Spades</b> — a trick-taking game, spades are always trump.
    • /newgame — open a table in a group; sit with the buttons, empty seats get the computer.
    • Cards and buttons for bids and plays come to your private chat with the bot (press “Start” there first).
    • /score — the score, /rules — the table's rules, /leave — leave the table, /cancel — cancel the game.
    • 💡 The master's hints are turned on by the table's creator in ⚙️ Options; /review in the private chat goes through your last hand.
    • 🙌 “The rest are mine” claims every remaining trick; 📜 /hand 1 sends a played hand's record to your private chat.
    • 🔔 /call_me — the bot calls you when a table opens in the group; 🔁 “One more game” opens a new table with the same players.
    A bid is how many tricks you will take; partners' bids together are the side's contract. Nil promises no trick at all (±100). Overtricks are bags: 10 bags cost 100 points.

err-generic = Something went wrong. Please try again.
err-stale = This button is out of date.
err-move-made = ✅ This move is already made.
err-not-at-table = You are not seated at this table.
err-not-creator = Only the table's creator can do that.
err-table-exists = This group already has a table — here it is.
err-table-closed = This table is closed.
err-table-started = The game at this table has already started.
err-table-full = All seats are taken.
err-seat-taken = That seat is taken.
err-seat-unavailable = This seat is not available.
err-member-unknown = Could not check that you are in the group. Please try again a little later.
err-no-players = At least one person must sit at the table.
err-no-table = There is no table in this group now.
err-cancel-rights = Only the table's creator or a group admin can cancel the game.
err-bad-rules = This option cannot be combined with the ones already chosen.
err-looked = You have opened your cards — blind nil is no longer possible.

err-bad_rules = These rules cannot be combined.
err-bad_action = There is no such move.
err-wrong_phase = That cannot be done now.
err-not_your_turn = It is not your turn.
err-game_over = The game is already over.
err-bid_out_of_range = That bid is impossible.
err-bid_not_allowed = That bid is not allowed now.
err-nil_not_allowed = Nil is not allowed now.
err-blind_not_allowed = Blind nil is not allowed now.
err-card_not_in_hand = You do not have that card.
err-must_follow_suit = You must follow the led suit.
err-spades_not_broken = Spades cannot be led until they are broken.
err-bad_exchange = That exchange is not possible.
err-bad_deal = Invalid deal.
err-bad_record = Invalid game record.
err-press-late = ⚠️ Your press did not go through: { $reason }
err-too-fast = Not so fast 🙂
err-paused = The game is paused: the bot was removed from “{ $group }”. Add it back and the game goes on.
paused-private = ⏸ The game in “{ $group }” is paused: the bot was removed from the group. When it is added back, the game goes on from the same place.
resumed-note = ▶️ The bot is back in the group — the game goes on from the same place.
resumed-private = ▶️ The game in “{ $group }” goes on.
err-paused-topic = The game is paused: the topic “{ $group }” was closed. It goes on once the topic is reopened.
err-paused-topic-deleted = The game is paused: the topic “{ $group }” was deleted. Open a new table with /newgame.
paused-topic-private = ⏸ The game in “{ $group }” is paused: the topic was closed. Once it is reopened, the game goes on where it stopped.
paused-topic-deleted-private = ⏸ The game in “{ $group }” has stopped: the topic was deleted. The score is kept; /newgame in any topic opens a new table.
resumed-topic-note = ▶️ The topic is open again — the game goes on where it stopped.
err-not-seated = Someone seated at the table or a group admin can do that.
err-write-as-yourself = Send this command as yourself, not on behalf of the group or a channel.
