"""``python -m gateway_relay HOST …``: the same as ``gateway-hook HOST …``."""

import sys

from gateway_relay import main

sys.exit(main())
