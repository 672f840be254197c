"""The doctests of ``src``: a module compiled by ``make fast`` runs as C, so its doctests are left out."""

from biriba import compiled

collect_ignore = [str(compiled.SRC / module) for module in compiled.MODULES if compiled.extension_of(module).exists()]
