## The game in the terminal (python -m terminal). Seats, bids, rules and the
## engine's refusals come from the shared files (common.ftl, messages.ftl):
## the same words as in the bot.

term-start = Spades: { $players } { $players ->
    [one] player
   *[other] players
}, rules { $rules }, seed { $seed }.
term-your-seat = Your seat: { $seat }. Computer level: { $level }.
term-you = { $name } (you)
term-partner = { $name } (partner)
term-hand-start = --- Hand { $hand }, { $dealer } deals ---
term-your-cards = Your cards: { $cards }
term-blind-offer = You may bid blind nil (±200): it is bid without looking at the cards.
term-blind-ask = Bid blind nil? (yes/no):{ " " }
term-yes-or-no = Answer “yes” or “no”.
term-bids = Bids: { $bids }
term-bid-of = { $name }: { $bid }
term-bids-allowed = You may bid: { $bids }
term-bid-ask = Your bid (a number, 0 for nil, ? for a hint):{ " " }
term-hint = Hint: { $action }
term-playable = You may play: { $cards }
term-card-unknown = Unknown card: type its number in the list or, e.g., QS, 10♦, A♠.
term-pass-ask = Which card do you pass ({ $name }), { $n ->
    [1] the first
   *[other] the second
} of two?{ " " }
term-play-ask = Your move:{ " " }
term-on-table = On the table: { $cards }
term-your-lead = Trick { $n }: your lead.
term-bid-said = { $name } bids: { $bid }
term-card-played = { $name }: { $card }
term-passes-to = { $from } passes to { $to }: { $cards }
term-passes-hidden = { $from } passes two cards to the partner.
term-trick-won = { $name } takes the trick.
term-hand-over = === Hand { $hand } played ===
term-hand-seat = { "  " }{ $name }: { $bid }, tricks { $tricks }
term-hand-side = { "  " }{ $side }: { $score } this hand, total { $total }, bags { $bags }
term-quit = Game stopped.
term-over = Game over. Winner: { $winner }.

# What the player may type: words separated by spaces, case ignored.
term-words-yes = yes y да д
term-words-no = no n нет н
term-words-quit = quit q exit выход
# Russian rank letters accepted in card notation: letter=rank.
term-rank-letters = В=J Д=Q К=K Т=A
