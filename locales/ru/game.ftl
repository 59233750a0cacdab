## Личное сообщение с картами игрока.

hand-title = <b>{ $group }</b>
hand-you-partner = Вы — { $seat }, партнёр: { $partner }
hand-you = Вы — { $seat }
hand-closed = 🂠 Карты закрыты ({ $count }): можно заявить слепой ноль, не глядя.
hand-cards = Ваши карты: { $cards }
hand-passed = Вы отдали партнёру: { $cards }
hand-received = Вы получили: { $cards }
hand-bid-of = { $name } — { $bid }
hand-game-over = Игра окончена.
hand-wait = Ждём: { $name }.
hand-blind-later = Когда дойдёт очередь, можно будет заявить слепой ноль. Или откройте карты сейчас.
hand-blind-offer = Ваша заявка. Слепой ноль (±200) — не глядя в карты, или откройте карты и назовите число.
hand-your-bid = ▶️ Ваша заявка: сколько взяток возьмёте?
hand-exchange = Слепой ноль: отдайте 2 карты партнёру ({ $partner }). Выберите первую.
hand-exchange-second = Выбрана { $card }. Ещё одна карта партнёру ({ $partner }).
hand-your-play = ▶️ Ваш ход: выберите карту.
hand-your-lead = ▶️ Ваш ход: заходите { $broken ->
    [1] с любой масти.
   *[0] с любой масти, кроме пик (пики ещё не вскрыты).
}
hand-your-follow = ▶️ Ваш ход: в масть { $suit }.
hand-your-any = ▶️ Ваш ход: { $suit } нет — любая карта.
hand-cancelled = Игра отменена.
btn-blind = 🙈 Слепой ноль
btn-look = 👀 Открыть карты
btn-nil = Ноль

result-title = 📋 <b>Сдача { $hand } сыграна</b>
result-last-trick = Последняя взятка → { $winner }: { $cards }
result-made = ✅ { $side }: заказ { $contract }, взято { $taken } → <b>{ $score }</b>{ $parts } · итого { $total }
result-made-below = 🔻 { $side }: заказ { $contract }, взято { $taken } — заказ выполнен, но сдача в минусе → <b>{ $score }</b>{ $parts } · итого { $total }
result-set = ❌ { $side }: заказ { $contract }, взято { $taken } — недобор → <b>{ $score }</b>{ $parts } · итого { $total }
result-no-contract = ➖ { $side }: без заказа → <b>{ $score }</b>{ $parts } · итого { $total }
result-parts = { " " }({ $parts })
part-overtricks = { $n } { $n ->
    [one] мешок
    [few] мешка
   *[many] мешков
}
part-nil = { $n } за ноль
part-bonus = { $n } бонус
part-penalty = { $n } за 10 мешков
result-nil-made = { $name }: { $blind ->
    [1] слепой ноль
   *[0] ноль
} выполнен { $points }
result-nil-failed = { $name }: { $blind ->
    [1] слепой ноль
   *[0] ноль
} провален ({ $tricks } { $tricks ->
    [one] взятка
    [few] взятки
   *[many] взяток
}) { $points }{ $note }
result-nil-tricks-ignored = { " — " }взятки на ноле партнёру не засчитаны
result-nil-tricks-bags = { " — " }взятки на ноле ушли в мешки
result-nil-tricks-help_partner = { " — " }взятки на ноле засчитаны партнёру

over-title = 🏁 <b>Игра окончена!</b>
sheet-hand = #
sheet-total = Итог
sheet-nil-mark = Н
sheet-blind-mark = С
sheet-block = <pre>{ $sheet }</pre>
    { $legend }
sheet-legend = В ячейке: заявки, заказ/взято, очки за сдачу (мешков всего). Н — ноль, С — слепой ноль.

score-title = 📊 <b>Счёт</b> · игра до { $target } · { $hands ->
    [one] сыграна { $hands } сдача
    [few] сыграно { $hands } сдачи
   *[many] сыграно { $hands } сдач
}
rules-title = 📜 <b>Правила стола</b>: { $rules }
rules-summary = Пики — всегда козырь. Надо давать масть; если её нет — любая карта. Заходить с пик нельзя, пока пики не вскрыты (разве что на руке одни пики). Заказ выполнен: 10 очков за взятку и по очку за лишнюю (мешок); 10 мешков — минус 100. Не выполнен — минус 10 за каждую взятку заказа. Ноль: ±100.

## Конец игры в личном чате у каждого игрока.
over-private-title = 🏁 <b>«{ $group }»: игра окончена</b>
over-private-won = 🏆 Вы победили!
over-private-lost = В этот раз не вышло — в следующий раз получится.
over-private-record = Ваша игра: { $hands } { $hands ->
    [one] сдача
    [few] сдачи
   *[many] сдач
}, заказов выполнено { $contracts_made } из { $contracts_bid }
over-private-nils = , нолей { $nils_made } из { $nils_bid }
over-private-next = Сыграть ещё с теми же игроками — кнопка «🔁 Ещё партию»:

## График счёта (картинка).
chart-title = «{ $group }»: ход игры
chart-target = цель { $target }
chart-hand = сдача
chart-points = очки
chart-caption = 📈 «{ $group }»: счёт сдача за сдачей
btn-chart-one = 📈 График
btn-chart = 📈 График: { $group }
