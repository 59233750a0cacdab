## Shared words: seats, players, bids.

seat = { $players ->
    [4] { $seat ->
        [0] North
        [1] East
        [2] South
       *[3] West
    }
   *[other] Seat { $num }
}
computer = 🤖 { $seat }
seat-free = free
join-names = { $a } + { $b }

bid-none = not bid yet
bid-nil = nil
bid-blind = blind nil
bid-n = bid { $n }

preset-classic = “Classic”
preset-club = “Club”
preset-custom = custom rules (based on { $base })

trick-card = { $name } { $card }
spades-broken = ♠ Spades are broken.
spades-unbroken = ♠ Spades are not broken yet.

cmd-start = Start and get help
cmd-newgame = Open a table for a new game
cmd-score = Score of the current game
cmd-rules = This table's rules
cmd-leave = Leave the table
cmd-cancel = Cancel the game (creator or admin)
cmd-help = How to play

# When a move is due (the groups' clock, TIME_ZONE).
time-tomorrow = tomorrow { $time }
time-date = { $day }.{ $month } { $time }
# Bags: one spelling everywhere.
bags = { $n } { $n ->
    [one] bag
   *[other] bags
}
bags-warn = ⚠️ one more bag — and −100
you = you
