## Запись сдачи: вся сыгранная сдача, взятка за взяткой (bot/views/record.py),
## и зрители стола в Mini App.

btn-record = 📜 Запись сдачи
cmd-hand = Запись сыгранной сдачи: /hand 1
btn-record-app = 🃏 Посмотреть на столе
record-title = 📜 <b>Сдача { $hand }</b> · сдаёт { $dealer } · «{ $group }»
record-dealt = <b>Карты при раздаче</b>
record-hand = { $name }: { $cards }
record-bids = <b>Заявки:</b> { $bids }
record-bid = { $name } { $bid }
record-pass = Обмен: { $giver } → { $taker }: { $cards }
record-tricks = <b>Взятки</b>
record-trick = { $n }. { $cards } → { $winner }
record-trick-cut = { $n }. { $cards } → прервана: «Остальные мои»
record-claim = «Остальные мои» — { $name }: { $tricks ->
    [one] ещё { $tricks } взятка
    [few] ещё { $tricks } взятки
   *[other] ещё { $tricks } взяток
}
record-sent = Запись сдачи отправлена вам в личный чат.
record-sent-already = Запись этой сдачи уже отправлена вам в личный чат.
record-not-finished = Эта сдача ещё играется: запись будет, когда она закончится.
err-hand_not_finished = Эта сдача ещё не сыграна.
record-usage = Напишите номер сдачи, например: /hand 1
record-none-yet = В этой партии ещё не сыграно ни одной сдачи.
record-out-of-range = { $count ->
    [1] В этой партии сыграна 1 сдача: напишите /hand 1.
    [one] В этой партии сыграна { $count } сдача: напишите номер от 1 до { $count }.
    [few] В этой партии сыграно { $count } сдачи: напишите номер от 1 до { $count }.
   *[other] В этой партии сыграно { $count } сдач: напишите номер от 1 до { $count }.
}
record-in-group = Команда /hand работает в группе, где шла игра: там и напишите, например, /hand 1.

## Mini App: зрители и запись.
webapp-spectator = Вы смотрите игру как зритель
webapp-record = 📜 Записи сдач
webapp-record-prev = ◀
webapp-record-next = ▶
webapp-record-close = Вернуться к столу
webapp-record-trick = Взятка { $n } из { $total }
webapp-record-start = Заявки и карты при раздаче
