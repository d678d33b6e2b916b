"""``typedtensor.backends``: backend switches, as a package so that ``import typedtensor.backends.cudnn``
works like torch's.

``cpu`` (the large-buffer cache and the instruction set of the math kernels) and ``cuda.matmul``
(TF32) are typedtensor's own switches; ``cudnn``, ``mps``, ``mkldnn``, ``openmp`` answer what torch's
modules answer for a library that does not use cuDNN, Metal or oneDNN, and accept the flags programs set.
"""

from __future__ import annotations

from typedtensor._runtime.backends import cpu as cpu
from typedtensor.backends import cuda as cuda
from typedtensor.backends import cudnn as cudnn
from typedtensor.backends import mkldnn as mkldnn
from typedtensor.backends import mps as mps
from typedtensor.backends import openmp as openmp

__all__ = ["cpu", "cuda", "cudnn", "mkldnn", "mps", "openmp"]
