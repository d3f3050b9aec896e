"""``python -m paperdesk``: the command line (see :mod:`paperdesk.cli`), started
through :mod:`paperdesk.launch` (a Ctrl+C while the modules load exits 130 quietly)."""

import sys

from paperdesk.launch import main

sys.exit(main())
