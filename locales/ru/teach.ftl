## Подсказки мастера (💡) и разбор сдачи (/review).

opt-hints = 💡 Подсказки мастера
table-hints = { $on ->
    [1] 💡 Подсказки мастера включены: сколько их взял каждый, видно в итогах.
   *[other] 💡 Подсказки мастера выключены.
}
btn-hint = 💡 Подсказка
hints-used-of = { $name } { $n }
hints-used = 💡 Подсказок за игру: { $players }
err-hints-off = Подсказки за этим столом выключены.

hint-play = 💡 Мастер сыграл бы { $card }: { $reason }
hint-bid = 💡 Мастер заявил бы { $bid }: { $reason }
hint-exchange = 💡 Мастер отдал бы { $card }: { $reason }
hint-blind = 💡 Мастер заявил бы слепой ноль: { $reason }
hint-look = 💡 Мастер открыл бы карты: слепой ноль здесь не нужен.

teach-bid = { $n ->
    [0] ноль
   *[other] { $n }
}

teach-reason-only_move = другие карты дали бы то же самое
teach-reason-keep_nil = так ваш ноль не возьмёт взятку
teach-reason-cover_nil = прикрываем ноль партнёра
teach-reason-set_nil = пусть ноль соперника возьмёт взятку
teach-reason-partner_wins_trick = партнёр берёт эту взятку
teach-reason-take_trick = эта взятка нужна для заказа
teach-reason-set_opponents = заказ уже набран — отнимаем взятки у соперников
teach-reason-avoid_bags = заказ уже набран — лишняя взятка стала бы мешком
teach-reason-cash_winner = эту карту никто не перебьёт
teach-reason-lead_long_suit = заход с длинной масти
teach-reason-save_winners = младшая карта: старшие пригодятся позже
teach-reason-bid_tricks = столько взяток рука, скорее всего, возьмёт
teach-reason-bid_nil = рука может не взять ни одной взятки
teach-reason-bid_for_win = так велит счёт партии
teach-reason-blind_nil = команда далеко позади: слепой ноль даёт шанс
teach-reason-help_blind_nil = эти карты помогут слепому нолю

review-title = 🔎 <b>Разбор: «{ $group }», сдача { $hand }</b>
review-play = { $n }. <b>Взятка { $trick }.</b> { $position } Ваши карты: { $cards }.
    Вы сыграли { $played }, мастер сыграл бы { $better }: { $reason }. Разница ≈ { $gain } { $gain ->
        [one] очко
        [few] очка
       *[many] очков
    }.
review-bid = { $n }. <b>Заявка.</b> { $position } Ваши карты: { $cards }.
    Вы заявили { $played }, мастер заявил бы { $better }: { $reason }. Разница ≈ { $gain } { $gain ->
        [one] очко
        [few] очка
       *[many] очков
    }.
review-exchange = { $n }. <b>Обмен для слепого ноля.</b> Ваши карты: { $cards }.
    Вы отдали { $played }, мастер отдал бы { $better }: { $reason }. Разница ≈ { $gain } { $gain ->
        [one] очко
        [few] очка
       *[many] очков
    }.
review-table = На столе: { $cards }.
review-lead = Вы заходили.
review-bids = Заявки до вас: { $bids }.
review-first-bid = Ваша заявка была первой.
review-note = Разница — сколько очков за сдачу, по оценке мастера, принёс бы его выбор.
review-clean = 🔎 «{ $group }», сдача { $hand }: мастер не нашёл у вас решений, которые стоили бы { $min } { $min ->
    [one] очко
    [few] очка
   *[many] очков
} и больше. Хорошо сыграно!
review-none = 🔎 Разбирать пока нечего: у вас ещё нет сыгранной сдачи. После сдачи команда /review разберёт её.
review-busy = 🔎 Разбор уже идёт — секунду.
review-in-private = 🔎 Разбор сдачи — в личном чате со мной: напишите туда /review.
cmd-review = Разбор вашей последней сдачи
