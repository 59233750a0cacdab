"""The Telegram Mini App: the table drawn, served by the bot itself.

``server`` (routes, the API, the event stream), ``auth`` (Telegram's
initData), ``state`` (what a seat may see, as JSON), ``feed`` (which
tables are watched; handing streams over), ``streams`` (the process that
serves them), ``wire`` (what those two say), ``texts`` (the page's words from locales/), ``links`` (the
button and the group link), ``static/`` (the page, its script and style).
Nothing is imported here: the views import ``links`` without the server.
"""
