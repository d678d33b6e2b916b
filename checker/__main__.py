"""``python -m typedtensor.checker``."""

import sys

from .cli import main

sys.exit(main())
