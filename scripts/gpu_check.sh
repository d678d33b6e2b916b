#!/usr/bin/env bash
# The one prepared GPU run: build the CUDA backend from this working tree, then run the CUDA tests, the
# NVRTC code-generation tests, the three examples on cpu and cuda, compute-sanitizer over a representative
# subset, and the GPU benchmarks -- each phase timed, everything tee'd into $OUT so the logs come back even
# when a step fails or the run is cut off.
#
#   bash scripts/gpu_check.sh --fetch-wheels   # here, with network: the wheels the GPU machine lacks -> .whl/
#   bash scripts/gpu_check.sh                  # on the GPU machine (carry .whl): the full report in $OUT
#   bash scripts/gpu_check.sh --dry-run        # here, without a GPU: the same steps on the host-emulated device
#
# The GPU machine is bare and offline: Python 3.12 with torch, CMake, ninja, scikit-build-core, pybind11,
# pytest, hypothesis and nvidia-cublas, but not scipy-openblas32 or libcst (../shared/notes/build.md). Those
# come as wheels from .whl/ (ignored by git; name it in the device tool's `carry`).
#
# Environment: OUT (report folder; default ./gpu_out), PYTHON (default python3), TT_GPU_BUDGET (seconds for
# the whole run, default 540: a phase that would start with too little time left is skipped and says so),
# TT_GPU_BUILD_LIMIT (seconds for the build, default 420; a 2-core dry run needs more).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
MODE=gpu
case "${1:-}" in
  --dry-run) MODE=dry ;;
  --fetch-wheels) MODE=fetch ;;
  "") ;;
  *) echo "usage: $0 [--dry-run|--fetch-wheels]" >&2; exit 2 ;;
esac
PY="${PYTHON:-python3}"
WHEELS="$ROOT/.whl"
# What the GPU machine lacks, pinned to the versions tested here. libcst is only for the checker, which
# `import typedtensor` does not need, but the package declares it.
NEEDED="scipy-openblas32==0.3.34.481.3 libcst==1.9.0 pytest-timeout==2.4.0"

if [ "$MODE" = fetch ]; then
  plat="--platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64"
  plat="$plat --platform manylinux2014_x86_64 --platform manylinux1_x86_64"
  for v in 3.12 3.11; do  # 3.12 for the GPU machine, 3.11 for the dry run here
    "$PY" -m pip download -q --no-deps --only-binary=:all: --python-version "$v" --implementation cp $plat \
      -d "$WHEELS" $NEEDED || exit 1
  done
  ls -la "$WHEELS"
  exit 0
fi

OUT="${OUT:-$ROOT/gpu_out}"
mkdir -p "$OUT"
BUDGET="${TT_GPU_BUDGET:-540}"
START=$(date +%s)
SUMMARY="$OUT/00_summary.txt"
: >"$SUMMARY"
DEPS=/tmp/tt_gpu_deps
PKG=/tmp/tt_gpu_pkg
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
export PY MODE OUT WHEELS NEEDED DEPS PKG ROOT  # each phase runs in `bash -c` under timeout

note() { echo "$*" | tee -a "$SUMMARY"; }

# phase NAME LOGFILE MIN_SECONDS TIMEOUT_SECONDS COMMAND...: runs COMMAND under `timeout`, appending to LOGFILE
# (the logs are few files because at most eight come back), and records rc and wall time in the summary.
phase() {
  local name=$1 log="$OUT/$2" need=$3 limit=$4; shift 4
  local now left t0 rc
  now=$(date +%s); left=$((BUDGET - (now - START)))
  if [ "$left" -lt "$need" ]; then
    note "$(printf '%-12s SKIPPED (%ss left, needs %ss)' "$name" "$left" "$need")"
    return 0
  fi
  [ "$limit" -gt "$left" ] && limit=$left
  echo "===== $name (limit ${limit}s) =====" >>"$log"
  t0=$(date +%s)
  export -f "$1"
  timeout --kill-after=10 "$limit" bash -c '"$@"' phase "$@" >>"$log" 2>&1
  rc=$?
  note "$(printf '%-12s rc=%-3s %4ss' "$name" "$rc" "$(($(date +%s) - t0))")"
  return 0
}

note "gpu_check mode=$MODE budget=${BUDGET}s $(date -u +%FT%TZ) commit=$(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet 2>/dev/null || echo +dirty)"

# ---- environment ----
env_report() {
  nvidia-smi || echo "(no nvidia-smi)"
  nvcc --version || echo "(no nvcc)"
  "$PY" --version
  "$PY" -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else '')" || true
  nproc
  command -v compute-sanitizer || echo "(no compute-sanitizer)"
}
phase env 01_build.log 5 60 env_report

# ---- dependencies: only those the interpreter lacks, from the carried wheels ----
install_deps() {
  local missing=""
  for spec in $NEEDED; do
    local name=${spec%%==*} mod
    mod=$(echo "$name" | tr - _)
    [ "$name" = pytest-timeout ] && mod=pytest_timeout
    "$PY" -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('$mod') is None)" || missing="$missing $spec"
  done
  echo "missing:${missing:- none}"
  [ -z "$missing" ] && return 0
  rm -rf "$DEPS"
  "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --find-links "$WHEELS" --target "$DEPS" $missing
}
phase deps 01_build.log 10 120 install_deps
export PYTHONPATH="$DEPS${PYTHONPATH:+:$PYTHONPATH}"

# ---- build: the working tree, all cores, CUDA required ----
build() {
  rm -rf "$PKG"
  CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" TYPEDTENSOR_CUDA=ON \
    "$PY" -m pip install --no-build-isolation --no-deps --no-index --no-compile --target "$PKG" \
    -C build-dir="build/gpu-check" "$ROOT"
}
phase build 01_build.log 120 "${TT_GPU_BUILD_LIMIT:-420}" build
export PYTHONPATH="$PKG:$PYTHONPATH"
# -P (below): never put the repository root on sys.path, so `typedtensor` is the package just built.

if [ "$MODE" = dry ]; then
  # The same steps on the host-emulated device: the scripts, paths and tests run; the figures mean nothing.
  export TT_GPU_CHECK_EMULATE=1
fi

smoke() {
  "$PY" -P - <<'EOF'
import os, typedtensor as tt
if os.environ.get("TT_GPU_CHECK_EMULATE"):
    tt._C._testing_emulate_cuda(True)
print("cuda status:", tt.cuda.status())
x = tt.randn(256, 256, device="cuda")
y = (x @ x).relu().sum()
print("matmul+relu+sum on", x.device, "=", float(y.cpu().item()))
EOF
}
phase smoke 01_build.log 10 60 smoke

# ---- the CUDA tests (every cuda-marked test) and the NVRTC code-generation tests ----
cuda_tests() {
  local files
  files=$(grep -rl "pytest.mark.cuda" tests --include='test_*.py' | sort | tr '\n' ' ')
  echo "files: $files"
  local marker="cuda"
  if [ "$MODE" = dry ]; then
    # No device: the cuda-marked tests skip; the emulated and no-device suites stand in for them.
    files="$files tests/backend/test_cuda_emulated.py tests/backend/test_cuda_nodevice.py"
    marker="cuda or not cuda"
  fi
  "$PY" -P -m pytest -q -rfEs -p no:cacheprovider --timeout 120 -m "$marker" \
    --junitxml="$OUT/03_junit.xml" $files tests/graph/test_cuda_codegen.py
}
phase pytest 02_tests.log 60 240 cuda_tests

# ---- the three examples on cpu and on cuda (--short): the accuracies/losses side by side ----
run_example() {  # run_example NAME DEVICE
  "$PY" -P - "$1" "$2" <<'EOF'
import os, runpy, sys
name, device = sys.argv[1], sys.argv[2]
if device == "cuda" and os.environ.get("TT_GPU_CHECK_EMULATE"):
    import typedtensor as tt
    tt._C._testing_emulate_cuda(True)
sys.path.insert(0, "examples")
sys.argv = [f"examples/{name}.py", "--short", "--device", device, "--threads", str(min(os.cpu_count() or 1, 8))]
runpy.run_path(f"examples/{name}.py", run_name="__main__")
EOF
}
examples() {
  local rc=0
  for ex in mlp_digits cnn_digits char_transformer; do
    for dev in cpu cuda; do
      echo "--- $ex on $dev"
      run_example "$ex" "$dev" >/tmp/tt_gpu_example.log 2>&1
      grep -E "Error|Traceback" -A3 /tmp/tt_gpu_example.log | tail -20
      grep -E "test accuracy|final loss" /tmp/tt_gpu_example.log || { rc=1; tail -20 /tmp/tt_gpu_example.log; }
    done
  done
  return $rc
}
export -f run_example
phase examples 04_examples.log 60 180 examples
grep -E "accuracy|final loss" "$OUT/04_examples.log" >>"$SUMMARY" 2>/dev/null

# ---- the benchmarks, torch side by side ----
bench() {
  if [ "$MODE" = dry ]; then
    "$PY" -P benchmarks/gpu.py --markdown --emulate --quick
  else
    "$PY" -P benchmarks/gpu.py --markdown
  fi
}
phase bench 05_bench.md 60 150 bench

# ---- compute-sanitizer (memcheck) over a representative subset; last, because it is slow ----
sanitize() {
  if ! command -v compute-sanitizer >/dev/null; then echo "no compute-sanitizer on PATH"; return 3; fi
  compute-sanitizer --tool memcheck --error-exitcode 9 --print-limit 20 \
    "$PY" -P -m pytest -q -x -p no:cacheprovider --timeout 300 tests/backend/test_cuda.py \
    -k "elementwise_vectorised or reductions_long_rows or softmax_layer_norm or matmul_layouts or conv2d_against_torch or index_ops or mlp_training_step"
}
if [ "$MODE" = gpu ]; then
  phase sanitizer 06_sanitizer.log 60 200 sanitize
else
  note "sanitizer    not run in a dry run (needs a device)"
fi

note "total $(($(date +%s) - START))s"
cat "$SUMMARY"
