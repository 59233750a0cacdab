"""The Telegram Mini App: the table drawn, served by the bot itself.

``server`` (routes, the API, the event stream), ``auth`` (Telegram's
initData), ``state`` (what a seat may see, as JSON), ``hub`` (the live
event streams), ``texts`` (the page's words from locales/),
``static/`` (the page, its script and style). The button and the group
link are in :mod:`bot.views.links`. Nothing is imported here.
"""
