#!/usr/bin/env bash
# The checker-only install, timed: a fresh venv, `pip install` of this repository with
# TYPEDTENSOR_CHECKER_ONLY=1 (no compiler, no numpy), then `typedtensor check examples/`.
# Prints each step's wall time and CPU time (user + system: what the step costs on an idle
# machine is near it when the machine is busy) and the size the install added to site-packages.
#   benchmarks/checker_install.sh [PYTHON] [extra pip args, e.g. --no-cache-dir]
# NO_PIP_IN_VENV=1 makes the venv without pip (ensurepip is most of `python -m venv`'s time) and
# installs into it with the outer interpreter's pip (`pip --python`), as pipx-style tools do.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${1:-python3}"
shift || true
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
step() {  # step NAME COMMAND...: runs it, appends "NAME wall cpu" to $WORK/times
  local name=$1
  shift
  /usr/bin/time -f "$name %e %U %S" -a -o "$WORK/times" "$@"
}
if [ "${NO_PIP_IN_VENV:-0}" = 1 ]; then
  step venv "$PY" -m venv --without-pip "$WORK/venv"
  PIP=("$PY" -m pip --python "$WORK/venv/bin/python")
else
  step venv "$PY" -m venv "$WORK/venv"
  PIP=("$WORK/venv/bin/python" -m pip)
fi
SITE="$("$WORK/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
before=$(du -sk "$SITE" | cut -f1)
step install env TYPEDTENSOR_CHECKER_ONLY=1 "${PIP[@]}" install -q --disable-pip-version-check "$@" "$ROOT"
after=$(du -sk "$SITE" | cut -f1)
cd "$ROOT/examples"
step check "$WORK/venv/bin/typedtensor" check --no-cache .
echo "python: $("$WORK/venv/bin/python" -V 2>&1); packages: $("${PIP[@]}" list --format=freeze --disable-pip-version-check 2>/dev/null | grep -v '^pip=\|^setuptools=' | tr '\n' ' ')"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
awk -v kb=$((after - before)) '{ wall += $2; cpu += $3 + $4; printf "%-8s wall %5.1f s  cpu %5.1f s\n", $1, $2, $3 + $4 }
  END { printf "total    wall %5.1f s  cpu %5.1f s; installed %.1f MiB\n", wall, cpu, kb / 1024 }' "$WORK/times"
