"""``python -m biriba``: the same command line as ``biriba``."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
