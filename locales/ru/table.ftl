## Сообщение стола в группе.

table-open-title = 🃏 <b>Новый стол для Пик</b> · { $rules }, до { $target } очков
seat-line = { $seat }: { $name }
table-partners-4 = Партнёры сидят напротив: Север и Юг против Востока и Запада.
table-partners-solo = Каждый играет сам за себя.
table-open-hint = Нажмите на место, чтобы сесть. Пустые места займёт компьютер. Игру начинает создатель стола.
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
opt-exact_bonus = Бонус за точную заявку 1–2
opt-big_bid_bonus = Бонус за большую заявку
opt-quicksand = «Зыбучие пески»
opt-suicide = «Самоубийство»
opt-bicycle = «Велосипед»
opt-bag_penalty = Штраф за 10 мешков

## /rules: only what is on, each in a player's words.
rules-on-exact_bonus = +20, если заказ 1 или 2 выполнен ровно
rules-on-big_bid_bonus = +10 за каждую заявленную и взятую взятку после { $from }-й
rules-on-quicksand = заказ выполнен — 10 очков за каждую взятку заказа и минус 10 за каждую лишнюю, мешков нет; не выполнен — минус 10 за каждую недостающую
rules-on-suicide = в каждой паре хотя бы одна заявка — ноль, а заявка не на ноль — не меньше 4
rules-on-bicycle = нолей нет, заявка от 1, невыполненный заказ — 0 очков
rules-on-bag_penalty = каждые 10 мешков — минус 100

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
blocked-note = ⚠️ { $name } не может получать карты: бот заблокирован или не запущен. Откройте @{ $bot } и нажмите «Запустить» (или «Разблокировать») — игра подождёт.

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
# Under a side's score: while bids are made, the bids; in play, the side's
# contract against its tricks (✓ once reached), or each player when a nil is there.
side-bids = { "   " }заявки: { $bids }
side-detail = { "   " }{ $progress }
side-players = { "   " }{ $players }
solo-line = { $head } · { $part }
bid-of = { $name } { $bid }
bid-waiting = { $name } …
contract-progress = заказ { $contract } · { $left ->
    [0] взято { $taken } ✓
   *[other] взято { $taken } (ещё { $left })
}
solo-progress = заявка { $bid } · { $left ->
    [0] взято { $taken } ✓
   *[other] взято { $taken } (ещё { $left })
}
player-progress = { $name } { $taken } из { $bid }{ $done ->
    [1] { " " }✓
   *[0] {""}
}
player-nil = { $name }: { $status }
nil-status = { $blind ->
    [1] слепой ноль
   *[0] ноль
}{ $taken ->
    [0] {""}
    [one] { " " }✗ (уже { $taken } взятка)
    [few] { " " }✗ (уже { $taken } взятки)
   *[many] { " " }✗ (уже { $taken } взяток)
}
table-over-title = 🃏 <b>Игра окончена</b> · { $rules }
