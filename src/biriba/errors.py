"""Exceptions shared by the whole package.

Every refusal names the rule it enforces (an id of ``docs/rules.md`` such as
``R16``, or a rule option), so that players and tests can tell *why*.
"""

from __future__ import annotations


class BiribaError(ValueError):
    """Base class of every error the package raises on bad input."""


class NotationError(BiribaError):
    """Text that is not a card, meld, action or file of the notation."""


class IllegalActionError(BiribaError):
    """A well-formed action that the rules forbid in the current state.

    ``rule`` is the id of the broken rule (``"R16"``) and ``reason`` the
    explanation without it; ``str(error)`` is ``"R16: reason"``.
    """

    def __init__(self, rule: str, reason: str) -> None:
        super().__init__(f"{rule}: {reason}")
        self.rule = rule
        self.reason = reason


class InvalidPositionError(BiribaError):
    """A position or record that no legal play can reach (wrong card count, ...)."""
