#!/usr/bin/env bash
# The early-stopping benchmark of docs/benchmarks.md: Vernier's policies and
# Optuna's pruners on the very same synthetic learning curves, one table per
# curve family.
#   scripts/early_stopping_bench.sh [SEEDS]     (default 1,2,...,40)
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${VERNIER_BUILD_DIR:-build}
seeds=${1:-$(seq -s, 1 40)}
cmake --build "$build_dir" -j2 --target early_stopping_bench >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for family in power crossing overfit; do
  "$build_dir/bin/early_stopping_bench" --simulate --family="$family" --seeds="$seeds" \
    --curves_out="$work/curves.tsv" --results_out="$work/results.tsv" >"$work/vernier.txt"
  # Debian's Python: python3-optuna is installed for it, not for pyenv's.
  /usr/bin/python3 scripts/early_stopping_bench.py "$work/curves.tsv" "$work/results.tsv"
  echo
done
