#!/usr/bin/env bash
# The main job: check every example with both shape checkers, then train the example models.
# Extra arguments go to each example (CI passes --short).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/bootstrap.sh" test
# Run the checkers from inside examples/: at the repository root the source `typedtensor/` would
# shadow the installed package (whose stubs and mypy plugin the checkers need).
cd "$ROOT/examples"
echo "== typedtensor check examples/"
typedtensor check .
echo "== mypy with the typedtensor plugin on examples/"
python -m mypy --config-file mypy.ini .
cd "$ROOT"
for ex in ${TYPEDTENSOR_EXAMPLES:-examples/mlp_digits.py examples/cnn_digits.py examples/char_transformer.py}; do
  echo "== python $ex $*"
  python "$ex" "$@"
done
