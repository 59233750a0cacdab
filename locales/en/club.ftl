## The club: permanent partners, the afterword, Authority, the profile.

name-authority = { $name } ★{ $authority }

gesture-thanks = thanks for the game
gesture-partner = great partner
gesture-nil = beautiful nil
gesture-played = well played
afterword-title = 💬 <b>Afterword</b> — ten minutes to say a kind word to each other. Choose in your private chat with the bot.
afterword-line = { $sender } → { $receiver }: { $gesture }
afterword-someone = someone
afterword-empty = Quiet so far.
afterword-quiet = No words this time.
afterword-closed = The afterword is closed. Said: { $said }. Thanks everyone for the game!
afterword-sent = Sent 💛
err-afterword-closed = The afterword is already closed.
err-afterword-self = Not to yourself 🙂
err-afterword-twice = You already said this kind word to this player.
err-afterword-computer = The computer needs no kind words — say them to people 🙂
err-afterword-not-player = Kind words are for those who sat at the table.

partners-new = 🤝 { $a } and { $b } have played three games together — they are permanent partners now!
partners-new-private = 🤝 Partner: { $name } — three games together, you are permanent partners now. The club will seat you together.
partners-none = No permanent partners yet: people become partners after { $need } games together.
partners-title = 🤝 <b>Permanent partners</b>
partners-line = • { $name }: { $games } { $games ->
    [one] game
   *[other] games
} together, { $wins } won

authority-title = ★ <b>Authority</b> — for warm afterwords, not for wins
authority-line = { $n }. { $name } — ★{ $authority }
authority-empty = Nobody has played in this group yet.
authority-in-group = Members' Authority is shown in the group: /authority.

profile = 👤 <b>{ $name }</b>
    ★ Authority: { $authority }
    Games: { $games }, won: { $wins }
    Contracts made: { $contracts_made } of { $contracts_bid }
    Nils made: { $nils_made } of { $nils_bid }
    Permanent partners: { $partners }

forget-confirm = Delete all your data (name, statistics, partners, Authority)? Finished games keep their results without your name. This cannot be undone.
btn-forget-yes = Yes, delete
btn-forget-no = No
forget-done = Done: your data has been deleted.
forget-kept = Nothing was deleted.

cmd-profile = Profile: games, partners, Authority
cmd-partners = Permanent partners
cmd-authority = Authority of the group's members
cmd-forget_me = Delete my data

# The afterword's picker in private, and its summary at the close.
afterword-closed-quiet = The afterword is closed. Thanks everyone for the game!
afterword-pair = { $sender } → { $receiver } { $gestures }
btn-afterword = 💬 Say a kind word
afterword-private-title = 💬 <b>Afterword</b> to the game in “{ $group }”
afterword-mine = You → { $receiver }: { $gesture }
afterword-whom = Whom would you like to say a kind word to?
afterword-what = What to say to { $name }?
afterword-private-closed = The afterword is closed.
btn-afterword-back = ← Back to the list
