## «Call me to the next game», «One more game» and the computer's strength per table.

cmd-call_me = Call me when a table opens here (again: stop calling)
btn-call-me = 🔔 Call me to the next game
btn-call-sit = 🪑 Take a seat
btn-call-off = 🔕 Stop calling me
call-on = 🔔 I'll call you when a table opens in «{ $group }» (at most once an hour). To stop: /call_me off.
call-on-start = So that I can write to you, press “Start” at @{ $bot } in a private chat.
call-off = 🔕 I won't call you to «{ $group }» any more. To be called again: /call_me.
call-off-private = 🔕 I won't call you any more. To be called again: /call_me in the group.
call-already = 🔔 You're on the list already: I'll call you when a table opens in «{ $group }». To stop: /call_me off.
err-call-not-yours = This button is for the person who asked to be called.
err-call-args = Like this: /call_me to be called or not, /call_me off to stop.
# Words understood after /call_me (space-separated; every language's words are understood).
call-words-on = on yes
call-words-off = off no stop
call-in-group = Send /call_me in the group where you play: I'll call you here when a table opens there.
call-new-table = 🔔 A table opened in «{ $group }»: { $free ->
    [one] { $free } seat free
   *[other] { $free } seats free
}. One tap to sit down.
call-sat = ✅ You're at the table in «{ $group }». Your cards come here when the game starts.

btn-rematch = 🔁 One more game
rematch-opened = 🔁 A new table is open: the same seats, the same rules.
err-rematch-done = A new table has already been opened after this game.
err-rematch-busy = The group already has a table: finish or cancel it, then open a new one.
err-rematch-rights = One more game is for those who played at this table, or a group admin.

opt-ai = 🤖 Computer
ai-level-novice = novice
ai-level-amateur = amateur
ai-level-master = master
