"""``typedtensor.utils.data`` is ``typedtensor.data`` (one module object, two import paths), and so
are its submodules: ``typedtensor.utils.data.dataloader`` is ``typedtensor.data.dataloader``."""

from __future__ import annotations

import sys

from typedtensor import data as _data

sys.modules[__name__] = _data
for _sub in ("collate", "dataloader", "dataset", "distributed", "sampler"):
    sys.modules[f"{__name__}.{_sub}"] = getattr(_data, _sub)
