#!/usr/bin/env bash
# The sanitizer job: builds the C++ core, typedtensor._C and typedtensor-run with AddressSanitizer +
# UndefinedBehaviorSanitizer (CMake -DTYPEDTENSOR_SANITIZE=ON, in build/sanitize) and runs the three
# loader fuzzers of tests/fuzz_loaders.py (tt.load, tt.jit.load + run, typedtensor-run's .npz reader)
# against that build. It passes when every fuzzer ends cleanly and no sanitizer wrote a report.
#
# Usage: scripts/sanitize.sh [ITERATIONS]   (default 300 per loader and seed)
#   TT_FUZZ_SEEDS=1,2,3       seeds to run (default 1)
#   TYPEDTENSOR_SANITIZE_VENV  the virtual environment it uses (default .venv-sanitize; made if absent)
# Needs python3, cmake and g++ (with libasan / libubsan); the rest comes from the package registries.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ITERATIONS="${1:-300}"
SEEDS="${TT_FUZZ_SEEDS:-1}"
VENV="${TYPEDTENSOR_SANITIZE_VENV:-$ROOT/.venv-sanitize}"
BUILD="$ROOT/build/sanitize"
CXX="${CXX:-g++}"

if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip
fi
PY="$VENV/bin/python"
# what the build and the loaders need: no torch, no editable install of the package
"$PY" -m pip install -q "pybind11>=3.0" scipy-openblas32 numpy typing-extensions

generator=()
if command -v ninja > /dev/null; then generator=(-G Ninja); fi
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  cmake -S "$ROOT" -B "$BUILD" "${generator[@]}" -DTYPEDTENSOR_SANITIZE=ON -DTYPEDTENSOR_CUDA=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=OFF -DCMAKE_CXX_COMPILER="$CXX" \
    -DPython_EXECUTABLE="$PY" -Dpybind11_DIR="$("$PY" -m pybind11 --cmakedir)" > "$BUILD.configure.log"
fi
cmake --build "$BUILD" --target _C typedtensor-run -j "${CMAKE_BUILD_PARALLEL_LEVEL:-2}"

# The package as installed: the Python sources with the sanitized _C beside them.
SITE="$BUILD/site"
rm -rf "$SITE"
mkdir -p "$SITE"
cp -r "$ROOT/typedtensor" "$SITE/typedtensor"
cp -r "$ROOT/checker" "$SITE/typedtensor/checker"
cp -r "$ROOT/mypy_plugin" "$SITE/typedtensor/mypy_plugin"
cp "$BUILD"/_C*.so "$SITE/typedtensor/"
PURELIB="$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"

REPORTS="$BUILD/reports"
rm -rf "$REPORTS"
mkdir -p "$REPORTS"
# Python itself is not instrumented: the runtimes are preloaded. Leaks are not checked (the
# interpreter keeps its objects at exit); a huge allocation returns null (a clean MemoryError)
# instead of an allocator report. Every other report goes to $REPORTS and ends the process.
export LD_PRELOAD="$("$CXX" -print-file-name=libasan.so) $("$CXX" -print-file-name=libubsan.so)"
export ASAN_OPTIONS="detect_leaks=0:allocator_may_return_null=1:halt_on_error=1:log_path=$REPORTS/asan"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$REPORTS/ubsan"
export OMP_NUM_THREADS=1

status=0
for seed in ${SEEDS//,/ }; do
  for loader in load jit run; do
    extra=()
    if [ "$loader" = run ]; then extra=(--exe "$BUILD/typedtensor-run"); fi
    # -S: no site.py, so the development venv's editable install cannot shadow the staged package
    if ! PYTHONPATH="$SITE:$PURELIB" "$PY" -S "$ROOT/tests/fuzz_loaders.py" "$loader" --seed "$seed" \
        --iterations "$ITERATIONS" "${extra[@]}"; then
      echo "sanitize: the $loader fuzzer (seed $seed) failed" >&2
      status=1
    fi
  done
done
unset LD_PRELOAD

reports=$(find "$REPORTS" -type f | wc -l)
if [ "$reports" -ne 0 ]; then
  echo "sanitize: $reports sanitizer report(s):" >&2
  for f in "$REPORTS"/*; do
    echo "== $f" >&2
    head -60 "$f" >&2
  done
  status=1
fi
echo "sanitize: seeds $SEEDS, $ITERATIONS iterations per loader: $reports sanitizer reports"
exit $status
