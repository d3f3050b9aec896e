"""Entry point of the stand-alone bundle (``packaging/paperdesk.spec``): the ``paperdesk``
command line, which opens the window when given no command."""

import sys

from paperdesk.cli import main

if __name__ == "__main__":
    sys.exit(main())
