"""``python -m paperdesk``: the command line (see :mod:`paperdesk.cli`)."""

import sys

from .cli import main

sys.exit(main())
