#!/usr/bin/env bash
# The main job: check every example with both shape checkers, then train an example model.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/bootstrap.sh" test
cd "$ROOT"
echo "== typedtensor check examples/"
typedtensor check examples/
echo "== mypy with the typedtensor plugin on examples/"
python -m mypy --config-file "$ROOT/examples/mypy.ini" examples/
for ex in ${TYPEDTENSOR_EXAMPLES:-examples/mlp_digits.py}; do
  echo "== python $ex"
  python "$ex" "$@"
done
