from typing import Any

from . import cuda as cuda
from . import cudnn as cudnn
from . import mkldnn as mkldnn
from . import mps as mps
from . import openmp as openmp

cpu: Any
