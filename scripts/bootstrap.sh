#!/usr/bin/env bash
# Set up (or refresh) the project's virtual environment from nothing but python3 and the package
# registries: the package itself is built from source with its build requirements from pyproject.
# Usage: source scripts/bootstrap.sh [test]   — "test" adds the test tools, the torch oracle and MPI
# (the distributed extra: the multi-process tests run in CI).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${TYPEDTENSOR_VENV:-$ROOT/.venv}"
PY="${PYTHON:-python3}"
# No wheel cache: a test install is about 3 GB (torch, MKL, onnxruntime, ...), and a cached copy of
# every wheel beside it doubled what the set-up needs on a disk that was once nearly full.
export PIP_NO_CACHE_DIR=1
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip
fi
export PATH="$VENV/bin:$PATH"
extras=""
if [ "${1:-}" = "test" ]; then
  extras="[test,distributed]"
  # The oracle for the tests: a local CPU build of exactly this version (never a newer one).
  python -m pip install -q "torch==2.13.0" || echo "bootstrap: torch 2.13.0 unavailable; oracle tests will skip" >&2
fi
python -m pip install -q "$ROOT$extras"
