## A player's private hand message.

hand-title = <b>{ $group }</b>
hand-you-partner = You are { $seat }, partner: { $partner }
hand-you = You are { $seat }
hand-closed = 🂠 Cards face down ({ $count }): you may bid blind nil without looking.
hand-cards = Your cards: { $cards }
hand-passed = You passed to your partner: { $cards }
hand-received = You received: { $cards }
hand-bid-of = { $name } — { $bid }
hand-game-over = The game is over.
hand-wait = Waiting for { $name }.
hand-blind-later = When your turn comes you may bid blind nil. Or open your cards now.
hand-blind-offer = Your bid. Blind nil (±200) without looking, or open your cards and name a number.
hand-your-bid = ▶️ Your bid: how many tricks will you take?
hand-exchange = Blind nil: pass 2 cards to your partner ({ $partner }). Choose the first.
hand-exchange-second = { $card } chosen. One more card for your partner ({ $partner }).
hand-your-play = ▶️ Your turn: choose a card.
hand-your-lead = ▶️ Your turn: lead { $broken ->
    [1] any suit.
   *[0] any suit but spades (spades are not broken yet).
}
hand-your-follow = ▶️ Your turn: follow { $suit }.
hand-your-any = ▶️ Your turn: no { $suit } — any card.
hand-cancelled = The game was cancelled.
btn-blind = 🙈 Blind nil
btn-look = 👀 Open cards
btn-nil = Nil

result-title = 📋 <b>Hand { $hand } played</b>
result-last-trick = Last trick → { $winner }: { $cards }
result-made = ✅ { $side }: contract { $contract }, taken { $taken } → <b>{ $score }</b>{ $parts } · total { $total }
result-made-below = 🔻 { $side }: contract { $contract }, taken { $taken } — made, but the hand scores below zero → <b>{ $score }</b>{ $parts } · total { $total }
result-set = ❌ { $side }: contract { $contract }, taken { $taken } — set → <b>{ $score }</b>{ $parts } · total { $total }
result-no-contract = ➖ { $side }: no contract → <b>{ $score }</b>{ $parts } · total { $total }
result-parts = { " " }({ $parts })
part-overtricks = { $n } { $n ->
    [one] bag
   *[other] bags
}
part-nil = { $n } for the nil
part-bonus = { $n } bonus
part-penalty = { $n } for 10 bags
result-nil-made = { $name }: { $blind ->
    [1] blind nil
   *[0] nil
} made { $points }
result-nil-failed = { $name }: { $blind ->
    [1] blind nil
   *[0] nil
} failed ({ $tricks } { $tricks ->
    [one] trick
   *[other] tricks
}) { $points }{ $note }
result-nil-tricks-ignored = { " — " }the nil's tricks do not count for the partner
result-nil-tricks-bags = { " — " }the nil's tricks went to bags
result-nil-tricks-help_partner = { " — " }the nil's tricks count for the partner

over-title = 🏁 <b>Game over!</b>
sheet-hand = #
sheet-total = Total
sheet-nil-mark = N
sheet-blind-mark = B
sheet-block = <pre>{ $sheet }</pre>
    { $legend }
sheet-legend = A cell: bids, contract/taken, the hand's points (bags carried). N — nil, B — blind nil.

score-title = 📊 <b>Score</b> · game to { $target } · { $hands } { $hands ->
    [one] hand
   *[other] hands
} played
rules-title = 📜 <b>Table rules</b>: { $rules }
rules-summary = Spades are always trump. Follow suit if you can; otherwise play any card. Spades cannot be led until broken (or when you hold only spades). Contract made: 10 points a trick bid, 1 per overtrick (a bag); 10 bags cost 100. Failed: minus 10 per trick bid. Nil: ±100.

## The end of the game in each player's private chat.
over-private-title = 🏁 <b>“{ $group }”: game over</b>
over-private-won = 🏆 You won!
over-private-lost = Not this time — next time it will work out.
over-private-record = Your game: { $hands } { $hands ->
    [one] hand
   *[other] hands
}, contracts made { $contracts_made } of { $contracts_bid }
over-private-nils = , nils { $nils_made } of { $nils_bid }
over-private-next = Play again with the same players — the “🔁 Play again” button:

## The score chart (a picture).
chart-title = “{ $group }”: the game so far
chart-target = target { $target }
chart-hand = hand
chart-points = points
chart-caption = 📈 “{ $group }”: the score hand by hand
btn-chart-one = 📈 Chart
btn-chart = 📈 Chart: { $group }
