## Mini App: the table drawn in Telegram.
## Keys without variables are sent to the page whole (bot/webapp/texts.py).

btn-webapp = 🃏 Table
btn-webapp-group = 🃏 Open the table
webapp-title = Spades
webapp-loading = Dealing the cards…
webapp-reconnecting = Connection lost — reconnecting…
webapp-no-telegram = Open the table from Telegram: the «🃏 Table» button under your cards in the bot's private chat.
webapp-err-auth = Could not check that this is you. Open the table again from Telegram.
webapp-err-expired = This sign-in is too old. Close the table and open it again with «🃏 Table».
webapp-err-request = The bot did not understand this request.
webapp-err-network = No connection to the bot. Try again.
webapp-err-telegram = Could not ask Telegram whether you are in the group. Try again.
webapp-err-streams = The table is open on too many screens. Close some and try again.
webapp-score = Score
webapp-tricks = tricks
webapp-you = you
webapp-partner = partner
webapp-dealer = deals
webapp-your-turn = Your turn
webapp-cards-down = Your cards are face down
webapp-trick = On the table
webapp-claim-confirm = Claim "The rest are mine": you take every remaining trick? If the bot cannot prove it, your opponents decide.

## With values: the bot fills them in (bot/webapp/state.py).
webapp-taken-by = Trick → { $name }
webapp-cut-by-claim = The claim "The rest are mine" cut this trick short
webapp-target = Game to { $target }
