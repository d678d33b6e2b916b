from . import cpu as cpu
from . import cuda as cuda
from .autocast_mode import autocast as autocast
from .autocast_mode import custom_bwd as custom_bwd
from .autocast_mode import custom_fwd as custom_fwd
from .autocast_mode import is_autocast_available as is_autocast_available
from .grad_scaler import GradScaler as GradScaler
from .grad_scaler import OptState as OptState
