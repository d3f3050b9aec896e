"""Entry point of the stand-alone bundle (``packaging/paperdesk.spec``): the ``paperdesk``
command line, which opens the window when given no command."""

import multiprocessing
import sys

from paperdesk.launch import main

if __name__ == "__main__":
    # Large index batches are written by child processes (spawned); in a frozen app a
    # child is this executable again, and freeze_support() makes it serve instead.
    multiprocessing.freeze_support()
    sys.exit(main())
