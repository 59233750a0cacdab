## Клуб: постоянные партнёры, послесловие, Авторитет, профиль.

name-authority = { $name } ★{ $authority }

gesture-thanks = спасибо за игру
gesture-partner = отличный партнёр
gesture-nil = красивый ноль
gesture-played = хорошо сыграно
afterword-title = 💬 <b>Послесловие</b> — десять минут, чтобы сказать друг другу доброе слово. Выбор — в личном чате с ботом.
afterword-line = { $sender } → { $receiver }: { $gesture }
afterword-someone = кто-то
afterword-empty = Пока тихо.
afterword-quiet = В этот раз обошлись без слов.
afterword-closed = Послесловие закрыто. Сказали: { $said }. Спасибо всем за игру!
afterword-sent = Отправлено 💛
err-afterword-closed = Послесловие уже закрыто.
err-afterword-self = Себе — нельзя 🙂
err-afterword-twice = Это доброе слово вы уже сказали этому игроку.
err-afterword-computer = Компьютеру доброе слово не нужно — скажите его людям 🙂
err-afterword-not-player = Доброе слово говорят те, кто сидел за столом.

partners-new = 🤝 { $a } и { $b } сыграли вместе три партии — теперь они постоянные партнёры!
partners-new-private = 🤝 Партнёр: { $name } — три партии вместе, теперь вы постоянные партнёры. Клуб будет сажать вас вместе.
partners-none = Постоянных партнёров пока нет: ими становятся после { $need } партий вместе.
partners-title = 🤝 <b>Постоянные партнёры</b>
partners-line = • { $name }: { $games } { $games ->
    [one] партия
    [few] партии
   *[many] партий
} вместе, побед { $wins }

authority-title = ★ <b>Авторитет</b> — за тёплые послесловия, не за победы
authority-line = { $n }. { $name } — ★{ $authority }
authority-empty = В этой группе ещё никто не играл.
authority-in-group = Авторитет участников смотрят в группе: /authority.

profile = 👤 <b>{ $name }</b>
    ★ Авторитет: { $authority }
    Партий: { $games }, побед: { $wins }
    Заказов выполнено: { $contracts_made } из { $contracts_bid }
    Нолей сыграно: { $nils_made } из { $nils_bid }
    Постоянных партнёров: { $partners }

forget-confirm = Удалить все ваши данные (имя, статистику, партнёров, Авторитет)? Результаты сыгранных партий останутся без вашего имени. Это нельзя отменить.
btn-forget-yes = Да, удалить
btn-forget-no = Нет
forget-done = Готово: ваши данные удалены.
forget-kept = Ничего не удалено.

cmd-profile = Профиль: партии, партнёры, Авторитет
cmd-partners = Постоянные партнёры
cmd-authority = Авторитет участников группы
cmd-forget_me = Удалить мои данные

# The afterword's picker in private, and its summary at the close.
afterword-closed-quiet = Послесловие закрыто. Спасибо всем за игру!
afterword-pair = { $sender } → { $receiver } { $gestures }
btn-afterword = 💬 Сказать доброе слово
afterword-private-title = 💬 <b>Послесловие</b> к игре в «{ $group }»
afterword-mine = Вы → { $receiver }: { $gesture }
afterword-whom = Кому сказать доброе слово?
afterword-what = { $name } — что сказать?
afterword-private-closed = Послесловие закрыто.
btn-afterword-back = ← К списку
