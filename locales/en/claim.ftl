# "The rest are mine": a claim of every remaining trick of the hand.
btn-claim = 🙌 The rest are mine
btn-claim-accept = ✅ Yes, end the hand
btn-claim-refuse = ❌ Play on
# The group: the claim with the claimer's remaining cards, once it ends the hand.
claim-made = 🙌 { $name }: "The rest are mine"{ $whose ->
    [side] { " " }(with the partner)
   *[self] { "" }
} — { $left } { $left ->
    [one] trick
   *[other] tricks
}. Cards: { $cards }
# The same claim without the cards: while it is voted on, refused at once, or once play goes on.
claim-made-bare = 🙌 { $name }: "The rest are mine"{ $whose ->
    [side] { " " }(with the partner)
   *[self] { "" }
} — { $left } { $left ->
    [one] trick
   *[other] tricks
}.
claim-not-accepted = The claim was not accepted: play on.
claim-unreachable = ❌ { $name } cannot answer (the bot cannot write to them in private): play on.
claim-voter-computer = ❌ { $name }: the computer plays this seat now, and it does not accept a claim without proof: play on.
claim-proved = ✅ Proved: wherever the other cards are and however they are played, { $whose ->
    [side] { $name } and partner take
   *[self] { $name } takes
} every remaining trick. The hand is over.
claim-vote = The bot cannot check it itself — the opponents decide: { $names }.
# Under it: why the group does not see the cards (the partner reads the group).
claim-cards-to-voters = Only they see the cards.
claim-computer-refuses = The computer does not agree to an unproved claim: play on.
claim-accepted = ✅ The opponents agreed: the hand is over.
claim-refused = ❌ { $name } says no — play on.
claim-expired = ⌛ Time is up and not everyone answered: play on.
# The claimer's hand while the other side decides.
claim-waiting = ⏳ Your claim "The rest are mine" is being voted on: waiting for the opponents.
# The private question to each person of the other side.
claim-ask = 🙌 "{ $group }": { $name } claims every remaining trick ({ $left }).
    Cards: { $cards }
    Agree to end the hand so?
claim-ask-accepted = ✅ "{ $group }": you agreed to the claim. Waiting for the others.
claim-ask-closed = "{ $group }": the claim "The rest are mine" is closed.
# Before a vote's deadline, to each voter who has not answered.
claim-vote-reminder = ⏰ "{ $group }": the claim "The rest are mine" waits for your answer — { $left } left.
err-claim-voting = A claim "The rest are mine" is being voted on: waiting for the opponents.
err-claim-not-now = You cannot claim the rest now.
err-claim-limit = You have claimed the rest { $limit ->
    [one] once
   *[other] { $limit } times
} this hand: no more.
err-claim-not-voter = The claimer's opponents decide.
err-claim-voted = ✅ Your answer is already in.
err-claim_not_allowed = "The rest are mine" needs at least two tricks left.
err-claim_not_conceded = "The rest are mine" is the 🙌 button, not a move.
