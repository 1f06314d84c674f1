#!/usr/bin/env bash
# Prints what the tests that failed in the last ctest run of a build printed,
# in short: each googletest failure with the 12 lines after it (at most 150
# lines a test), then the test's last 20 lines. scripts/test.sh calls it
# last, so that a failure's cause is in the tail of a long CI log:
#   scripts/failed-test-output.sh BUILD_DIR
set -euo pipefail

build=${1:?usage: scripts/failed-test-output.sh BUILD_DIR}
log=$build/Testing/Temporary/LastTest.log
[ -f "$log" ] || {
  echo "failed-test-output: $log is missing: has ctest run in $build?" >&2
  exit 1
}

# LastTest.log holds a block per test: "N/M Test: NAME", its output between
# "Output:" and "<end of output>", then "Test Passed." or "Test Failed.".
awk '
  /^[0-9]+\/[0-9]+ Test: / { name = substr($0, index($0, "Test: ") + 6); next }
  /^Output:$/ { capturing = 1; n = 0; next }
  /^<end of output>$/ { capturing = 0; next }
  capturing && n == 0 && /^-+$/ { next }
  capturing { line[++n] = $0; next }
  /^Test Failed\./ {
    print "== " name " (failed)"
    printed = 0
    after = 0
    for (i = 1; i <= n && printed < 150; i++) {
      if (line[i] ~ /Failure$|Failure: |^C\+\+ exception/) after = 13
      if (after > 0) { print line[i]; printed++; after-- }
    }
    print "-- its last lines:"
    for (i = (n > 20 ? n - 19 : 1); i <= n; i++) print line[i]
  }
' "$log"
