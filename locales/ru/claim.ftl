# «Остальные мои»: a claim of every remaining trick of the hand.
btn-claim = 🙌 Остальные мои
btn-claim-accept = ✅ Согласен
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
claim-not-accepted = Заявку не приняли: играем дальше.
claim-unreachable = ❌ { $name } не может ответить (бот не может написать в личку): играем дальше.
claim-voter-computer = ❌ { $name }: на этом месте теперь играет клубный игрок, а он без доказательства на заявку не соглашается — играем дальше.
claim-proved = ✅ Доказано: как бы ни играли соперники, { $whose ->
    [side] { $name } с партнёром берут
   *[self] { $name } берёт
} все оставшиеся взятки. Сдача окончена.
claim-vote = Движок не доказал заявку. Решают соперники: { $names }.
# Under it: why the group does not see the cards (the partner reads the group).
claim-cards-to-voters = Карты заявившего видят только они.
claim-computer-refuses = Клубный игрок не соглашается на заявку без доказательства: играем дальше.
claim-accepted = ✅ Соперники согласились: сдача окончена.
claim-refused = ❌ { $name } не согласен: играем дальше.
claim-expired = ⌛ Время вышло, не все ответили: играем дальше.
# The claimer's hand while the other side decides.
claim-waiting = ⏳ Ваша заявка «Остальные мои» на голосовании: ждём ответа соперников.
# The private question to each person of the other side.
claim-ask = 🙌 «{ $group }»: { $name } заявляет, что возьмёт все оставшиеся взятки ({ $left }).
    Карты: { $cards }
    Согласны закончить сдачу так?
claim-ask-accepted = ✅ «{ $group }»: вы согласились с заявкой. Ждём остальных.
claim-ask-closed = «{ $group }»: заявка «Остальные мои» закрыта.
# Before a vote's deadline, to each voter who has not answered.
claim-vote-reminder = ⏰ «{ $group }»: ждём вашего ответа на заявку «Остальные мои» — осталось { $left }.
err-claim-voting = Идёт голосование по заявке «Остальные мои»: ждём ответа соперников.
err-claim-not-now = Заявить «Остальные мои» сейчас нельзя.
err-claim-limit = В этой сдаче вы уже заявляли «Остальные мои» { $limit ->
    [one] { $limit } раз
    [few] { $limit } раза
   *[many] { $limit } раз
}: больше нельзя.
err-claim-not-voter = Решают соперники заявившего.
err-claim-voted = ✅ Ваш ответ уже принят.
err-claim_not_allowed = Заявка возможна, пока остались хотя бы две взятки.
err-claim_not_conceded = «Остальные мои» заявляют кнопкой заявки, а не ходом.
