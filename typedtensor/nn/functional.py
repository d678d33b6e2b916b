"""``typedtensor.nn.functional``: the same module object as ``typedtensor._runtime.functional``
(where every function is written, once); this file only makes the import path torch's."""

from __future__ import annotations

import sys

from typedtensor._runtime import functional as _functional

sys.modules[__name__] = _functional
