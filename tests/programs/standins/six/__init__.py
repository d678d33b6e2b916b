"""A stand-in for six (not installed here): super_resolution's data.py imports ``six.moves.urllib``
for a download the tests never make (its data directory is written before it runs)."""

from . import moves

__all__ = ["moves"]
