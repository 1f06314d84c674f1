#!/usr/bin/env bash
# Builds the benchmarks (VERNIER_BUILD_BENCH) and runs every bench binary, or
# only those named: scripts/bench.sh [NAME...] [-- ARGS...], where NAME is a
# bench/NAME.cc file name without .cc (suggest_quality_bench) and ARGS go to
# each binary run. VERNIER_BUILD_DIR and VERNIER_CMAKE_FLAGS as for build.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${VERNIER_BUILD_DIR:-build}

names=()
while [[ $# -gt 0 && $1 != "--" ]]; do
  names+=("$1")
  shift
done
[[ $# -gt 0 ]] && shift
if [[ ${#names[@]} -eq 0 ]]; then
  for source in bench/*_bench.cc; do
    names+=("$(basename "$source" .cc)")
  done
fi
for name in "${names[@]}"; do
  if [[ ! -f bench/$name.cc ]]; then
    echo "bench.sh: no benchmark bench/$name.cc; the benchmarks are:" bench/*_bench.cc >&2
    exit 2
  fi
done

# Configured as build.sh does, but only the benchmarks are built.
# shellcheck disable=SC2086
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVERNIER_BUILD_BENCH=ON \
  ${VERNIER_CMAKE_FLAGS:-} >/dev/null
cmake --build "$build_dir" -j "$(nproc)" --target "${names[@]}"
for name in "${names[@]}"; do
  echo "== $name"
  "$build_dir/bin/$name" "$@"
done
