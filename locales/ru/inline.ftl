# Inline mode: «@бот» in any chat lists the person's games and record.

# The words that ask for the record (any language's count; split by spaces).
inline-stats-words = статистика стата профиль
inline-your-move = ▶️ ваш ход{ $deadline }
inline-claim-vote = ⏳ голосование: «Остальные мои»
inline-paused = ⏸ игра ждёт
inline-where = «{ $group }»
inline-status = { $hand } · { $score }
inline-card-head = ♠️ <b>«{ $group }»</b>
inline-open-table = Открыть стол
inline-open-app = Открыть в приложении
inline-no-games-title = У вас сейчас нет игр
inline-no-games-text = Добавьте бота в группу и наберите там /newgame
inline-no-games-card = ♠️ Сыграем в Пики? Добавьте @{ $bot } в группу и наберите там /newgame — друзья сядут за стол кнопками, пустые места займёт компьютер.
inline-start-button = Как начать игру
inline-stats-title = 📈 Ваша статистика
inline-stats-text = { $games } { $games ->
    [one] партия
    [few] партии
   *[many] партий
}, побед { $wins } · ★ { $authority }
inline-stats-card = 📈 <b>{ $name }</b>
    ★ Авторитет: { $authority }
    Партий: { $games }, побед: { $wins }
    Заказов выполнено: { $contracts_made } из { $contracts_bid }
    Нолей сыграно: { $nils_made } из { $nils_bid }
