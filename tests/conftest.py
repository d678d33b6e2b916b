"""Session-wide settings for the test suite.

Many tests start ``python -c ...`` or ``python -m ...`` in a subprocess from the repository root. Python
puts the working directory first on such a child's ``sys.path``, so the child would import the source
tree's ``typedtensor`` (which has no compiled ``_C``) instead of the installed package the suite tests.
``PYTHONSAFEPATH`` (Python 3.11+) keeps the working directory off the path in every child.
"""
from __future__ import annotations

import os

os.environ["PYTHONSAFEPATH"] = "1"
