# Inline mode: "@bot" in any chat lists the person's games and record.

# The words that ask for the record (any language's count; split by spaces).
inline-stats-words = stats statistics profile
inline-your-move = ▶️ your move{ $deadline }
inline-claim-vote = ⏳ voting: "The rest are mine"
inline-paused = ⏸ the game waits
inline-where = "{ $group }"
inline-status = { $hand } · { $score }
inline-card-head = ♠️ <b>"{ $group }"</b>
inline-open-table = Open the table
inline-open-app = Open in the app
inline-no-games-title = You have no games now
inline-no-games-text = Add the bot to a group and type /newgame there
inline-no-games-card = ♠️ A game of Spades? Add @{ $bot } to a group and type /newgame there: friends take seats with buttons, the computer plays the empty ones.
inline-start-button = How to start a game
inline-stats-title = 📈 Your record
inline-stats-text = { $games } { $games ->
    [one] game
   *[other] games
}, { $wins } won · ★ { $authority }
inline-stats-card = 📈 <b>{ $name }</b>
    ★ Authority: { $authority }
    Games: { $games }, won: { $wins }
    Contracts made: { $contracts_made } of { $contracts_bid }
    Nils made: { $nils_made } of { $nils_bid }
