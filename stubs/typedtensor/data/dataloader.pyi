from . import DataLoader as DataLoader
from . import default_collate as default_collate
from . import default_convert as default_convert
