## A player's private hand message.

hand-title = 🃏 <b>{ $group }</b> · hand { $hand }
hand-you-partner = You are { $seat }, partner: { $partner }
hand-you = You are { $seat }
hand-closed = 🂠 Cards face down ({ $count }): you may bid blind nil without looking.
hand-cards = Your cards: { $cards }
hand-passed = You passed to your partner: { $cards }
hand-received = You received: { $cards }
hand-bid-of = { $name } — { $bid }
hand-bids = Bids: { $bids }
hand-tricks-of = { $name } { $n }
hand-tricks = Tricks: { $tricks }
hand-game-over = The game is over.
hand-wait = Waiting for { $name }.
hand-blind-later = When your turn comes you may bid blind nil. Or open your cards now.
hand-blind-offer = Your bid. Blind nil (±200) without looking, or open your cards and name a number.
hand-your-bid = Your bid: how many tricks will you take?
hand-exchange = Blind nil: choose 2 cards for { $partner }.
hand-exchange-second = { $card } chosen. Choose one more card for { $partner }.
hand-your-play = Your turn: choose a card.
hand-cancelled = The game was cancelled.
btn-blind = 🙈 Blind nil
btn-look = 👀 Open cards
btn-nil = Nil

result-title = 📋 <b>Hand { $hand } played</b>
result-player = { $name }: { $bid }, took { $tricks }
result-side = { $side } ({ $players }): <b>{ $score }</b> [{ $parts }] → { $total }, bags { $bags }
part-contract = contract { $points }
part-bags = overtricks { $points }
part-nil = nil { $points }
part-bonus = bonus { $points }
part-penalty = bag penalty { $points }

over-title = 🏆 <b>Game over!</b> Winner: { $winner } ({ $totals }).
sheet-hand = #
sheet-bids = Bids
sheet-tricks = Tricks
sheet-blind-mark = B
sheet-block = <pre>{ $sheet }</pre>
    { $legend }
sheet-legend = Team columns: change = total/bags. 0 is nil, B is blind nil.

score-title = 📊 <b>Score</b> · game to { $target } · { $hands } { $hands ->
    [one] hand
   *[other] hands
} played
rules-title = 📜 <b>Table rules</b>: { $rules }
rules-summary = Spades are always trump. Follow suit if you can; otherwise play any card. Spades cannot be led until broken (or when you hold only spades). Contract made: 10 points a trick bid, 1 per overtrick (a bag); 10 bags cost 100. Failed: minus 10 per trick bid. Nil: ±100.

## The end of the game in each player's private chat.
over-private-title = 🏁 <b>“{ $group }”: game over</b>
over-private-winner = Winner: { $winner } ({ $totals }).
over-private-won = 🏆 You won!
over-private-lost = Not this time — next time it will work out.
over-private-record = Your game: { $hands } { $hands ->
    [one] hand
   *[other] hands
}, contracts made { $contracts_made } of { $contracts_bid }, nils { $nils_made } of { $nils_bid }.
over-private-next = Play again: /newgame in “{ $group }”.

## The score chart (a picture).
chart-title = “{ $group }”: the game so far
chart-target = target { $target }
chart-hand = hand
chart-points = points
chart-caption = 📈 “{ $group }”: the score hand by hand
btn-chart-one = 📈 Chart
btn-chart = 📈 Chart: { $group }
