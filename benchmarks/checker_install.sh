#!/usr/bin/env bash
# The checker-only install, timed: a fresh venv, `pip install` of this repository with
# TYPEDTENSOR_CHECKER_ONLY=1 (no compiler, no numpy), then `typedtensor check examples/`.
# Prints each step's wall time and the size the install added to site-packages.
#   benchmarks/checker_install.sh [PYTHON] [extra pip args, e.g. --no-cache-dir]
# NO_PIP_IN_VENV=1 makes the venv without pip (ensurepip is most of `python -m venv`'s time) and
# installs into it with the outer interpreter's pip (`pip --python`), as pipx-style tools do.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${1:-python3}"
shift || true
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
now() { date +%s.%N; }
t0=$(now)
if [ "${NO_PIP_IN_VENV:-0}" = 1 ]; then
  "$PY" -m venv --without-pip "$WORK/venv"
  PIP=("$PY" -m pip --python "$WORK/venv/bin/python")
else
  "$PY" -m venv "$WORK/venv"
  PIP=("$WORK/venv/bin/python" -m pip)
fi
t1=$(now)
SITE="$("$WORK/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
before=$(du -sk "$SITE" | cut -f1)
TYPEDTENSOR_CHECKER_ONLY=1 "${PIP[@]}" install -q --disable-pip-version-check "$@" "$ROOT"
t2=$(now)
after=$(du -sk "$SITE" | cut -f1)
cd "$ROOT/examples"
"$WORK/venv/bin/typedtensor" check --no-cache .
t3=$(now)
echo "python: $("$WORK/venv/bin/python" -V 2>&1); packages: $("${PIP[@]}" list --format=freeze --disable-pip-version-check 2>/dev/null | grep -v '^pip=\|^setuptools=' | tr '\n' ' ')"
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v kb=$((after - before)) 'BEGIN {
  printf "venv %.1f s, install %.1f s, check examples/ %.1f s: total %.1f s; installed %.1f MiB\n", b - a, c - b, d - c, d - a, kb / 1024 }'
