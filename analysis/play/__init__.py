"""``ludolab play``: a local web page to play the four games against the bots, with hints.

:mod:`.games` (the games as the page sees them), :mod:`.session` (one game on the server, hints,
the review, the record and its replay), :mod:`.server` (the Flask app), ``static/`` (the page).
"""
