"""``python -m gateway._cli``: the same as the ``gateway`` command."""

import sys

from gateway._cli import main

sys.exit(main())
