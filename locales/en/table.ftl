## The table message in the group.

table-open-title = 🃏 <b>New Spades table</b> · { $rules }, to { $target } points
seat-line = { $seat }: { $name }
table-partners-4 = Partners sit opposite: North and South against East and West.
table-partners-solo = Everyone plays for themselves.
table-open-hint = Tap a seat to sit down. Empty seats are taken by the computer. The table's creator starts the game.
btn-seat-free = { $seat }: sit
btn-seat-taken = { $seat }: { $name }
btn-preset = Rules: { $rules }
btn-options = ⚙️ Options
btn-options-done = ✅ Done
btn-start = ▶️ Start the game
btn-stand = Stand up

options-title = ⚙️ <b>Table options</b> · { $rules }
options-hint = Tap an option to switch its value. Only the table's creator can change the rules.
btn-option = { $name }: { $value }
rules-line = • { $name }: { $value }
opt-on = yes
opt-off = no
opt-none = none

opt-players = Players
opt-target = Play to
opt-losing_floor = Losing floor
opt-failed_nil = Tricks of a failed nil
opt-blind_nil = Blind nil
opt-bid_sum = Sum of bids
opt-exact_bonus = Bonus for an exact bid of 1–2
opt-big_bid_bonus = Big bid bonus
opt-quicksand = Quicksand
opt-suicide = Suicide
opt-bicycle = Bicycle
opt-bag_penalty = 10-bag penalty

## /rules: only what is on, each in a player's words.
rules-on-exact_bonus = +20 when a contract of 1 or 2 is made exactly
rules-on-big_bid_bonus = +10 for each trick bid and taken after the { $from }th
rules-on-quicksand = made: 10 points for each trick of the contract and minus 10 for each extra one, no bags; set: minus 10 for each missing trick
rules-on-suicide = in each partnership at least one bids nil, and a partner who does not bids at least 4
rules-on-bicycle = no nil, bids from 1, a failed contract scores 0
rules-on-bag_penalty = every 10 bags cost 100

optval-players = { $value ->
    [4] 4, partners
   *[other] { $value }, each for themselves
}
optval-target = { $value } points
optval-losing_floor = { $value } points
optval-failed_nil-ignored = ignored
optval-failed_nil-bags = count as bags
optval-failed_nil-help_partner = help the partner
optval-blind_nil-off = no
optval-blind_nil-chicago = Chicago (±200)
optval-blind_nil-club = club (with exchange)
optval-bid_sum-free = any
optval-bid_sum-club = at most the tricks
optval-bid_sum-no_hell = never equal to the tricks

table-game-title = 🃏 <b>Spades</b> · { $rules }, to { $target } points
table-hand = Hand { $hand } · dealer { $dealer }
table-seat = { $marker }{ $seat } — { $name }: { $bid }, tricks { $tricks }
table-trick = On the table: { $cards }
table-last-trick = Last trick → { $winner }: { $cards }
table-trick-no = Trick { $n } of { $total }
score-line = { $side }: <b>{ $total }</b> ({ $bags } { $bags ->
    [one] bag
   *[other] bags
})
table-winner = 🏆 Winner: { $winner } — { $totals }
turn-bid = Turn: { $name } — bid.
turn-exchange = Turn: { $name } — blind nil card exchange.
turn-play = Turn: { $name }.
table-blocked = ⚠️ { $name } does not receive the bot's messages — the game waits.
table-cancelled = 🃏 Table closed: the game was cancelled.
blocked-note = ⚠️ { $name } cannot receive cards: the bot is blocked or not started. Open @{ $bot } and tap “Start” (or “Unblock”) — the game will wait.

## The group's table during a game: the hand and the turn on top, each side's contract against its tricks.
table-status = 🃏 Hand { $hand } · { $stage }
lookup-status = Hand { $hand } · { $stage }
stage-bidding = bidding
stage-exchange = passing cards for a blind nil
stage-play = trick { $n } of { $total } · { $spades }
stage-spades-broken = ♠ broken
stage-spades-unbroken = ♠ not broken
table-turn-bid = ▶️ To bid: { $name }{ $deadline }
table-turn-exchange = ▶️ Passing cards to the partner: { $name }{ $deadline }
table-turn-play = ▶️ To play: { $name }{ $deadline }
deadline-at = by { $time }
side-head = { $side }: <b>{ $total }</b> · { $bags }
# Under a side's score: while bids are made, the bids; in play, the side's
# contract against its tricks (✓ once reached), or each player when a nil is there.
side-bids = { "   " }bids: { $bids }
side-detail = { "   " }{ $progress }
side-players = { "   " }{ $players }
solo-line = { $head } · { $part }
bid-of = { $name } { $bid }
bid-waiting = { $name } …
contract-progress = contract { $contract } · { $left ->
    [0] taken { $taken } ✓
   *[other] taken { $taken } ({ $left } to go)
}
solo-progress = bid { $bid } · { $left ->
    [0] taken { $taken } ✓
   *[other] taken { $taken } ({ $left } to go)
}
player-progress = { $name } { $taken } of { $bid }{ $done ->
    [1] { " " }✓
   *[0] {""}
}
player-nil = { $name }: { $status }
nil-status = { $blind ->
    [1] blind nil
   *[0] nil
}{ $taken ->
    [0] {""}
    [one] { " " }✗ (already { $taken } trick)
   *[other] { " " }✗ (already { $taken } tricks)
}
table-over-title = 🃏 <b>Game over</b> · { $rules }
