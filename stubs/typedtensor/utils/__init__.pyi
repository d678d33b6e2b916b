from . import data as data
