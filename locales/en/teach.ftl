## The master's hints (💡) and the review of a hand (/review).

opt-hints = 💡 Master's hints
table-hints = { $on ->
    [1] 💡 Master's hints are on: the results show how many each player took.
   *[other] 💡 Master's hints are off.
}
btn-hint = 💡 Hint
hints-used-of = { $name } { $n }
hints-used = 💡 Hints this game: { $players }
err-hints-off = Hints are off at this table.

hint-play = 💡 The master would play { $card }: { $reason }
hint-bid = 💡 The master would bid { $bid }: { $reason }
hint-exchange = 💡 The master would pass { $card }: { $reason }
hint-blind = 💡 The master would bid blind nil: { $reason }
hint-look = 💡 The master would look at the cards: no need for a blind nil here.

teach-bid = { $n ->
    [0] nil
   *[other] { $n }
}

teach-reason-only_move = any other card comes to the same
teach-reason-keep_nil = it keeps your nil: this card does not take the trick
teach-reason-cover_nil = it covers your partner's nil
teach-reason-set_nil = let the opponent's nil take this trick
teach-reason-partner_wins_trick = your partner is winning this trick
teach-reason-take_trick = your side needs this trick for the contract
teach-reason-set_opponents = the contract is made: take the tricks the opponents need
teach-reason-avoid_bags = the contract is made: another trick would be a bag
teach-reason-cash_winner = nobody can beat this card
teach-reason-lead_long_suit = lead from your long suit
teach-reason-save_winners = a low card: the high ones are worth more later
teach-reason-bid_tricks = the tricks this hand is expected to take
teach-reason-bid_nil = this hand can lose every trick
teach-reason-bid_for_win = the score of the game calls for it
teach-reason-blind_nil = your side is far behind: a blind nil gives a chance
teach-reason-help_blind_nil = these cards help the blind nil

review-title = 🔎 <b>Review: “{ $group }”, hand { $hand }</b>
review-play = { $n }. <b>Trick { $trick }.</b> { $position } Your cards: { $cards }.
    You played { $played }, the master would play { $better }: { $reason }. Difference ≈ { $gain } { $gain ->
        [one] point
       *[other] points
    }.
review-bid = { $n }. <b>Bid.</b> { $position } Your cards: { $cards }.
    You bid { $played }, the master would bid { $better }: { $reason }. Difference ≈ { $gain } { $gain ->
        [one] point
       *[other] points
    }.
review-exchange = { $n }. <b>Blind nil exchange.</b> Your cards: { $cards }.
    You passed { $played }, the master would pass { $better }: { $reason }. Difference ≈ { $gain } { $gain ->
        [one] point
       *[other] points
    }.
review-table = On the table: { $cards }.
review-lead = You led.
review-bids = Bids before yours: { $bids }.
review-first-bid = Yours was the first bid.
review-note = The difference is the points for the hand the master expects its choice to have brought.
review-clean = 🔎 “{ $group }”, hand { $hand }: the master found no decision of yours worth { $min } points or more. Well played!
review-none = 🔎 Nothing to review yet: you have no finished hand. After a hand, /review goes through it.
review-busy = 🔎 The review is on its way, one moment.
review-in-private = 🔎 Reviews come in the private chat with me: send /review there.
cmd-review = Review of your last hand
