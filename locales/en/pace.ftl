## Pace, move deadlines, reminders, quick lookups.

dur-hm = { $h } h { $m } min
dur-h = { $h } h
dur-m = { $m } min
dur-s = { $s } s

table-pace = { $daily ->
    [1] ⏳ Daily: { $pace } per move.
   *[other] ⏳ Real time: { $pace } per move.
}
btn-pace = ⏳ Pace: { $pace } per move
deadline-daily = ⏳ Move due by { $time } UTC on { $month }/{ $day } ({ $left } left)
deadline-live = ⏳ Per move: { $pace }
table-away = 🤖 { $name }: the computer plays (come back: /back).

reminder = ⏰ Your move in “{ $group }” — { $left } left.
timeout-move = ⏰ { $name }: time is up — the computer { $move }.
timeout-away = ⏰ { $name }: time is up a third time in a row — the computer { $move } and keeps the seat. Come back with the button or /back.
away-private = You missed three moves in a row in “{ $group }” — the computer plays for you. Come back when you can:
back-note = 👋 { $name } is back at the table.
btn-back = ↩️ Back to the game
back-done = Welcome back! Your cards are in the private chat.
err-not-away = Nobody is playing for you.

btn-q-sheet = 📋 Score by hand

lookup-no-table = No game has been played in this group yet. Open a table with /newgame.
lookup-no-games = You have no games now. Open a table in a group with /newgame.
lookup-table-head = <b>“{ $group }”</b>
lookup-start-first = So that I can send it to your private chat, open @{ $bot } and press “Start”.
lookup-sent-private = Sent to your private chat.
lookup-not-started = The game has not started yet (to { $target } points).
lookup-bidding = Hand { $hand }: bidding.
lookup-lead = Led suit: { $suit }
lookup-lead-next = { $name } leads.
lookup-info-seat = { $seat } — { $name }: { $bid }, tricks { $tricks }
lookup-no-sheet = Nothing to show yet: no hand has been played.

history-empty = No games have been finished in this group yet.
history-title = 📜 <b>Recent games</b>
history-line = { $day }: winner — { $winner } ({ $totals }), { $hands } { $hands ->
    [one] hand
   *[other] hands
}
history-in-group = Each group has its own history: type /history there.
stats-empty = { $name }: no finished games yet.
stats = 📈 <b>{ $name }</b>: { $games } { $games ->
    [one] game
   *[other] games
}, { $wins } won; contracts made { $contracts_made } of { $contracts_bid }
stats-nils = ; nils made { $nils_made } of { $nils_bid }

cmd-turn = Whose turn and until when
cmd-table = On the table: trick, led suit, spades
cmd-info = Players' bids and tricks
cmd-sheet = The score hand by hand
cmd-history = Recent games of the group
cmd-stats = Your statistics
cmd-back = Back to your seat

# "Your turn" pings in real-time games (deleted when the player moves).
turn-ping = 🔔 Your move in “{ $group }” — { $left } left.
btn-to-hand = 🃏 To my cards
quiet-on = 🔕 Turn pings are off. Turn them on again: /quiet
quiet-off = 🔔 Turn pings are on: when a move waits for you a few seconds, you get a message. Turn them off: /quiet
cmd-quiet = Turn pings: off/on
timeout-played = played { $card }
timeout-bid = bid { $bid }
