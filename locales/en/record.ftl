## The hand record: a finished hand, trick by trick (bot/views/record.py),
## and spectators of a table in the Mini App.

btn-record = 📜 Hand record
cmd-hand = A played hand's record: /hand 1
btn-record-app = 🃏 View at the table
record-title = 📜 <b>Hand { $hand }</b> · dealer { $dealer } · “{ $group }”
record-dealt = <b>Cards as dealt</b>
record-hand = { $name }: { $cards }
record-bids = <b>Bids:</b> { $bids }
record-bid = { $name } { $bid }
record-pass = Exchange: { $giver } → { $taker }: { $cards }
record-tricks = <b>Tricks</b>
record-trick = { $n }. { $cards } → { $winner }
record-trick-cut = { $n }. { $cards } → cut short by the claim
record-claim = "The rest are mine" — { $name }: { $tricks ->
    [one] { $tricks } more trick
   *[other] { $tricks } more tricks
}
record-sent = The hand record is in your private chat.
record-sent-already = The record of this hand is already in your private chat.
record-not-finished = This hand is still being played: its record comes when it ends.
err-hand_not_finished = This hand has not been played to the end yet.
record-usage = Write the hand's number, e.g. /hand 1
record-none-yet = No hand of this game has been played yet.
record-out-of-range = { $count ->
    [1] 1 hand of this game has been played: write /hand 1.
   *[other] { $count } hands of this game have been played: write a number from 1 to { $count }.
}
record-in-group = /hand works in the group where the game was played: write it there, e.g. /hand 1.

## Mini App: spectators and the record.
webapp-spectator = You are watching as a spectator
webapp-record = 📜 Hand records
webapp-record-prev = ◀
webapp-record-next = ▶
webapp-record-close = Back to the table
webapp-record-trick = Trick { $n } of { $total }
webapp-record-start = Bids and the cards as dealt
