#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/NAME_fuzzer.cc) into build-fuzz with
# clang-16, AddressSanitizer and UndefinedBehaviorSanitizer, and runs each for
# SECONDS_PER_TARGET (default 60) over a copy of its seed corpus
# fuzz/corpus/NAME/ (the committed corpus is never written to).
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]    e.g. scripts/fuzz.sh 30 page_token
#
# Exits non-zero when a target crashes, leaks, times out (10 s on one input)
# or runs out of memory (2 GB), printing the input that did it and the
# command that reproduces it. The last line of the output is
# "fuzz: N passed, N failed". Each run's copies of the corpora, logs and
# crashing inputs are under build-fuzz/fuzz-run/NAME/ until the next run.
# VERNIER_FUZZ_BUILD_DIR and extra CMake flags (VERNIER_CMAKE_FLAGS, e.g. the
# ccache launcher) may be given; VERNIER_JOBS caps the build's parallelism.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
if ! [[ $seconds =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]; got \"$seconds\" seconds" >&2
  exit 2
fi
shift $(($# > 0 ? 1 : 0))

targets=()
if (($# > 0)); then
  for target in "$@"; do
    target=${target%_fuzzer}
    if [ ! -f "fuzz/${target}_fuzzer.cc" ]; then
      echo "scripts/fuzz.sh: no fuzz target \"$target\" (fuzz/${target}_fuzzer.cc)" >&2
      exit 2
    fi
    targets+=("$target")
  done
else
  for source in fuzz/*_fuzzer.cc; do
    target=${source#fuzz/}
    targets+=("${target%_fuzzer.cc}")
  done
fi

# The longest input each target is given: a little over its largest seed.
max_len_of() {
  case "$1" in
    machine_type_catalog | hypertune_file_reader) echo 8192 ;;
    training_input_parser | stdout_metric_parser) echo 4096 ;;
    flat_json_object_parser) echo 1024 ;;
    *) echo 512 ;;
  esac
}

summary() {
  echo "fuzz: $1 passed, $2 failed"
}

build_dir=${VERNIER_FUZZ_BUILD_DIR:-build-fuzz}
echo "fuzz: building ${targets[*]} in $build_dir"
# shellcheck disable=SC2086
# -O1 with line tables only: what libFuzzer's docs advise, and quicker to
# build; without NDEBUG, so that assertions are checked too.
if ! CC=clang-16 CXX=clang++-16 cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
  -DVERNIER_FUZZ=ON -DVERNIER_BUILD_TESTS=OFF -DVERNIER_BUILD_BENCH=OFF ${VERNIER_CMAKE_FLAGS:-} >/dev/null ||
  ! cmake --build "$build_dir" -j "${VERNIER_JOBS:-$(nproc)}" --target "${targets[@]/%/_fuzzer}"; then
  echo "fuzz: the build failed"
  summary 0 "${#targets[@]}"
  exit 1
fi

run_root=$build_dir/fuzz-run
rm -rf "$run_root"
# Leaks fail a run too; reports name the source lines.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# VERNIER_FUZZ_SEED: libFuzzer's seed; 0 (the default) picks a new one each
# run. CI gives a fixed one, so that it fuzzes exactly what a run by hand with
# the same seed and time did (on a slower machine, a prefix of it), and a
# crash it reports reproduces.
seed=${VERNIER_FUZZ_SEED:-0}
passed=0
failed=0
for target in "${targets[@]}"; do
  run=$run_root/$target
  # Each run starts from the committed corpus alone.
  rm -rf "$run"
  mkdir -p "$run/corpus" "$run/artifacts"
  cp -R "fuzz/corpus/$target/." "$run/corpus/"
  binary=$build_dir/bin/${target}_fuzzer
  status=0
  "$binary" -max_total_time="$seconds" -seed="$seed" -max_len="$(max_len_of "$target")" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$run/artifacts/" \
    "$run/corpus" >"$run/log" 2>&1 || status=$?
  artifact=$(find "$run/artifacts" -type f | head -n 1)
  if [ "$status" = 0 ] && [ -z "$artifact" ]; then
    passed=$((passed + 1))
    # "#1234 DONE cov: 567 ft: 890 corp: 12/345b ..." and the final stats.
    done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$run/log" | tail -n 1 || true)
    stat() { sed -n "s/^stat::$1:[[:space:]]*//p" "$run/log" | tail -n 1; }
    coverage=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' <<<"$done_line" || true)
    corpus=$(grep -oE 'corp: [0-9]+' <<<"$done_line" | grep -oE '[0-9]+' || true)
    echo "fuzz: $target passed: $(stat number_of_executed_units) runs in $seconds s" \
      "($(stat average_exec_per_sec) exec/s), $coverage, corpus $corpus inputs" \
      "($(stat new_units_added) new), peak RSS $(stat peak_rss_mb) MB"
  else
    failed=$((failed + 1))
    kind=${artifact##*/}
    kind=${kind%%-*}
    echo "fuzz: $target FAILED (${kind:-exit status $status}); the end of $run/log:"
    tail -n 60 "$run/log" | sed 's/^/  | /'
    if [ -n "$artifact" ]; then
      echo "fuzz: $target input: $artifact"
      echo "fuzz: $target reproduce: $binary $artifact"
    fi
  fi
done
summary "$passed" "$failed"
[ "$failed" = 0 ]
