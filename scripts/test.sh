#!/usr/bin/env bash
# README command 2: installs what is missing, builds, and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
# VERNIER_SANITIZE=1: the same suite built with AddressSanitizer and
# UndefinedBehaviorSanitizer, in build-sanitize (about twice the build time).
if [ "${VERNIER_SANITIZE:-0}" = 1 ]; then
  export VERNIER_BUILD_DIR=${VERNIER_BUILD_DIR:-build-sanitize}
  export VERNIER_CMAKE_FLAGS="${VERNIER_CMAKE_FLAGS:-} -DVERNIER_SANITIZE=ON -DVERNIER_BUILD_BENCH=OFF"
  # Reports go to files, so those of the servers and agents that tests start
  # (whose output goes to logs) are seen too: any file fails the run.
  sanitizer_reports=$(mktemp -d /tmp/vernier-sanitizer.XXXXXX)
  export ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:log_path=$sanitizer_reports/asan
  export LSAN_OPTIONS=suppressions=$PWD/tests/sanitizer/lsan.supp:print_suppressions=0
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:log_path=$sanitizer_reports/ubsan
fi
scripts/install-deps.sh
scripts/build.sh
# A throw-away PostgreSQL server for the PostgreSQL store's tests, stopped on
# exit; each test makes a database of its own on it.
postgres_dir=$(scripts/postgres-up.sh)
trap 'scripts/postgres-down.sh "$postgres_dir"' EXIT
VERNIER_TEST_POSTGRES_URL=$(cat "$postgres_dir/url")
export VERNIER_TEST_POSTGRES_URL
# A throw-away single-node Slurm cluster with 4 fake GPUs for the Slurm
# backend's tests, stopped on exit too.
slurm_dir=$(scripts/slurm-up.sh)
trap 'scripts/slurm-down.sh "$slurm_dir"; scripts/postgres-down.sh "$postgres_dir"' EXIT
export VERNIER_TEST_SLURM_CONF=$slurm_dir/slurm.conf
# Twice as many tests as cores at a time: most end-to-end tests wait on the
# servers, agents and trainers they start, so a core per test leaves the
# CPUs idle (docs/benchmarks.md, "Tests: twice as many at a time as cores").
# Under the sanitizers every test is CPU-bound: one per core.
jobs=$((2 * $(nproc)))
if [ "${VERNIER_SANITIZE:-0}" = 1 ]; then jobs=$(nproc); fi
ctest_status=0
ctest --test-dir "${VERNIER_BUILD_DIR:-build}" --output-on-failure -j "$jobs" --timeout 600 ||
  ctest_status=$?
status=$ctest_status
if [ -n "${sanitizer_reports:-}" ]; then
  if [ -n "$(ls -A "$sanitizer_reports")" ]; then
    echo "test.sh: sanitizer reports from the tests or the processes they started:" >&2
    for report in "$sanitizer_reports"/*; do
      echo "== $report" >&2
      cat "$report" >&2
    done
    status=1
  else
    rmdir "$sanitizer_reports"
  fi
fi
# The fuzz targets (scripts/fuzz.sh, its own clang build in build-fuzz) for a
# bounded time each: in CI, or when VERNIER_FUZZ_SECONDS gives the seconds per
# target. Its last line, "fuzz: N passed, N failed", ends the output.
if [ "${CI:-}" = true ] || [ -n "${VERNIER_FUZZ_SECONDS:-}" ]; then
  # CI fuzzes with a fixed seed (see fuzz.sh), fresh from the committed corpus.
  if [ "${CI:-}" = true ]; then export VERNIER_FUZZ_SEED=${VERNIER_FUZZ_SEED:-1}; fi
  # 15 s a target in CI keeps the whole run within its time (see CONTRIBUTING.md).
  scripts/fuzz.sh "${VERNIER_FUZZ_SECONDS:-15}" || status=1
fi
# The failed tests' output again, in short, last: a long log's tail then
# shows why they failed, not only which.
if [ "$ctest_status" != 0 ]; then
  echo "test.sh: what the failed tests printed (in full: ${VERNIER_BUILD_DIR:-build}/Testing/Temporary/LastTest.log):"
  scripts/failed-test-output.sh "${VERNIER_BUILD_DIR:-build}" || true
fi
exit "$status"
