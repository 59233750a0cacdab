## Личное сообщение с картами игрока.

hand-title = 🃏 <b>{ $group }</b> · сдача { $hand }
hand-you-partner = Вы — { $seat }, партнёр: { $partner }
hand-you = Вы — { $seat }
hand-closed = 🂠 Карты закрыты ({ $count }): можно заявить слепой ноль, не глядя.
hand-cards = Ваши карты: { $cards }
hand-passed = Вы отдали партнёру: { $cards }
hand-received = Вы получили: { $cards }
hand-bid-of = { $name } — { $bid }
hand-bids = Заявки: { $bids }
hand-tricks-of = { $name } { $n }
hand-tricks = Взятки: { $tricks }
hand-game-over = Игра окончена.
hand-wait = Ждём: { $name }.
hand-blind-later = Когда дойдёт очередь, можно будет заявить слепой ноль. Или откройте карты сейчас.
hand-blind-offer = Ваша заявка. Слепой ноль (±200) — не глядя в карты, или откройте карты и назовите число.
hand-your-bid = Ваша заявка: сколько взяток возьмёте?
hand-exchange = Слепой ноль: выберите 2 карты для { $partner }.
hand-exchange-second = Выбрана { $card }. Выберите ещё одну карту для { $partner }.
hand-your-play = Ваш ход: выберите карту.
hand-cancelled = Игра отменена.
btn-blind = 🙈 Слепой ноль
btn-look = 👀 Открыть карты
btn-nil = Ноль

result-title = 📋 <b>Сдача { $hand } сыграна</b>
result-player = { $name }: { $bid }, взял(а) { $tricks }
result-side = { $side } ({ $players }): <b>{ $score }</b> [{ $parts }] → { $total }, мешков { $bags }
part-contract = заказ { $points }
part-bags = лишние { $points }
part-nil = ноль { $points }
part-bonus = бонус { $points }
part-penalty = штраф за мешки { $points }

over-title = 🏆 <b>Игра окончена!</b> Победа: { $winner } ({ $totals }).
sheet-hand = #
sheet-bids = Заявки
sheet-tricks = Взятки
sheet-blind-mark = С
sheet-block = <pre>{ $sheet }</pre>
    { $legend }
sheet-legend = В столбцах команд: изменение = итог/мешки. 0 — ноль, С — слепой ноль.

score-title = 📊 <b>Счёт</b> · игра до { $target } · сыграно { $hands } { $hands ->
    [one] сдача
    [few] сдачи
   *[many] сдач
}
rules-title = 📜 <b>Правила стола</b>: { $rules }
rules-summary = Пики — всегда козырь. Надо давать масть; если её нет — любая карта. С пики нельзя заходить, пока их не вскрыли (или если на руке одни пики). Заказ выполнен: 10 очков за взятку и по очку за лишнюю (мешок); 10 мешков — минус 100. Не выполнен — минус 10 за каждую заказанную. Ноль: ±100.

## Конец игры в личном чате у каждого игрока.
over-private-title = 🏁 <b>«{ $group }»: игра окончена</b>
over-private-winner = Победа: { $winner } ({ $totals }).
over-private-won = 🏆 Вы победили!
over-private-lost = В этот раз не вышло — в следующий раз получится.
over-private-record = Ваша игра: { $hands } { $hands ->
    [one] сдача
    [few] сдачи
   *[many] сдач
}, заказов выполнено { $contracts_made } из { $contracts_bid }, нулей { $nils_made } из { $nils_bid }.
over-private-next = Сыграть ещё: /newgame в группе «{ $group }».

## График счёта (картинка).
chart-title = «{ $group }»: ход игры
chart-target = цель { $target }
chart-hand = сдача
chart-points = очки
chart-caption = 📈 «{ $group }»: счёт сдача за сдачей
btn-chart-one = 📈 График
btn-chart = 📈 График: { $group }
