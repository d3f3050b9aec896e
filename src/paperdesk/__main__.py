"""``python -m paperdesk``: the command line (see :mod:`paperdesk.cli`)."""

import sys

from paperdesk.cli import main

sys.exit(main())
