from . import cpu as cpu
from . import cuda as cuda
from .grad_scaler import GradScaler as GradScaler
from .grad_scaler import OptState as OptState
