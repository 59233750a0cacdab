## Общие слова: места, игроки, заявки.

seat = { $players ->
    [4] { $seat ->
        [0] Север
        [1] Восток
        [2] Юг
       *[3] Запад
    }
   *[other] Место { $num }
}
computer = 🤖 { $seat }
seat-free = свободно
join-names = { $a } + { $b }

bid-none = ждём заявку
bid-nil = ноль
bid-blind = слепой ноль
bid-n = заявка { $n }

preset-classic = «Классика»
preset-club = «Клуб»
preset-custom = свои правила (на основе { $base })

trick-card = { $name } { $card }
spades-broken = ♠ Пики вскрыты.
spades-unbroken = ♠ Пики ещё не вскрыты.

cmd-start = Начать и получить помощь
cmd-newgame = Открыть стол для новой игры
cmd-score = Счёт текущей игры
cmd-rules = Правила этого стола
cmd-leave = Встать из-за стола
cmd-cancel = Отменить игру (создатель или админ)
cmd-help = Как играть

# Время, до которого надо сходить (часы группы, TIME_ZONE).
time-tomorrow = завтра { $time }
time-date = { $day }.{ $month } { $time }
# Мешки: одно написание везде.
bags = { $n } { $n ->
    [one] мешок
    [few] мешка
   *[many] мешков
}
bags-warn = ⚠️ ещё мешок — и −100
you = вы
