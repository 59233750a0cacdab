# «Остальные мои»: a claim of every remaining trick of the hand.
btn-claim = 🙌 Остальные мои
btn-claim-accept = ✅ Да, заканчиваем
btn-claim-refuse = ❌ Играем дальше
# The group: the claim with the claimer's remaining cards, once it ends the hand.
claim-made = 🙌 { $name }: «Остальные мои»{ $whose ->
    [side] { " " }(вместе с партнёром)
   *[self] { "" }
} — { $left } { $left ->
    [one] взятка
    [few] взятки
   *[many] взяток
}. Карты: { $cards }
# The same claim without the cards: while it is voted on, refused at once, or once play goes on.
claim-made-bare = 🙌 { $name }: «Остальные мои»{ $whose ->
    [side] { " " }(вместе с партнёром)
   *[self] { "" }
} — { $left } { $left ->
    [one] взятка
    [few] взятки
   *[many] взяток
}.
claim-not-accepted = «Остальные мои» не приняли: играем дальше.
claim-unreachable = ❌ { $name } не может ответить (бот не может написать в личку): играем дальше.
claim-voter-computer = ❌ { $name }: теперь это место за компьютером, а компьютер без доказательства не соглашается — играем дальше.
claim-proved = ✅ Доказано: где бы ни были остальные карты и как бы их ни играли, { $whose ->
    [side] { $name } с партнёром берут
   *[self] { $name } берёт
} все оставшиеся взятки. Сдача окончена.
claim-vote = Бот не может сам проверить — решают соперники: { $names }.
# Under it: why the group does not see the cards (the partner reads the group).
claim-cards-to-voters = Карты видят только они.
claim-computer-refuses = Компьютер без доказательства не соглашается: играем дальше.
claim-accepted = ✅ Соперники согласились: сдача окончена.
claim-refused = ❌ { $name } против — играем дальше.
claim-expired = ⌛ Время вышло, не все ответили: играем дальше.
# The claimer's hand while the other side decides.
claim-waiting = ⏳ Вы сказали «Остальные мои»: ждём ответа соперников.
# The private question to each person of the other side.
claim-ask = 🙌 «{ $group }»: { $name } заявляет, что возьмёт все оставшиеся взятки ({ $left }).
    Карты: { $cards }
    Согласны закончить сдачу так?
claim-ask-accepted = ✅ «{ $group }»: вы согласились закончить сдачу. Ждём остальных.
claim-ask-closed = «{ $group }»: «Остальные мои» — голосование закрыто.
# Before a vote's deadline, to each voter who has not answered.
claim-vote-reminder = ⏰ «{ $group }»: ждём вашего ответа на «Остальные мои» — осталось { $left }.
err-claim-voting = Идёт голосование: «Остальные мои» — ждём ответа соперников.
err-claim-not-now = Заявить «Остальные мои» сейчас нельзя.
err-claim-limit = В этой сдаче вы уже заявляли «Остальные мои» { $limit ->
    [one] { $limit } раз
    [few] { $limit } раза
   *[many] { $limit } раз
}: больше нельзя.
err-claim-not-voter = Решают соперники того, кто сказал «Остальные мои».
err-claim-voted = ✅ Ваш ответ уже принят.
err-claim_not_allowed = «Остальные мои» можно сказать, пока остаётся хотя бы две взятки.
err-claim_not_conceded = «Остальные мои» — это кнопка 🙌, а не ход.
