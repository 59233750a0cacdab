## Темп игры, сроки хода, напоминания, быстрые справки.

dur-hm = { $h } ч { $m } мин
dur-h = { $h } ч
dur-m = { $m } мин
dur-s = { $s } с

table-pace = { $daily ->
    [1] ⏳ По дням: { $pace } на ход.
   *[other] ⏳ В реальном времени: { $pace } на ход.
}
btn-pace = ⏳ Темп: { $pace } на ход
deadline-daily = ⏳ Срок хода: до { $time } UTC { $day }.{ $month ->
    [10] 10
    [11] 11
    [12] 12
   *[other] 0{ $month }
} (осталось { $left })
deadline-live = ⏳ На ход: { $pace }
table-away = 🤖 { $name }: играет компьютер (вернуться: /back).

reminder = ⏰ Ваш ход в «{ $group }» — осталось { $left }.
timeout-move = ⏰ { $name }: время вышло — компьютер { $move }.
timeout-away = ⏰ { $name }: время вышло третий раз подряд — компьютер { $move } и дальше играет на этом месте. Вернуться можно кнопкой или командой /back.
away-private = Вы пропустили три хода подряд в «{ $group }» — за вас играет компьютер. Когда сможете, возвращайтесь:
back-note = 👋 { $name } снова за столом.
btn-back = ↩️ Вернуться в игру
back-done = С возвращением! Карты пришли в личный чат.
err-not-away = За вас и так никто не играет.

btn-q-sheet = 📋 Счёт по сдачам

lookup-no-table = В этой группе ещё не было игры. Откройте стол командой /newgame.
lookup-no-games = У вас сейчас нет игр. Откройте стол в группе командой /newgame.
lookup-table-head = <b>«{ $group }»</b>
lookup-start-first = Чтобы я мог прислать это в личный чат, откройте @{ $bot } и нажмите «Запустить».
lookup-sent-private = Отправлено вам в личный чат.
lookup-not-started = Игра ещё не началась (до { $target } очков).
lookup-bidding = Сдача { $hand }: идут заявки.
lookup-lead = Масть захода: { $suit }
lookup-lead-next = Заходит { $name }.
lookup-info-seat = { $seat } — { $name }: { $bid }, взяток { $tricks }
lookup-no-sheet = Показать пока нечего: ни одна сдача ещё не сыграна.

history-empty = В этой группе ещё нет сыгранных партий.
history-title = 📜 <b>Последние партии</b>
history-line = { $day }: победа — { $winner } ({ $totals }), { $hands } { $hands ->
    [one] сдача
    [few] сдачи
   *[many] сдач
}
history-in-group = История партий есть в каждой группе: наберите /history там.
stats-empty = { $name }: пока нет законченных партий.
stats = 📈 <b>{ $name }</b>: { $games } { $games ->
    [one] партия
    [few] партии
   *[many] партий
}, побед { $wins }; заказов выполнено { $contracts_made } из { $contracts_bid }
stats-nils = ; нолей сыграно { $nils_made } из { $nils_bid }

cmd-turn = Чей ход и до какого времени
cmd-table = Что на столе: взятка, масть, пики
cmd-info = Заявки и взятки игроков
cmd-sheet = Счёт по сдачам
cmd-history = Последние партии группы
cmd-stats = Ваша статистика
cmd-back = Вернуться за стол

# "Your turn" pings in real-time games (deleted when the player moves).
turn-ping = 🔔 Ваш ход в «{ $group }» — осталось { $left }.
btn-to-hand = 🃏 К картам
quiet-on = 🔕 Напоминания о ходе выключены. Включить снова: /quiet
quiet-off = 🔔 Напоминания о ходе включены: если ход ждёт вас несколько секунд, придёт сообщение. Выключить: /quiet
cmd-quiet = Напоминания о ходе: выкл/вкл
timeout-played = сыграл { $card }
timeout-bid = заявил { $bid }
