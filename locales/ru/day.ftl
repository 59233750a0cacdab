## «Сдача дня»: одна сдача для всей группы, каждый играет в личном чате, итоги — при закрытии.

cmd-day = Сдача дня: одна сдача для всей группы
btn-day-play = 🃏 Сыграть сдачу
btn-day-record = 📜 Лучшая сдача
day-opening = 🃏 <b>Сдача дня</b> · до завтра { $until } · сыграть
    Одна сдача, одни карты для всех, у каждого — своя игра с компьютером в личном чате.
day-opening-closed = 🃏 Сдача дня закрыта в { $at }. Итоги — ниже.
day-unavailable = Эта сдача дня недоступна.
day-usage = Сдача дня: /day — что сегодня; /day on, /day off — включить, выключить; /day 10:00 — час открытия.
day-not-allowed = Включают и выключают сдачу дня админы группы и тот, кто открыл в ней первый стол.
day-on = 🃏 Сдача дня включена: каждый день в { $hour }.
day-off = Сдача дня выключена.
day-someone = кто-то
day-close-title = 🃏 <b>Итоги сдачи дня</b>
day-close-nobody = Никто не сыграл.
day-close-line = { $n }. { $name }: заказ { $bid }, взяток { $tricks }, очки { $score }, сравнение { $points }
day-close-percent = { "   " }лучше, чем у { $percent } % сыгравших
day-close-unfinished = Не доиграли: { $count }.
day-state-on = 🃏 Сдача дня включена, открывается в { $hour }.
day-state-off = Сдача дня выключена. Включить: /day on
day-state-closes = Сегодняшняя закроется в { $at }.
day-state-done = Сыграли ({ $count }): { $names }
day-state-playing = Играют ({ $count }): { $names }
day-state-next = Следующая откроется { $at }.
day-hand-title = 🃏 <b>Сдача дня</b>
day-done-title = 🃏 <b>Сдача дня сыграна</b> · { $group }
day-done-result = Ваш заказ { $bid }, взяток { $tricks }, очки { $score }.
day-done-played = Сыграли: { $count }.
day-done-wait = Итоги — в группе, когда сдача закроется в { $at }.
day-own-none = Вы ещё не играли сдачу дня. Она открывается в группах, где её включили (/day on).
day-own-title = 🃏 <b>Ваши сдачи дня</b>
day-own-line = { $date }: заказ { $bid }, взяток { $tricks }, очки { $score } · сыграли { $played }
day-own-playing = { $date }: не доиграна — ваша рука выше в этом чате.
day-own-closed-unfinished = { $date }: не доиграна.
day-own-open = { "   " }итоги — в { $at }
day-record-later = Запись откроется, когда эту сдачу закроют во всех группах: где-то её ещё играют.
