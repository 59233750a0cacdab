## The deal of the day: one deal for the whole group, each plays in private, results at the close.

cmd-day = Deal of the day: one deal for the whole group
btn-day-play = 🃏 Play the deal
btn-day-record = 📜 Best line
day-opening = 🃏 <b>Deal of the day</b> · until tomorrow { $until } · play
    One deal, the same cards for everyone, each plays with the computer in private.
day-opening-closed = 🃏 The deal of the day closed at { $at }. Results below.
day-unavailable = This deal of the day is not available.
day-usage = Deal of the day: /day — today's; /day on, /day off — turn it on, off; /day 10:00 — the hour it opens.
day-not-allowed = The group's admins and whoever opened its first table turn the deal of the day on and off.
day-on = 🃏 Deal of the day is on: every day at { $hour }.
day-off = Deal of the day is off.
day-someone = someone
day-close-title = 🃏 <b>Deal of the day: results</b>
day-close-nobody = Nobody played.
day-close-line = { $n }. { $name }: bid { $bid }, tricks { $tricks }, score { $score }, comparison { $points }
day-close-percent = { "   " }better than { $percent } % of the players
day-close-unfinished = Did not finish: { $count }.
day-state-on = 🃏 Deal of the day is on, it opens at { $hour }.
day-state-off = Deal of the day is off. Turn it on: /day on
day-state-closes = Today's closes at { $at }.
day-state-done = Played ({ $count }): { $names }
day-state-playing = Playing ({ $count }): { $names }
day-state-next = The next opens { $at }.
day-hand-title = 🃏 <b>Deal of the day</b>
day-done-title = 🃏 <b>Deal of the day played</b> · { $group }
day-done-result = Your bid { $bid }, tricks { $tricks }, score { $score }.
day-done-played = Played: { $count }.
day-done-wait = Results in the group when the deal closes at { $at }.
day-own-none = You have not played a deal of the day yet. It opens in groups that turned it on (/day on).
day-own-title = 🃏 <b>Your deals of the day</b>
day-own-line = { $date }: bid { $bid }, tricks { $tricks }, score { $score } · { $played } played
day-own-playing = { $date }: not finished — your hand is above in this chat.
day-own-closed-unfinished = { $date }: not finished.
day-own-open = { "   " }results at { $at }
day-record-later = The record opens once this deal has closed in every group: its cards are still being played today.
