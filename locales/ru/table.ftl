## Сообщение стола в группе.

table-open-title = 🃏 <b>Новый стол для Пик</b> · { $rules }, до { $target } очков
seat-line = { $seat }: { $name }
table-partners-4 = Партнёры сидят напротив: Север и Юг против Востока и Запада.
table-partners-solo = Каждый играет сам за себя.
table-open-hint = Нажмите на место, чтобы сесть. Пустые места займёт клубный игрок. Игру начинает создатель стола.
btn-seat-free = { $seat }: сесть
btn-seat-taken = { $seat }: { $name }
btn-preset = Правила: { $rules }
btn-options = ⚙️ Настройки
btn-options-done = ✅ Готово
btn-start = ▶️ Начать игру
btn-stand = Встать

options-title = ⚙️ <b>Настройки стола</b> · { $rules }
options-hint = Нажимайте на настройку, чтобы переключить её значение. Менять правила может только создатель стола.
btn-option = { $name }: { $value }
rules-line = • { $name }: { $value }
opt-on = да
opt-off = нет
opt-none = нет

opt-players = Игроки
opt-target = Игра до
opt-losing_floor = Порог проигрыша
opt-failed_nil = Взятки проваленного ноля
opt-blind_nil = Слепой ноль
opt-bid_sum = Сумма заявок
opt-exact_bonus = Бонус за точные 1–2
opt-big_bid_bonus = Бонус за большую заявку
opt-quicksand = «Зыбучие пески»
opt-suicide = «Самоубийство»
opt-bicycle = «Велосипед»
opt-bag_penalty = Штраф за 10 мешков

optval-players = { $value ->
    [4] 4, пары
   *[other] { $value }, каждый за себя
}
optval-target = { $value } очков
optval-losing_floor = { $value } очков
optval-failed_nil-ignored = не считаются
optval-failed_nil-bags = идут в мешки
optval-failed_nil-help_partner = помогают партнёру
optval-blind_nil-off = нет
optval-blind_nil-chicago = чикагский (±200)
optval-blind_nil-club = клубный (с обменом)
optval-bid_sum-free = любая
optval-bid_sum-club = не больше числа взяток
optval-bid_sum-no_hell = не равна числу взяток

table-game-title = 🃏 <b>Пики</b> · { $rules }, до { $target } очков
table-hand = Сдача { $hand } · сдаёт { $dealer }
table-seat = { $marker }{ $seat } — { $name }: { $bid }, взяток { $tricks }
table-trick = На столе: { $cards }
table-last-trick = Прошлая взятка → { $winner }: { $cards }
table-trick-no = Взятка { $n } из { $total }
score-line = { $side }: <b>{ $total }</b> ({ $bags } { $bags ->
    [one] мешок
    [few] мешка
   *[many] мешков
})
table-winner = 🏆 Победа: { $winner } — { $totals }
turn-bid = Ход: { $name } — заявка.
turn-exchange = Ход: { $name } — обмен картами для слепого ноля.
turn-play = Ход: { $name }.
table-blocked = ⚠️ { $name } не получает сообщения бота — игра ждёт.
table-cancelled = 🃏 Стол закрыт: игра отменена.
blocked-note = ⚠️ { $name } не может получать карты: бот заблокирован или не запущен. Откройте @{ $bot } и нажмите «Старт» (или «Разблокировать») — игра подождёт.

## Стол в группе во время игры: где сдача и чей ход — сверху, заказ каждой стороны против её взяток.
table-status = 🃏 Сдача { $hand } · { $stage }
lookup-status = Сдача { $hand } · { $stage }
stage-bidding = заявки
stage-exchange = обмен картами для слепого ноля
stage-play = взятка { $n } из { $total } · { $spades }
stage-spades-broken = ♠ вскрыты
stage-spades-unbroken = ♠ не вскрыты
table-turn-bid = ▶️ Заявляет { $name }{ $deadline }
table-turn-exchange = ▶️ Отдаёт карты партнёру { $name }{ $deadline }
table-turn-play = ▶️ Ходит { $name }{ $deadline }
deadline-at = до { $time }
side-head = { $side }: <b>{ $total }</b> · { $bags }
side-detail = { "   " }заказ { $contract }, взято { $taken } ({ $players })
solo-line = { $head } · { $part }
player-progress = { $name } { $taken } из { $bid }
player-nil = { $name } { $blind ->
    [1] слепой ноль
   *[0] ноль
}{ $taken ->
    [0] {""}
   *[other] , взято { $taken }
}
player-waiting = { $name } …
table-over-title = 🃏 <b>Игра окончена</b> · { $rules }
