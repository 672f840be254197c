"""The terminal game: you and a bot partner against two bots, drawn with rich.

A front end of its own: the engine and the bots import nothing from here.
"""

from .game import Game, run_game

__all__ = ["Game", "run_game"]
