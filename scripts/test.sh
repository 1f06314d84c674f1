#!/usr/bin/env bash
# README command 2: installs what is missing, builds, and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
ctest --test-dir "${VERNIER_BUILD_DIR:-build}" --output-on-failure -j "$(nproc)" --timeout 600
