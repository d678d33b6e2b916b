"""``typedtensor.nn.modules``: torch's class paths (``torch.nn.modules.conv.Conv2d``,
``torch.nn.modules.rnn.LSTM`` ...) for the classes of ``typedtensor.nn``, which is where each is
written; ``_paths.TORCH_FILES`` says which torch file holds which class."""

from __future__ import annotations

import importlib

from typedtensor.nn.modules._paths import TORCH_FILES

__all__: list[str] = []
for _file in TORCH_FILES:
    _submodule = importlib.import_module(f"{__name__}.{_file}")
    globals()[_file] = _submodule
    for _name in _submodule.__all__:
        globals()[_name] = getattr(_submodule, _name)
        __all__.append(_name)
