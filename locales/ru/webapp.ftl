## Mini App: стол, нарисованный в Telegram.
## Ключи без переменных страница получает целиком (bot/webapp/texts.py).

btn-webapp = 🃏 Стол
btn-webapp-group = 🃏 Открыть стол
webapp-title = Пики
webapp-loading = Раскладываем карты…
webapp-reconnecting = Связь прервалась — подключаемся снова…
webapp-no-telegram = Откройте стол из Telegram: кнопка «🃏 Стол» под вашими картами в личном чате с ботом.
webapp-err-auth = Не удалось проверить, что это вы. Откройте стол заново из Telegram.
webapp-err-expired = Вход устарел. Закройте стол и откройте его заново кнопкой «🃏 Стол».
webapp-err-request = Бот не понял этот запрос.
webapp-err-network = Нет связи с ботом. Попробуйте ещё раз.
webapp-err-telegram = Не удалось узнать у Telegram, состоите ли вы в группе. Попробуйте ещё раз.
webapp-err-streams = Стол открыт на слишком многих экранах. Закройте лишние и попробуйте снова.
webapp-score = Счёт
webapp-tricks = взятки
webapp-you = вы
webapp-partner = партнёр
webapp-dealer = сдаёт
webapp-your-turn = Ваш ход
webapp-cards-down = Карты лежат рубашкой вверх
webapp-trick = На столе
webapp-claim-confirm = Сказать «Остальные мои» — все оставшиеся взятки берёте вы? Если бот не сможет сам проверить, решат соперники.

## Со значениями: их заполняет бот (bot/webapp/state.py).
webapp-taken-by = Взятка → { $name }
webapp-cut-by-claim = Взятку прервали: «Остальные мои»
webapp-target = Игра до { $target }
