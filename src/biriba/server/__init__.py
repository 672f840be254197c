"""The web game: tables with friends and bots, played in the browser (``biriba serve``).

A front end of its own (the engine and the bots import nothing from here):
:mod:`.app` is the HTTP API and WebSocket protocol (``docs/protocol.md``),
:mod:`.live` the tables in play, :mod:`.store` their storage in SQLite or
PostgreSQL, and ``static/`` the page.
"""

from .app import create_app

__all__ = ["create_app"]
