#!/usr/bin/env bash
# Configures and builds Vernier into ./build (binaries in build/bin).
# VERNIER_BUILD_DIR and extra CMake flags (VERNIER_CMAKE_FLAGS) may be given.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${VERNIER_BUILD_DIR:-build}
# shellcheck disable=SC2086
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo ${VERNIER_CMAKE_FLAGS:-} >/dev/null
cmake --build "$build_dir" -j "$(nproc)"
