"""The web game: tables with friends and bots, played in the browser (``biriba serve``).

A front end of its own (the engine and the bots import nothing from here):
:mod:`.app` is the HTTP API (``docs/protocol.md``), :mod:`.connection` a
WebSocket (its messages read and checked, its queue written out),
:mod:`.schema` every request and message, :mod:`.names` the names people
can tell apart, :mod:`.hall` the tables a server knows and its caps,
:mod:`.quotas` the quotas over every process, :mod:`.live` the tables in
play, :mod:`.audience` a table's clients and who is at it,
:mod:`.driver` what plays a table's bots and stand-in, :mod:`.messages`
what a table tells its clients (refusals, events, its info),
:mod:`.thinking` the bots' worker processes, :mod:`.store` their storage
in SQLite or PostgreSQL, :mod:`.cluster` the messages between several
server processes (docs/deploy.md), :mod:`.metrics` what ``/metrics``
reports, :mod:`.config` the limits, and ``static/`` the page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    """``create_app`` is imported when asked for, so that ``biriba.server.config`` needs no web package."""
    if name == "create_app":
        from .app import create_app

        return create_app
    raise AttributeError(name)
