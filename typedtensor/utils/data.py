"""``typedtensor.utils.data`` is ``typedtensor.data`` (one module object, two import paths)."""

from __future__ import annotations

import sys

from typedtensor import data as _data

sys.modules[__name__] = _data
