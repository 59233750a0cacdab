## Игра в терминале (python -m terminal). Места, заявки, правила и отказы движка
## берутся из общих файлов (common.ftl, messages.ftl): те же слова, что в боте.

term-start = Пики: { $players } { $players ->
    [one] игрок
    [few] игрока
   *[many] игроков
}, правила { $rules }, сид { $seed }.
term-your-seat = Ваше место: { $seat }. Уровень компьютера: { $level }.
term-you = { $name } (вы)
term-partner = { $name } (партнёр)
term-hand-start = --- Раздача { $hand }, сдаёт { $dealer } ---
term-your-cards = Ваши карты: { $cards }
term-blind-offer = Вам доступен слепой ноль (±200): его объявляют, не глядя в карты.
term-blind-ask = Объявить слепой ноль? (да/нет):{ " " }
term-yes-or-no = Ответьте «да» или «нет».
term-bids = Заявки: { $bids }
term-bid-of = { $name }: { $bid }
term-bids-allowed = Можно заявить: { $bids }
term-bid-ask = Ваша заявка (число, 0 — ноль, ? — подсказка):{ " " }
term-hint = Подсказка: { $action }
term-playable = Можно сыграть: { $cards }
term-card-unknown = Не понял карту: введите её номер из списка или, например, QS, 10♦, Д♠.
term-pass-ask = Какую карту отдать ({ $name }), { $n }-ю из двух?{ " " }
term-play-ask = Ваш ход:{ " " }
term-on-table = На столе: { $cards }
term-your-lead = Взятка { $n }: вы заходите.
term-bid-said = { $name } заявляет: { $bid }
term-card-played = { $name }: { $card }
term-passes-to = { $from } передаёт { $to }: { $cards }
term-passes-hidden = { $from } передаёт две карты партнёру.
term-trick-won = Взятку берёт { $name }.
term-hand-over = === Раздача { $hand } сыграна ===
term-hand-seat = { "  " }{ $name }: { $bid }, взяток { $tricks }
term-hand-side = { "  " }{ $side }: { $score } за раздачу, всего { $total }, мешков { $bags }
term-quit = Игра прервана.
term-over = Игра окончена. Победа: { $winner }.

# What the player may type: words separated by spaces, case ignored.
term-words-yes = да д y yes
term-words-no = нет н n no
term-words-quit = выход quit q exit
# Russian rank letters accepted in card notation: letter=rank.
term-rank-letters = В=J Д=Q К=K Т=A
