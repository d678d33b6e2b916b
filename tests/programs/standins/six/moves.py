"""``six.moves``: on Python 3, the standard library's own modules."""

import urllib
import urllib.request

__all__ = ["urllib"]
