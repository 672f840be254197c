"""Exceptions shared by the whole package.

Every refusal names the rule it enforces (an id of ``docs/rules.md`` such as
``R16``, or a rule option), so that players and tests can tell *why*.
"""

from __future__ import annotations

from typing import Any, TypeGuard

from .reasons import say


class BiribaError(ValueError):
    """Base class of every error the package raises on bad input."""


class NotationError(BiribaError):
    """Text that is not a card, meld, action or file of the notation."""


class IllegalActionError(BiribaError):
    """A well-formed action that the rules forbid in the current state.

    ``rule`` is the id of the broken rule (``"R16"``), ``key`` and ``params``
    the reason as data (a template of :data:`biriba.reasons.REASONS` and its
    parameters, JSON-ready, so that a front end can say it in any language),
    ``reason`` the same in English; ``str(error)`` is ``"R16: reason"``.
    A parameter may be another refusal: its reason is kept as
    ``{"key", "params"}``.
    """

    def __init__(self, rule: str, key: str, /, **params: object) -> None:
        self.rule = rule
        self.key = key
        self.params: dict[str, object] = {
            name: {"key": value.key, "params": value.params} if isinstance(value, IllegalActionError) else value
            for name, value in params.items()
        }
        self.reason = say(key, self.params)
        super().__init__(f"{rule}: {self.reason}")

    def __reduce__(self) -> tuple[object, ...]:
        """Pickle by rule, key and parameters (a bot's worker process may raise it)."""
        return (_refusal, (self.rule, self.key, self.params))


def _refusal(rule: str, key: str, params: dict[str, object]) -> IllegalActionError:
    return IllegalActionError(rule, key, **params)


class InvalidPositionError(BiribaError):
    """A position or record that no legal play can reach (wrong card count, ...)."""


def is_whole_number(value: Any) -> TypeGuard[int]:
    """Whether a value read from JSON is a whole number; every reader of positions, records and options asks.

    ``true`` is an ``int`` to Python and ``1e400`` a float infinity, so neither passes.
    """
    return isinstance(value, int) and not isinstance(value, bool)
