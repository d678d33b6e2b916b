from . import default_collate as default_collate
from . import default_convert as default_convert
