#!/usr/bin/env bash
# README command 2: installs what is missing, builds, and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
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
ctest --test-dir "${VERNIER_BUILD_DIR:-build}" --output-on-failure -j "$(nproc)" --timeout 600
