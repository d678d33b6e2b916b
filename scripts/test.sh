#!/usr/bin/env bash
# The test job: build and install the package from source, then run the whole test suite against
# the installed package (never the source tree: pytest runs with --import-mode=importlib).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/bootstrap.sh" test
cd "$ROOT"
pytest -q "$@"
